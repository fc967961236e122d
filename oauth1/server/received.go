package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

// maxProtocolParams bounds the protocol parameters of one request: §3.1
// defines eight, and extensions add a few more. More is refused before any
// lookup, so that hostile requests cost little.
const maxProtocolParams = 64

// collectProtocol reads the protocol parameters of r's OAuth Authorization
// header and of its query (§3.5, with realm) into s.proto, the header's
// first, and the header's other parameters into s.header, refusing
// duplicates; collectBody adds those of a form body. A signature the header
// had to decode is left in s.dec, returned as sig, and its entry in s.proto
// has an empty value. It reports whether r has a form body and a body.
func collectProtocol(s *state, r *http.Request) (sig []byte, form, hasBody bool, err error) {
	fail := func(err error) ([]byte, bool, bool, error) { return nil, false, false, err }
	seen := false
	s.header, s.proto, s.dec = s.header[:0], s.proto[:0], s.dec[:0]
	for _, h := range r.Header["Authorization"] { // canonical already: no Header.Values
		if !isOAuthScheme(h) {
			continue
		}
		if seen {
			return fail(problem(oauth1.ProblemParameterRejected, errors.New("more than one OAuth Authorization header"), "Authorization"))
		}
		seen = true
		if sig, err = s.parseHeader(h); err != nil {
			if he, ok := err.(*wire.HeaderError); ok {
				err = &oauth1.AuthHeaderError{Offset: he.Offset, Reason: he.Reason, Err: he.Err}
			}
			return fail(problem(oauth1.ProblemParameterRejected, err, "Authorization"))
		}
	}
	s.fromHeader = len(s.proto)
	if len(s.proto) > maxProtocolParams {
		return fail(problem(oauth1.ProblemParameterRejected, fmt.Errorf("more than %d protocol parameters", maxProtocolParams), "Authorization"))
	}
	if s.proto, err = appendOAuthForm(s.proto, r.URL.RawQuery, "query"); err != nil {
		return fail(err)
	}
	if form, err = wire.IsForm(wire.HeaderValue(r.Header, "Content-Type")); err != nil {
		return fail(problem(oauth1.ProblemParameterRejected, err, "Content-Type"))
	}
	hasBody = r.Body != nil && r.Body != http.NoBody
	if name, ok := repeatedName(s.proto); ok {
		return fail(problem(oauth1.ProblemParameterRejected, errors.New("duplicated protocol parameter"), name))
	}
	return sig, form, hasBody, nil
}

// collectBody reads r's form body, held for receivedBase (one read), and
// adds its protocol parameters to s.proto, refusing duplicates; it returns
// how many of s.proto were there before.
func collectBody(s *state, r *http.Request, limit int64) (before int, err error) {
	before = len(s.proto)
	body, err := s.FormBodyHeld(r, limit)
	if err != nil {
		return before, err
	}
	if s.proto, err = appendOAuthForm(s.proto, body, "body"); err != nil {
		return before, err
	}
	if len(s.proto) > before {
		if name, ok := repeatedName(s.proto); ok {
			return before, problem(oauth1.ProblemParameterRejected, errors.New("duplicated protocol parameter"), name)
		}
	}
	return before, nil
}

// parseHeader reads the OAuth Authorization header h, decoded as
// oauth1.ParseAuthHeader decodes it: its protocol parameters and realm into
// s.proto, the others into s.header. Values that had to be decoded are
// copied out of s.dec, but for oauth_signature, whose decoding is returned
// instead: it is compared, never handed back.
func (s *state) parseHeader(h string) (sig []byte, err error) {
	a, err := wire.NewAuthParser(h, s.dec)
	if err != nil {
		return nil, err
	}
	for {
		p, ok, err := a.Next()
		if err != nil || !ok {
			s.dec = a.Buf
			return sig, err
		}
		if p.InBuf {
			if p.Name == "oauth_signature" {
				sig = a.Buf[p.Start:p.End:p.End]
			} else {
				p.Value = string(a.Buf[p.Start:p.End])
			}
		}
		if strings.HasPrefix(p.Name, "oauth_") || p.Name == "realm" {
			s.proto = append(s.proto, oauth1.Param{Name: p.Name, Value: p.Value})
		} else {
			s.header = append(s.header, oauth1.Param{Name: p.Name, Value: p.Value})
		}
	}
}

