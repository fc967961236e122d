package oauth1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/params"
	"github.com/countersign/countersign/percent"
)

// state is the scratch space of one signing or verification, pooled so that
// a request allocates little beyond what it hands back. Nothing returned to
// a caller may share its memory.
type state struct {
	params params.Set // the signed parameters (§3.4.1.3)
	proto  []Param    // the protocol parameters to deliver, without oauth_signature
	uri    []byte     // the base string URI (§3.4.1.2)
	body   []byte     // a form body read through GetBody
	form   []byte     // the form body, wherever it came from; nil until read
	base   []byte     // the signature base string
	counts []int      // for Set.Count
	key    []byte     // an HMAC key, cleared after use
	sig    []byte     // the signature, base64
	out    []byte     // what delivery writes, before it is copied
	sum    [64]byte   // an HMAC before base64, cleared after use
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// maxPooledBytes keeps a state that once held a huge body from pinning that
// memory in the pool.
const maxPooledBytes = 1 << 20

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	if cap(s.body)+cap(s.base)+cap(s.out) > maxPooledBytes {
		return
	}
	s.params.Reset()
	clear(s.proto) // the values may be secrets' neighbours; drop references
	s.proto, s.uri, s.body, s.form, s.base = s.proto[:0], s.uri[:0], s.body[:0], nil, s.base[:0]
	statePool.Put(s)
}

const formType = "application/x-www-form-urlencoded"

// maxBodyLimit caps Config.MaxBodyBytes and Verifier.MaxBodyBytes: a form
// body takes up to five times its size once encoded, which must fit an int
// on 32-bit platforms too.
const maxBodyLimit = 256 << 20

func bodyLimit(n int64) int64 {
	if n <= 0 {
		return DefaultMaxBodyBytes
	}
	return min(n, maxBodyLimit)
}

// build collects the parameters of r, adds the protocol parameters to s.proto
// and writes the signature base string into s.base.
func (s *state) build(c *Config, r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param) error {
	switch {
	case c == nil:
		return errors.New("oauth1: nil Config")
	case r == nil:
		return errors.New("oauth1: nil request")
	case r.URL == nil:
		return errors.New("oauth1: request has no URL")
	case c.Consumer.Token == "":
		return errors.New("oauth1: missing consumer key (Config.Consumer.Token)")
	}
	if !validMethod(r.Method) {
		// net/http would refuse to send it; say so before signing it.
		return fmt.Errorf("oauth1: invalid method %q", r.Method)
	}
	if err := checkRealm(c.Realm); err != nil {
		return err
	}
	method, err := signerMethod(c.signer())
	if err != nil {
		return err
	}
	plain := method == "PLAINTEXT"
	if plain && !c.AllowInsecurePlainText && !strings.EqualFold(r.URL.Scheme, "https") {
		return fmt.Errorf("oauth1: PLAINTEXT needs an https URL, not %q (RFC 5849 §3.4.4); set Config.AllowInsecurePlainText to override", r.URL.Scheme)
	}
	omitTime := plain && t.IsZero() && nonce == "" // §3.1 lets PLAINTEXT omit both
	if !omitTime {
		if t.IsZero() {
			return errors.New("oauth1: zero timestamp")
		}
		if nonce == "" {
			return errors.New("oauth1: empty nonce")
		}
	}
	if s.uri, err = appendBaseURI(s.uri[:0], r); err != nil {
		return err
	}
	limit := c.maxBodyBytes()
	form, hasBody, err := s.collect(r, limit)
	if err != nil {
		return err
	}
	if c.Delivery == FormBody && hasBody && !form {
		return errors.New("oauth1: FormBody delivery needs an application/x-www-form-urlencoded body")
	}

	// The protocol parameters of §3.1.
	if c.BodyHash != 0 && !form && c.Delivery != FormBody {
		sum, err := s.bodyHash(c, r, hasBody, limit)
		if err != nil {
			return err
		}
		s.proto = append(s.proto, Param{"oauth_body_hash", sum})
	}
	s.proto = append(s.proto, Param{"oauth_consumer_key", c.Consumer.Token})
	if !omitTime {
		s.proto = append(s.proto, Param{"oauth_nonce", nonce})
	}
	s.proto = append(s.proto, Param{"oauth_signature_method", method})
	if !omitTime {
		s.proto = append(s.proto, Param{"oauth_timestamp", formatTimestamp(t.Unix())})
	}
	if tok.token() != "" {
		s.proto = append(s.proto, Param{"oauth_token", tok.Token})
	}
	if !c.OmitVersion {
		s.proto = append(s.proto, Param{"oauth_version", "1.0"})
	}
	for _, p := range extra {
		if p.Name == "realm" || p.Name == "oauth_signature" {
			return fmt.Errorf("oauth1: %q cannot be an extra protocol parameter", p.Name)
		}
		s.proto = append(s.proto, p)
	}
	for _, p := range s.proto {
		if err := s.params.Add(p.Name, p.Value); err != nil {
			return fmt.Errorf("oauth1: protocol parameter %s: %w", percent.Encode(p.Name), err)
		}
	}
	if err := s.checkDuplicates(); err != nil {
		return err
	}
	s.base = s.params.AppendBaseString(s.base[:0], r.Method, s.uri)
	return nil
}

