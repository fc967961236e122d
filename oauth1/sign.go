package oauth1

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"slices"
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

// The signing path, in the order a request takes it: Sign and SignAt
// (BaseString stops after the base string), the pooled scratch state, the
// parameters and base string (build and its checks), the signature (sign),
// and then, in deliver.go, the Trace's hook and the delivery. Each function
// comes after its caller.

// Sign signs r, using the current time and a fresh random nonce, and adds
// the protocol parameters to it as c.Delivery says. tok holds the token
// credentials; it is nil for two-legged requests and for temporary
// credential requests, which have no token.
//
// Sign modifies r: it sets the Authorization header, or extends the query or
// the body. When r has a form body (or c.BodyHash is set) but no GetBody,
// Sign reads r.Body and replaces it with an in-memory copy.
//
// c.Now and c.Nonce, when set, replace the clock and the random nonce.
func (c *Config) Sign(r *http.Request, tok *Credentials) error {
	return c.SignAt(r, tok, c.now(), c.nonce())
}

func (c *Config) now() time.Time {
	if c != nil && c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Config) nonce() string {
	if c != nil && c.Nonce != nil {
		return c.Nonce()
	}
	return newNonce()
}

// newNonce returns 26 characters from crypto/rand (130 bits), all
// unreserved, so that the nonce never needs escaping.
func newNonce() string {
	return rand.Text()
}

// SignAt is Sign with an explicit timestamp and nonce, for tests, published
// vectors and replays. extra holds additional protocol parameters to send and
// sign, such as oauth_callback (§2.1) or oauth_verifier (§2.3); c.Params
// are added to them.
//
// With the PLAINTEXT method, a zero t and an empty nonce leave
// oauth_timestamp and oauth_nonce out, as §3.1 permits.
//
// When r's context carries a [Trace] (see [WithTrace]), its Signed hook is
// called once r is signed.
func (c *Config) SignAt(r *http.Request, tok *Credentials, t time.Time, nonce string, extra ...Param) error {
	return c.signAt(r, tok, t, nonce, extra, nil)
}

// BaseString returns the signature base string (RFC 5849 §3.4.1) that
// SignAt would sign for the same arguments, c.Params included. It does not
// sign r or add anything to it; like Sign, it replaces a form body that has
// no GetBody with an in-memory copy so that the request can still be sent.
func (c *Config) BaseString(r *http.Request, tok *Credentials, t time.Time, nonce string, extra ...Param) (string, error) {
	extra = c.withParams(extra)
	s := getState()
	defer putState(s)
	var buf [8]Param
	if _, err := s.build(c, r, tok, t, nonce, extra, buf[:0]); err != nil {
		return "", err
	}
	return string(s.Base), nil
}

// signAt is SignAt; when base is not nil, it also stores there a copy of
// the base string it signed, for the diagnosis of a refusal (see
// [ResponseError]).
func (c *Config) signAt(r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param, base *string) error {
	s, err := c.signState(r, tok, t, nonce, extra)
	if err != nil {
		return err
	}
	if base != nil {
		*base = string(s.Base)
	}
	putState(s)
	return nil
}

// signState signs r and returns the state that holds what was signed, for
// the caller to put back in the pool.
func (c *Config) signState(r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param) (*state, error) {
	extra = c.withParams(extra)
	s := getState()
	if err := c.signInto(s, r, tok, t, nonce, extra); err != nil {
		putState(s)
		return nil, err
	}
	return s, nil
}

// withParams returns extra with c.Params added, in memory of its own.
func (c *Config) withParams(extra []Param) []Param {
	if c == nil || len(c.Params) == 0 {
		return extra
	}
	return slices.Concat(c.Params, extra)
}

// state is the scratch space of one signing, pooled so that a request
// allocates little beyond what it hands back. Nothing returned to a caller
// may share its memory.
type state struct {
	wire.State
	plain uint16   // bit i: proto[i], one of the Config's own, needs no escaping
	fast  bool     // the fast path built the base string (signown.go)
	ref   bool     // tests: take the plain way only
	own   own      // the fast path's parameters, kept from request to request
	run   []byte   // the fast path's run of parameters
	uri   uriCache // the base string URI, kept from request to request
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	if !s.Reset() {
		return
	}
	statePool.Put(s)
}

func (c *Config) signInto(s *state, r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param) error {
	var buf [8]Param // the Config's own, and room for an extra one
	proto, err := s.build(c, r, tok, t, nonce, extra, buf[:0])
	if err != nil {
		return err
	}
	sig, err := s.sign(c.signer(), c.ConsumerSecret, tok.secret())
	if err != nil {
		return err
	}
	hook := signedHook(r)
	var info SignInfo
	if hook != nil {
		info = s.signInfo(r, proto, c, tok) // before delivery changes r
	}
	if err := s.deliver(c, r, sig, proto, len(extra) == 0); err != nil {
		return err
	}
	if hook != nil {
		hook(info)
	}
	return nil
}

// build collects the parameters of r, appends the protocol parameters to
// deliver (without oauth_signature) to proto and returns it, and writes the
// signature base string into s.Base. The Config's own come first, in
// sorted order. proto is the caller's, on its stack. The usual request,
// with the Config's own parameters only, takes the fast path of
// signown.go; the rest of build is the plain way, and its reference.
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
	if err := s.baseURI(r); err != nil {
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
	s.fast = false
	if len(extra) == 0 && !omitTime && supplied > 0 && proto[0].Name == "oauth_consumer_key" && !s.ref {
		if k, ok := ownKeyOf(c, tok, method, nonce); ok && s.buildOwn(k, r.Method, proto) {
			return proto, nil
		}
	}
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
	s.Base = s.Params.AppendBaseString(s.Base[:0], r.Method, s.uri.raw)
	return proto, nil
}

// checkRealm refuses a realm that cannot be written as a quoted-string:
// a control character such as CR or LF would end or split the header.
func checkRealm(realm string) error {
	for i := 0; i < len(realm); i++ {
		if c := realm[i]; c < ' ' || c == 0x7f {
			return fmt.Errorf("oauth1: realm holds control character %s at offset %d", strconv.QuoteRune(rune(c)), i)
		}
	}
	return nil
}

// signerMethod returns s.SignatureMethod(), or an error naming what is wrong when
// it is empty.
func signerMethod(s Signer) (string, error) {
	if m := s.SignatureMethod(); m != "" {
		return m, nil
	}
	switch m := s.(type) {
	case HMAC:
		return "", mac.UnsupportedHash("HMAC", m.Hash)
	case RSA:
		return "", mac.UnsupportedHash("RSA", m.Hash)
	}
	return "", fmt.Errorf("oauth1: signer %T has an empty Method name", s)
}

func (c *Config) signer() Signer {
	if c.Signer != nil {
		return c.Signer
	}
	return HMAC{}
}

func (tok *Credentials) token() string {
	if tok == nil {
		return ""
	}
	return tok.Token
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

func (tok *Credentials) secret() string {
	if tok == nil {
		return ""
	}
	return tok.Secret
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
