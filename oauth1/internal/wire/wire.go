// Package wire reads HTTP requests the way both sides of OAuth 1.0a must
// agree on: the parameters of the query and of a form body, the body itself
// (read without consuming it, within a limit), the base string URI of
// RFC 5849 §3.4.1.2 and the host as net/http writes it on the wire.
package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/params"
	"github.com/countersign/countersign/percent"
)

// State is the scratch space of one signing or verification, kept in a
// pool by its user so that a request allocates little beyond what it hands
// back. Nothing returned to a caller may share its memory.
type State struct {
	Params params.Set // the signed parameters (§3.4.1.3)
	URI    []byte     // the base string URI (§3.4.1.2)
	Body   []byte     // a body read through GetBody
	Form   []byte     // the form body, wherever it came from; nil until read
	Base   []byte     // the signature base string
	Key    []byte     // an HMAC key, cleared after use
	Sig    []byte     // a signature, base64
	Out    []byte     // what delivery writes, before it is copied
	Sum    [64]byte   // an HMAC before base64, cleared after use
}

// maxPooledBytes keeps a state that once held a huge body from pinning that
// memory in a pool: a 1 MiB form, which takes about 5 MiB, stays pooled, as
// its allocations cost more than the memory; at 4 MiB they do not.
const maxPooledBytes = 8 << 20

// Reset empties s for reuse and reports whether it is worth pooling.
func (s *State) Reset() bool {
	if cap(s.Body)+cap(s.Base)+cap(s.Out)+s.Params.Memory() > maxPooledBytes {
		return false
	}
	s.Params.Reset()
	s.URI, s.Body, s.Form, s.Base = s.URI[:0], s.Body[:0], nil, s.Base[:0]
	return true
}

// FormType is the media type of a form body.
const FormType = "application/x-www-form-urlencoded"

// DefaultMaxBodyBytes is the body limit when none is set.
const DefaultMaxBodyBytes = 4 << 20

// maxBodyLimit caps the body limits: a form body takes up to five times its
// size once encoded, which must fit an int on 32-bit platforms too.
const maxBodyLimit = 256 << 20

// ErrBodyTooLarge is returned, wrapped with the limit, for a body over it.
var ErrBodyTooLarge = errors.New("oauth1: request body exceeds the size limit")

// BodyLimit returns the body limit n sets: DefaultMaxBodyBytes for zero or
// less, and never more than 256 MiB.
func BodyLimit(n int64) int64 {
	if n <= 0 {
		return DefaultMaxBodyBytes
	}
	return min(n, maxBodyLimit)
}

// Collect adds the parameters of r's query and, when it is form-encoded,
// of its body (§3.4.1.3.1). It reports whether the body is a form and
// whether r has a body at all.
func (s *State) Collect(r *http.Request, limit int64) (form, hasBody bool, err error) {
	if err := s.Params.AddForm(r.URL.RawQuery); err != nil {
		return false, false, fmt.Errorf("oauth1: malformed query: %w", err)
	}
	if form, err = IsForm(HeaderValue(r.Header, "Content-Type")); err != nil {
		return false, false, err
	}
	hasBody = r.Body != nil && r.Body != http.NoBody
	if form && hasBody {
		body, err := s.FormBody(r, limit)
		if err != nil {
			return false, false, err
		}
		if err := s.Params.AddFormBytes(body); err != nil {
			return false, false, fmt.Errorf("oauth1: malformed body: %w", err)
		}
	}
	return form, hasBody, nil
}

// FormBody returns r's body, reading it once: a verifier reads it for the
// protocol parameters before the base string is built.
func (s *State) FormBody(r *http.Request, limit int64) ([]byte, error) {
	if s.Form != nil {
		return s.Form, nil
	}
	b, err := s.ReadBody(r, limit)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	s.Form = b
	return b, nil
}