// sign signs s.base into s.sig. HMAC signs with crypto/hmac directly, into
// pooled memory; with macs, keyed states are reused.
func (s *state) sign(sg Signer, cs, ts string, macs *macCache) ([]byte, error) {
	h, ok := sg.(HMAC)
	if !ok {
		sig, err := sg.Sign(s.base, cs, ts)
		s.sig = append(s.sig[:0], sig...)
		return s.sig, err
	}
	if macs != nil {
		var err error
		s.sig, err = macs.appendSign(s.sig[:0], s.key, s.sum[:], h, s.base, cs, ts)
		return s.sig, err
	}
	s.key = appendKey(s.key[:0], cs, ts)
	mac, err := h.new(s.key)
	clear(s.key)
	if err != nil {
		return nil, err
	}
	s.sig = appendHMAC(s.sig[:0], s.sum[:], mac, s.base)
	return s.sig, nil
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
// providers reject a repeated protocol parameter (§3.1).
func (s *state) checkDuplicates() error {
	for i, p := range s.proto {
		for _, q := range s.proto[:i] { // a handful, from this package and the caller
			if p.Name == q.Name {
				return fmt.Errorf("oauth1: protocol parameter %s given twice", percent.Encode(p.Name))
			}
		}
	}
	names := make([]string, 0, 16)
	for _, p := range s.proto {
		names = append(names, p.Name)
	}
	names = append(names, "oauth_signature")
	if cap(s.counts) < len(names) {
		s.counts = make([]int, len(names))
	}
	counts := s.counts[:len(names)]
	s.params.Count(names, counts)
	for i, name := range names {
		switch {
		case name == "oauth_signature" && counts[i] > 0:
			return errors.New("oauth1: the request already carries an oauth_signature parameter")
		case counts[i] > 1:
			return fmt.Errorf("oauth1: the request already carries protocol parameter %s", percent.Encode(name))
		}
	}
	return nil
}

// collect adds the parameters of r's query and, when it is form-encoded,
// of its body (§3.4.1.3.1). It reports whether the body is a form and
// whether r has a body at all.
func (s *state) collect(r *http.Request, limit int64) (form, hasBody bool, err error) {
	if err := s.params.AddForm(r.URL.RawQuery); err != nil {
		return false, false, fmt.Errorf("oauth1: malformed query: %w", err)
	}
	if form, err = isForm(headerValue(r.Header, "Content-Type")); err != nil {
		return false, false, err
	}
	hasBody = r.Body != nil && r.Body != http.NoBody
	if form && hasBody {
		body, err := s.formBody(r, limit)
		if err != nil {
			return false, false, err
		}
		if err := s.params.AddFormBytes(body); err != nil {
			return false, false, fmt.Errorf("oauth1: malformed body: %w", err)
		}
	}
	return form, hasBody, nil
}

// formBody returns r's body, reading it once: a Verifier reads it for the
// protocol parameters before the base string is built.
func (s *state) formBody(r *http.Request, limit int64) ([]byte, error) {
	if s.form != nil {
		return s.form, nil
	}
	b, err := s.readBody(r, limit)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	s.form = b
	return b, nil
}

// readBody returns r's body without consuming it: through GetBody when r
// has one, otherwise by reading r.Body and replacing it with an in-memory
// copy (with GetBody) so that the request can still be sent and replayed.
func (s *state) readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d, limit %d bytes", ErrBodyTooLarge, r.ContentLength, limit)
	}
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: GetBody: %w", err)
		}
		defer rc.Close()
		s.body, err = readLimited(s.body[:0], rc, r.ContentLength, limit)
		return s.body, err
	}
	b, err := readLimited(nil, r.Body, r.ContentLength, limit)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	setBody(r, b)
	return b, nil
}

// setBody makes b the body of r, with GetBody and ContentLength to match.
func setBody(r *http.Request, b []byte) {
	r.ContentLength = int64(len(b))
	if len(b) == 0 {
		r.Body = http.NoBody
		r.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	r.Body = newBodyReader(b)
	r.GetBody = func() (io.ReadCloser, error) { return newBodyReader(b), nil }
}

// A bodyReader is a request body held in memory.
type bodyReader struct{ bytes.Reader }

func newBodyReader(b []byte) *bodyReader {
	r := new(bodyReader)
	r.Reset(b)
	return r
}

func (*bodyReader) Close() error { return nil }

// readLimited appends all of rd to dst, failing rather than truncating when
// there is more than limit bytes. size is the expected length, if known
// (a Content-Length), or -1: the buffer is sized for it at once, and
// otherwise doubled, so that reading costs about the size read.
func readLimited(dst []byte, rd io.Reader, size, limit int64) ([]byte, error) {
	if size >= 0 && size <= limit {
		dst = slices.Grow(dst, int(size)+1) // +1: room to see EOF without growing
	}
	for {
		if len(dst) == cap(dst) {
			n := min(int64(max(512, len(dst))), limit+1-int64(len(dst)))
			dst = slices.Grow(dst, int(max(n, 1)))
		}
		n, err := rd.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return nil, fmt.Errorf("%w: limit %d bytes", ErrBodyTooLarge, limit)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: %w", err)
		}
	}
}