// repeatedName returns a name that occurs more than once in ps, which holds
// at most maxProtocolParams parameters.
func repeatedName(ps []oauth1.Param) (string, bool) {
	for i, p := range ps {
		for _, q := range ps[:i] {
			if p.Name == q.Name {
				return p.Name, true
			}
		}
	}
	return "", false
}

func isOAuthScheme(h string) bool {
	for len(h) > 0 && (h[0] == ' ' || h[0] == '\t') {
		h = h[1:]
	}
	return len(h) >= 5 && strings.EqualFold(h[:5], "OAuth") && (len(h) == 5 || h[5] == ' ' || h[5] == '\t')
}

// appendOAuthForm appends the oauth_* parameters of a query or form body,
// decoded with form rules, as §3.4.1.3.1 reads them. Past maxProtocolParams
// in all, the request is refused. What it appends is copied out of raw.
func appendOAuthForm[T string | []byte](dst []oauth1.Param, raw T, where string) ([]oauth1.Param, error) {
	for len(raw) > 0 {
		if len(dst) > maxProtocolParams {
			return dst, problem(oauth1.ProblemParameterRejected, fmt.Errorf("more than %d protocol parameters", maxProtocolParams))
		}
		pair := raw
		raw = raw[len(raw):]
		if i := index(pair, '&'); i >= 0 {
			pair, raw = pair[:i], pair[i+1:]
		}
		name, value := pair, pair[len(pair):]
		if i := index(pair, '='); i >= 0 {
			name, value = pair[:i], pair[i+1:]
		}
		// Most names are skipped without decoding; an escaped one, such as
		// "%6Fauth_nonce", is decoded first.
		if (len(name) < len("oauth_") || string(name[:6]) != "oauth_") && index(name, '%') < 0 {
			continue
		}
		n, err := percent.DecodeForm(string(name))
		if err != nil || !strings.HasPrefix(n, "oauth_") {
			continue // a malformed escape is reported with the base string
		}
		val, err := percent.DecodeForm(string(value))
		if err != nil {
			return dst, problem(oauth1.ProblemParameterRejected, fmt.Errorf("malformed %s: %w", where, err), n)
		}
		dst = append(dst, oauth1.Param{Name: n, Value: val})
	}
	return dst, nil
}

// index is strings.IndexByte or bytes.IndexByte.
func index[T string | []byte](s T, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// parseTimestamp accepts a positive decimal number of seconds, digits only.
func parseTimestamp(s string) (int64, error) {
	if s == "" || len(s) > 18 {
		return 0, fmt.Errorf("oauth_timestamp %q is not a positive integer", s)
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("oauth_timestamp %q is not a positive integer", s)
		}
		n = n*10 + int64(s[i]-'0') // 18 digits fit in an int64
	}
	return n, nil
}

