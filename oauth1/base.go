package oauth1

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

// state is the scratch space of one signing, pooled so that a request
// allocates little beyond what it hands back. Nothing returned to a caller
// may share its memory.
type state struct {
	wire.State
	plain uint16 // bit i: proto[i], one of the Config's own, needs no escaping
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	if !s.Reset() {
		return
	}
	statePool.Put(s)
}

// build collects the parameters of r, appends the protocol parameters to
// deliver (without oauth_signature) to proto and returns it, and writes the
// signature base string into s.Base. The Config's own come first, in
// sorted order. proto is the caller's, on its stack: the pooled state keeps
// no reference to the values, and storing them costs no write barrier.
func (s *state) build(c *Config, r *http.Request, tok *Credentials, t time.Time, nonce string, extra, proto []Param) ([]Param, error) {
	switch {
	case c == nil:
		return nil, errors.New("oauth1: nil Config")
	case r == nil:
		return nil, errors.New("oauth1: nil request")
	case r.URL == nil:
		return nil, errors.New("oauth1: request has no URL")
	case c.ConsumerKey == "":
		return nil, errors.New("oauth1: missing consumer key (Config.ConsumerKey)")
	}
	if !wire.ValidMethod(r.Method) {
		// net/http would refuse to send it; say so before signing it.
		return nil, fmt.Errorf("oauth1: invalid method %q", r.Method)
	}
	if err := checkRealm(c.Realm); err != nil {
		return nil, err
	}
	method, err := signerMethod(c.signer())
	if err != nil {
		return nil, err
	}
	plain := method == "PLAINTEXT"
	if plain && !c.AllowInsecurePlaintext && !strings.EqualFold(r.URL.Scheme, "https") {
		return nil, fmt.Errorf("oauth1: PLAINTEXT needs an https URL, not %q (RFC 5849 §3.4.4); set Config.AllowInsecurePlaintext to override", r.URL.Scheme)
	}
	omitTime := plain && t.IsZero() && nonce == "" // §3.1 lets PLAINTEXT omit both
	if !omitTime {
		if t.IsZero() {
			return nil, errors.New("oauth1: zero timestamp")
		}
		if nonce == "" {
			return nil, errors.New("oauth1: empty nonce")
		}
	}
	if s.URI, err = wire.AppendBaseURI(s.URI[:0], r); err != nil {
		return nil, err
	}
	limit := wire.BodyLimit(c.MaxBodyBytes)
	form, hasBody, err := s.Collect(r, limit)
	if err != nil {
		return nil, err
	}
	if c.Delivery == FormBody && hasBody && !form {
		return nil, errors.New("oauth1: FormBody delivery needs an application/x-www-form-urlencoded body")
	}

	// The protocol parameters of §3.1.
	if c.BodyHash != 0 && !form && c.Delivery != FormBody {
		sum, err := s.bodyHash(c, r, hasBody, limit)
		if err != nil {
			return nil, err
		}
		proto = append(proto, Param{"oauth_body_hash", sum})
	}
	proto = append(proto, Param{"oauth_consumer_key", c.ConsumerKey})
	if !omitTime {
		proto = append(proto, Param{"oauth_nonce", nonce})
	}
	proto = append(proto, Param{"oauth_signature_method", method})
	if !omitTime {
		proto = append(proto, Param{"oauth_timestamp", formatTimestamp(t.Unix())})
	}
	if tok.token() != "" {
		proto = append(proto, Param{"oauth_token", tok.Token})
	} else if c.SendEmptyToken {
		proto = append(proto, Param{"oauth_token", ""})
	}
	if !c.OmitVersion {
		proto = append(proto, Param{"oauth_version", "1.0"})
	}
	supplied := len(proto) // the Config's own, before the caller's
	for _, p := range extra {
		if p.Name == "realm" || p.Name == "oauth_signature" {
			return nil, fmt.Errorf("oauth1: %q cannot be an extra protocol parameter", p.Name)
		}
		proto = append(proto, p)
	}
	// The Config's own names are unreserved constants: only their values
	// are scanned, once, and delivery copies those that need no escaping.
	s.plain = 0
	for i, p := range proto[:supplied] {
		plain, err := s.Params.AddUnreserved(p.Name, p.Value)
		if err != nil {
			return nil, fmt.Errorf("oauth1: protocol parameter %s: %w", p.Name, err)
		}
		if plain {
			s.plain |= 1 << i
		}
	}
	for _, p := range proto[supplied:] {
		if err := s.Params.Add(p.Name, p.Value); err != nil {
			return nil, fmt.Errorf("oauth1: protocol parameter %s: %w", percent.Encode(p.Name), err)
		}
	}
	if err := s.checkDuplicates(proto, supplied, r.URL.RawQuery); err != nil {
		return nil, err
	}
	s.Base = s.Params.AppendBaseString(s.Base[:0], r.Method, s.URI)
	return proto, nil
}