// bodyHash returns the oauth_body_hash value: the base64 hash of the body,
// or of the empty string when there is none.
func (s *state) bodyHash(c *Config, r *http.Request, hasBody bool, limit int64) (string, error) {
	var body []byte
	if hasBody {
		var err error
		if body, err = s.readBody(r, limit); err != nil {
			return "", err
		}
	}
	sum, err := hashBody(c.BodyHash, body)
	if err != nil {
		return "", fmt.Errorf("oauth1: oauth_body_hash: %w", err)
	}
	return sum, nil
}

// appendBaseURI appends the base string URI of §3.4.1.2: scheme and host
// lowercased, the default port dropped, the path exactly as it goes on the
// wire, no query.
func appendBaseURI(dst []byte, r *http.Request) ([]byte, error) {
	u := r.URL
	host := r.Host // what net/http sends as the Host header, when set
	if host == "" {
		host = u.Host
	}
	if u.Scheme == "" || host == "" {
		return dst, fmt.Errorf("oauth1: request URL %q is not absolute", u.Redacted())
	}
	path := u.EscapedPath()
	if u.Opaque != "" {
		// net/http sends an opaque URL verbatim as the request target.
		switch {
		case strings.HasPrefix(u.Opaque, "//"):
			rest := u.Opaque[2:]
			path = ""
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				path = rest[i:]
			}
		case strings.HasPrefix(u.Opaque, "/"):
			path = u.Opaque
		default:
			return dst, fmt.Errorf("oauth1: request URL %q has an opaque part that is not a path", u.Redacted())
		}
	}
	return appendURI(dst, u.Scheme, host, path)
}

// appendURI appends scheme://host/path as §3.4.1.2 writes it.
func appendURI(dst []byte, scheme, host, path string) ([]byte, error) {
	// net/http drops an empty port from the Host header.
	host, err := wireHost(strings.TrimSuffix(host, ":"))
	if err != nil {
		return dst, fmt.Errorf("oauth1: request host: %w", err)
	}
	switch {
	case strings.EqualFold(scheme, "http") && strings.HasSuffix(host, ":80"):
		host = host[:len(host)-3]
	case strings.EqualFold(scheme, "https") && strings.HasSuffix(host, ":443"):
		host = host[:len(host)-4]
	}
	dst = appendLower(dst, scheme)
	dst = append(dst, "://"...)
	dst = appendLower(dst, host)
	if path == "" {
		path = "/"
	}
	return append(dst, path...), nil
}

// validMethod reports whether m is an RFC 9110 token (or empty, which
// net/http sends as GET).
func validMethod(m string) bool {
	for i := 0; i < len(m); i++ {
		if !ascii.TokenChar(m[i]) {
			return false
		}
	}
	return true
}

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// headerValue is h.Get(key) for a key already in canonical form.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// isForm reports whether a Content-Type names an
// application/x-www-form-urlencoded body, in any case, with or without
// parameters.
func isForm(ct string) (bool, error) {
	if ct == "" {
		return false, nil
	}
	if strings.EqualFold(ct, formType) {
		return true, nil // the common case, without mime's allocations
	}
	if !containsFold(ct, "x-www-form-urlencoded") {
		return false, nil // JSON and the rest, without mime's allocations
	}
	mt, _, err := mime.ParseMediaType(ct)
	if mt == formType {
		return true, nil // a malformed charset does not change what the body is
	}
	if err != nil {
		return false, fmt.Errorf("oauth1: malformed Content-Type %q: %w", ct, err)
	}
	return false, nil
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// receivedBase writes into s.base the base string of a request as a
// provider received it: uri is its base string URI, and header holds the
// protocol parameters read from the Authorization header, decoded.
// Parameters delivered in the query or body are part of r and are collected
// with it. oauth_signature and realm are left out wherever they came from
// (§3.4.1.3.1).
func (s *state) receivedBase(r *http.Request, header []Param, limit int64) error {
	if _, _, err := s.collect(r, limit); err != nil {
		return err
	}
	s.params.Delete("oauth_signature")
	for _, p := range header {
		if p.Name != "realm" && p.Name != "oauth_signature" {
			if err := s.params.Add(p.Name, p.Value); err != nil {
				return err
			}
		}
	}
	s.base = s.params.AppendBaseString(s.base[:0], r.Method, s.uri)
	return nil
}