// ReadBody returns r's body without consuming it: through GetBody when r
// has one, otherwise by reading r.Body and replacing it with an in-memory
// copy (with GetBody) so that the request can still be sent and replayed.
func (s *State) ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d, limit %d bytes", ErrBodyTooLarge, r.ContentLength, limit)
	}
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: GetBody: %w", err)
		}
		defer rc.Close()
		s.Body, err = ReadLimited(s.Body[:0], rc, r.ContentLength, limit)
		return s.Body, err
	}
	b, err := ReadLimited(nil, r.Body, r.ContentLength, limit)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	SetBody(r, b)
	return b, nil
}

// SetBody makes b the body of r, with GetBody and ContentLength to match.
func SetBody(r *http.Request, b []byte) {
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

// ReadLimited appends all of rd to dst, failing rather than truncating when
// there is more than limit bytes. size is the declared length (a
// Content-Length), or -1.
//
// Memory grows with what arrives, never with what is declared, so that a
// client declaring 4 MiB and sending nothing costs no more than the 4 KiB
// net/http takes for any connection: dst starts with firstRead bytes and
// doubles up to directRead; then the body goes into pooled chunks, taken
// as bytes arrive. Once a quarter of the declared size has come, one
// buffer of that size takes over; a body of unknown size stays in chunks,
// copied once into a buffer of its size at the end. So reading holds at
// most about four times what arrived, and costs about the size read.
func ReadLimited(dst []byte, rd io.Reader, size, limit int64) ([]byte, error) {
	start := len(dst)
	declared := size >= 0 && size <= limit
	var c chunks
	defer c.free()
	for {
		n := int64(len(dst)-start) + c.len() // arrived so far
		var room []byte
		switch {
		case c.list != nil && declared && n <= size && 4*n >= size:
			dst = c.drain(dst, int(size-n)+1) // +1: room to see EOF without growing
			continue
		case c.list != nil:
			room = c.room()
		case len(dst) == cap(dst) && n >= directRead:
			c.list = make([]*[chunkSize]byte, 0, 8)
			continue
		case len(dst) == cap(dst):
			// Double what arrived, or, once a quarter of the declared size
			// has, room for all of it: +1 to see EOF without growing.
			want := min(max(firstRead, 2*n), limit+1)
			if declared && n <= size && (size <= 4*n || size < want) {
				want = size + 1
			}
			// Not slices.Grow, which may double again what it was asked.
			dst = append(make([]byte, 0, start+int(max(want, n+1))), dst...)
			fallthrough
		default:
			room = dst[len(dst):cap(dst)]
		}
		m, err := rd.Read(room)
		if c.list != nil {
			c.last += m
		} else {
			dst = dst[:len(dst)+m]
		}
		if n+int64(m) > limit {
			return nil, fmt.Errorf("%w: limit %d bytes", ErrBodyTooLarge, limit)
		}
		if err == io.EOF {
			return c.drain(dst, 0), nil
		}
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: %w", err)
		}
	}
}

const (
	firstRead  = 4 << 10  // the first buffer of a body read, as net/http's
	directRead = 32 << 10 // read into dst before chunks take over
	chunkSize  = 32 << 10 // the chunks of ReadLimited
)

// chunkPool holds the chunks of ReadLimited.
var chunkPool = sync.Pool{New: func() any { return new([chunkSize]byte) }}

// chunks is what ReadLimited read into pooled chunks: all of each but
// the last, and last bytes of that one.
type chunks struct {
	list []*[chunkSize]byte
	last int
}

func (c *chunks) len() int64 {
	if len(c.list) == 0 {
		return 0
	}
	return int64(len(c.list)-1)*chunkSize + int64(c.last)
}

// room returns the free part of the last chunk, taking a new one when it
// is full.
func (c *chunks) room() []byte {
	if len(c.list) == 0 || c.last == chunkSize {
		c.list, c.last = append(c.list, chunkPool.Get().(*[chunkSize]byte)), 0
	}
	return c.list[len(c.list)-1][c.last:]
}

// drain returns dst with the chunks' bytes appended, in a buffer with room
// for extra bytes more, and gives the chunks back.
func (c *chunks) drain(dst []byte, extra int) []byte {
	if c.list == nil {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+int(c.len())+extra)
	copy(out, dst)
	for i, ch := range c.list {
		if i == len(c.list)-1 {
			out = append(out, ch[:c.last]...)
		} else {
			out = append(out, ch[:]...)
		}
	}
	c.free()
	return out
}