// sign signs s.Base into s.Sig. HMAC signs with crypto/hmac directly, into
// pooled memory, reusing keyed states.
func (s *state) sign(sg Signer, cs, ts string) ([]byte, error) {
	h, ok := sg.(HMAC)
	if !ok {
		sig, err := sg.Sign(s.Base, cs, ts)
		s.Sig = append(s.Sig[:0], sig...)
		return s.Sig, err
	}
	if h.SignatureMethod() == "" {
		return nil, mac.UnsupportedHash("HMAC", h.Hash)
	}
	var err error
	if h.ConsumerSecretOnly {
		s.Sig, err = h.appendSecretOnly(s.Sig[:0], s.Sum[:], s.Base, cs, ts)
		return s.Sig, err
	}
	s.Sig, err = mac.AppendSign(s.Sig[:0], s.Key, s.Sum[:], h.Hash, s.Base, cs, ts)
	return s.Sig, err
}

// lastTimestamp holds the last oauth_timestamp formatted: requests signed
// in the same second share its string instead of allocating their own.
var lastTimestamp atomic.Pointer[timestamp]

type timestamp struct {
	unix int64
	text string
}

func formatTimestamp(unix int64) string {
	if p := lastTimestamp.Load(); p != nil && p.unix == unix {
		return p.text
	}
	p := &timestamp{unix, strconv.FormatInt(unix, 10)}
	lastTimestamp.Store(p)
	return p.text
}

// checkDuplicates refuses a repeated protocol parameter, and a request
// whose query or body already carries one being added, or oauth_signature:
// providers reject a repeated protocol parameter (§3.1). The first
// supplied parameters are the Config's own. query is r's raw query; s.Form
// holds its form body, if any.
func (s *state) checkDuplicates(proto []Param, supplied int, query string) error {
	for i, p := range proto[supplied:] { // the Config's own are distinct
		i += supplied
		for j, q := range proto[:i] { // a handful, from this package and the caller
			if p.Name == q.Name && j < supplied {
				return fmt.Errorf("oauth1: protocol parameter %s is one the Config supplies; remove it from Config.Params and the extra parameters", percent.Encode(p.Name))
			}
			if p.Name == q.Name {
				return fmt.Errorf("oauth1: protocol parameter %s given twice", percent.Encode(p.Name))
			}
		}
	}
	if !s.mayRepeat(proto, query) {
		return nil // the scans of the Set below would find nothing
	}
	if name, ok := s.Params.Repeated("oauth_"); ok {
		return fmt.Errorf("oauth1: the request already carries protocol parameter %s", name)
	}
	if s.Params.Count("oauth_signature") > 0 {
		return errors.New("oauth1: the request already carries an oauth_signature parameter")
	}
	for _, p := range proto {
		if !strings.HasPrefix(p.Name, "oauth_") && s.Params.Count(p.Name) > 1 {
			return fmt.Errorf("oauth1: the request already carries protocol parameter %s", percent.Encode(p.Name))
		}
	}
	return nil
}

// bodyHash returns the oauth_body_hash value: the base64 hash of the body,
// or of the empty string when there is none.
func (s *state) bodyHash(c *Config, r *http.Request, hasBody bool, limit int64) (string, error) {
	var body []byte
	if hasBody {
		var err error
		if body, err = s.ReadBody(r, limit); err != nil {
			return "", err
		}
	}
	sum, err := mac.HashBody(c.BodyHash, body)
	if err != nil {
		return "", fmt.Errorf("oauth1: oauth_body_hash: %w", err)
	}
	return sum, nil
}

// mayRepeat reports whether the request's parameters may repeat one of
// proto: when every protocol parameter is an oauth_ one and neither the
// query nor the form body names one, none can. Past maxNameScan bytes it
// answers true: the Set's binary searches then cost less than a scan.
func (s *state) mayRepeat(proto []Param, query string) bool {
	if len(query)+len(s.Form) > maxNameScan {
		return true
	}
	for _, p := range proto {
		if !strings.HasPrefix(p.Name, "oauth_") {
			return true
		}
	}
	return namesOAuth(query) || namesOAuth(s.Form)
}

const maxNameScan = 512

// namesOAuth reports whether a form-encoded string has a name that decodes
// to one beginning with "oauth_", or an escape it cannot decode.
func namesOAuth[T string | []byte](raw T) bool {
	const prefix = "oauth_"
	for i := 0; i < len(raw); i++ {
		// raw[i:] begins a name: decode it while it matches the prefix.
		n := 0
	name:
		for ; n < len(prefix) && i < len(raw); n, i = n+1, i+1 {
			c := raw[i]
			switch c {
			case '+':
				c = ' '
			case '%':
				hi, ok1 := ascii.Unhex(byteAt(raw, i+1))
				lo, ok2 := ascii.Unhex(byteAt(raw, i+2))
				if !ok1 || !ok2 {
					return true
				}
				c = hi<<4 | lo
				i += 2
			}
			if c != prefix[n] {
				break name // '&' and '=' among them
			}
		}
		if n == len(prefix) {
			return true
		}
		if i = nextPair(raw, i); i < 0 {
			return false
		}
	}
	return false
}

// nextPair returns the index of the first "&" in raw at or after i, or -1.
func nextPair[T string | []byte](raw T, i int) int {
	var j int
	switch r := any(raw).(type) {
	case string:
		j = strings.IndexByte(r[i:], '&')
	case []byte:
		j = bytes.IndexByte(r[i:], '&')
	}
	if j < 0 {
		return -1
	}
	return i + j
}

// byteAt returns raw[i], or 0 (not a hex digit) past the end.
func byteAt[T string | []byte](raw T, i int) byte {
	if i < len(raw) {
		return raw[i]
	}
	return 0
}