// scheme returns the scheme of r's base string URI. From SchemeHeader it
// takes the last element of the last line: a proxy that appends to the
// header rather than replacing it puts its own value after the client's.
func (v *Verifier) scheme(r *http.Request) string {
	if v.SchemeHeader != "" {
		if lines := r.Header.Values(v.SchemeHeader); len(lines) > 0 {
			h := lines[len(lines)-1]
			if i := strings.LastIndexByte(h, ','); i >= 0 {
				h = h[i+1:]
			}
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "http" || h == "https" {
				return h
			}
		}
	}
	if v.Scheme != "" {
		return strings.ToLower(v.Scheme)
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// baseURI appends the base string URI of a received request: the scheme
// as configured, the Host header, and the path exactly as it was in the
// request line (r.RequestURI), which r.URL may have normalized. With
// v.Host set, a Host header that names another host is an error.
func (v *Verifier) baseURI(dst []byte, r *http.Request, scheme string) ([]byte, error) {
	path := r.RequestURI
	if path == "" || path == "*" {
		path = r.URL.EscapedPath() // only then: r.URL's path costs a check
		if r.URL.Opaque != "" {
			path = r.URL.Opaque
		}
	} else {
		path, _, _ = strings.Cut(path, "?")
		if !strings.HasPrefix(path, "/") {
			// absolute-form (RFC 9112 §3.2.2): skip scheme and authority.
			if _, rest, ok := strings.Cut(path, "://"); ok {
				path = ""
				if i := strings.IndexByte(rest, '/'); i >= 0 {
					path = rest[i:]
				}
			}
		}
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	if host == "" {
		return dst, errors.New("request has no Host")
	}
	if v.Host != "" {
		// Compared as normalized: "API.example.com:443" is api.example.com
		// over https.
		var got, want [128]byte
		g, err := wire.AppendURI(got[:0], scheme, host, "/")
		if err != nil {
			return dst, err
		}
		w, err := wire.AppendURI(want[:0], scheme, v.Host, "/")
		if err != nil {
			return dst, fmt.Errorf("invalid Verifier.Host %q: %w", v.Host, err)
		}
		if !bytes.Equal(g, w) {
			return dst, fmt.Errorf("the Host header %q is not %q, the host this Verifier serves", host, v.Host)
		}
	}
	return wire.AppendURI(dst, scheme, host, path)
}

// receivedBase writes into s.Base the base string of a request as a
// provider received it: s.URI is its base string URI, and the parameters
// read from the Authorization header, decoded, are s.header and
// s.proto[:s.fromHeader].
// Parameters delivered in the query or body are part of r and are collected
// with it. oauth_signature and realm are left out wherever they came from
// (§3.4.1.3.1).
func (s *state) receivedBase(r *http.Request, limit int64) error {
	// The header's parameters first: Collect sizes the set for the query
	// and the body on top of them, and nothing grows it after. Added
	// last, they grew a set that a form of 2^k pairs filled to the byte
	// by a quarter again, copied: 26 bytes per body byte instead of 14.
	for _, ps := range [2][]oauth1.Param{s.proto[:s.fromHeader], s.header} {
		for _, p := range ps {
			if p.Name != "realm" && p.Name != "oauth_signature" {
				if err := s.Params.Add(p.Name, p.Value); err != nil {
					return err
				}
			}
		}
	}
	if _, _, err := s.Collect(r, limit); err != nil {
		return err
	}
	// Only a query or body can have put oauth_signature in the Set:
	// collectProtocol and collectBody read their every oauth_* name into
	// s.proto[s.fromHeader:], decoded as Collect decodes them, and a name
	// they could not decode failed Collect above.
	for _, p := range s.proto[s.fromHeader:] {
		if p.Name == "oauth_signature" {
			s.Params.Delete("oauth_signature")
			break
		}
	}
	s.Base = s.Params.AppendBaseString(s.Base[:0], r.Method, s.URI)
	return nil
}

// lookupable reports whether s is UTF-8 without control characters, as
// every consumer key and token a provider issues is. It runs on every
// request, so it reads ASCII eight bytes at a time, in one pass, and hands
// only what follows a byte over 0x7F to the UTF-8 check.
func lookupable(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 {
			return lookupableRest(s[i:])
		}
		// Every byte is under 0x80: a byte under 0x20, or one that is
		// 0x7F (zero once XORed with it), borrows into its high bit.
		del := x ^ 0x7f*ones
		if (x-0x20*ones)&^x&highs != 0 || (del-ones)&^del&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		} else if c >= utf8.RuneSelf {
			return lookupableRest(s[i:])
		}
	}
	return true
}

// lookupableRest is lookupable for a string that is not all ASCII.
func lookupableRest(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0x20 || r == 0x7f || r == utf8.RuneError && n == 1 {
			return false
		}
		i += n
	}
	return true
}