// free gives the chunks back to the pool.
func (c *chunks) free() {
	for _, ch := range c.list {
		chunkPool.Put(ch)
	}
	c.list, c.last = nil, 0
}

// AppendBaseURI appends the base string URI of §3.4.1.2 of a request a
// client sends: scheme and host lowercased, the default port dropped, the
// path exactly as it goes on the wire, no query.
func AppendBaseURI(dst []byte, r *http.Request) ([]byte, error) {
	u := r.URL
	host := r.Host // what net/http sends as the Host header, when set
	if host == "" {
		host = u.Host
	}
	if u.Scheme == "" || host == "" {
		return dst, fmt.Errorf("oauth1: request URL %q is not absolute", u.Redacted())
	}
	path := u.Path
	if u.RawPath != "" || !plainPath(path) {
		path = u.EscapedPath()
	}
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
	return AppendURI(dst, u.Scheme, host, path)
}

// plainPath reports whether path is all unreserved bytes and "/", which
// u.EscapedPath returns as they are when u.RawPath is empty: the usual
// path, checked without net/url's per-byte switch.
func plainPath(path string) bool {
	for i := 0; i < len(path); i++ {
		if c := path[i]; c != '/' && !ascii.Unreserved(c) {
			return false
		}
	}
	return true
}

// AppendURI appends scheme://host/path as §3.4.1.2 writes it.
func AppendURI(dst []byte, scheme, host, path string) ([]byte, error) {
	// net/http drops an empty port from the Host header.
	host, err := Host(strings.TrimSuffix(host, ":"))
	if err != nil {
		return dst, fmt.Errorf("oauth1: request host: %w", err)
	}
	switch {
	case strings.EqualFold(scheme, "http") && strings.HasSuffix(host, ":80"):
		host = host[:len(host)-3]
	case strings.EqualFold(scheme, "https") && strings.HasSuffix(host, ":443"):
		host = host[:len(host)-4]
	}
	dst = ascii.AppendLower(dst, scheme)
	dst = append(dst, "://"...)
	dst = ascii.AppendLower(dst, host)
	if path == "" {
		path = "/"
	}
	return append(dst, path...), nil
}

// ValidMethod reports whether m is an RFC 9110 token (or empty, which
// net/http sends as GET).
func ValidMethod(m string) bool {
	for i := 0; i < len(m); i++ {
		if !ascii.TokenChar(m[i]) {
			return false
		}
	}
	return true
}

// HeaderValue is h.Get(key) for a key already in canonical form.
func HeaderValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// IsForm reports whether a Content-Type names an
// application/x-www-form-urlencoded body, in any case, with or without
// parameters.
func IsForm(ct string) (bool, error) {
	if ct == "" {
		return false, nil
	}
	if ct == FormType || strings.EqualFold(ct, FormType) {
		return true, nil // the common case, without mime's allocations (or EqualFold's loop)
	}
	if !ascii.ContainsFold(ct, "x-www-form-urlencoded") {
		return false, nil // JSON and the rest, without mime's allocations
	}
	mt, _, err := mime.ParseMediaType(ct)
	if mt == FormType {
		return true, nil // a malformed charset does not change what the body is
	}
	if err != nil {
		return false, fmt.Errorf("oauth1: malformed Content-Type %q: %w", ct, err)
	}
	return false, nil
}

// AppendQuoted appends s as an RFC 9110 §5.6.4 quoted-string, which is how
// RFC 5849 §3.5.1 carries realm ("added and interpreted per RFC 2617
// §1.2"): not percent-encoded, with '"' and '\\' escaped.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// AppendPair appends name=value, both percent-encoded (RFC 5849 §3.6), as a
// form body or a query holds them; the caller writes the '&' between pairs.
func AppendPair(b []byte, name, value string) []byte {
	b = percent.AppendEncode(b, name)
	b = append(b, '=')
	return percent.AppendEncode(b, value)
}
