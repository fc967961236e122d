package server

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/countersign/countersign/internal/ascii"
)

// maxCallbackLen bounds oauth_callback, which a TokenStore keeps.
const maxCallbackLen = 2048

// scriptSchemes are never callbacks, whatever a registration lists: a
// browser sent to one runs what the URL holds, or shows a local file.
var scriptSchemes = []string{"javascript", "vbscript", "livescript", "data", "blob", "file", "filesystem", "about", "view-source"}

// validCallback is the Provider's policy for oauth_callback: "oob", an
// absolute http or https URL with a host, or a URL of one of schemes, the
// client's registered CallbackSchemes; every URL as parseCallback checks
// it.
func validCallback(cb string, schemes []string) error {
	if cb == "oob" {
		return nil
	}
	u, err := parseCallback(cb)
	if err != nil {
		return err
	}
	switch {
	case u.Scheme == "http" || u.Scheme == "https":
		return checkWebHost(u)
	case slices.Contains(scriptSchemes, u.Scheme):
		return fmt.Errorf("oauth_callback has the scheme %q", u.Scheme)
	case !slices.ContainsFunc(schemes, func(s string) bool { return strings.EqualFold(s, u.Scheme) }):
		return fmt.Errorf("oauth_callback has the scheme %q, which is not http, https or one the client registered", u.Scheme)
	}
	return nil
}

// parseCallback parses an absolute URL and refuses what no callback needs
// and what can make one go elsewhere than it seems to: more than
// maxCallbackLen bytes; a byte that is a control character, a space, a
// backslash or not ASCII (an internationalized host must be sent as
// punycode, xn--); a control character percent-encoded; a malformed
// escape; userinfo; a fragment, even empty; and oauth_token,
// oauth_verifier or oauth_problem in the query, the names the provider
// adds. url.Parse lowercases the scheme.
func parseCallback(cb string) (*url.URL, error) {
	if len(cb) > maxCallbackLen {
		return nil, fmt.Errorf("oauth_callback is longer than %d bytes", maxCallbackLen)
	}
	for i := 0; i < len(cb); i++ {
		switch c := cb[i]; {
		case c <= ' ' || c >= 0x7F:
			return nil, errors.New("oauth_callback holds a control character, a space or a byte that is not ASCII (an internationalized host goes as punycode)")
		case c == '\\':
			return nil, errors.New("oauth_callback holds a backslash")
		case c == '#':
			return nil, errors.New("oauth_callback has a fragment")
		case c == '%':
			hi, ok1 := ascii.Unhex(at(cb, i+1))
			lo, ok2 := ascii.Unhex(at(cb, i+2))
			if !ok1 || !ok2 {
				return nil, errors.New("oauth_callback holds a malformed escape")
			}
			if d := hi<<4 | lo; d < ' ' || d == 0x7F {
				return nil, errors.New("oauth_callback holds an encoded control character")
			}
		}
	}
	u, err := url.Parse(cb)
	switch {
	case err != nil:
		return nil, errors.New("oauth_callback is not a URL")
	case u.Scheme == "":
		return nil, errors.New(`oauth_callback is neither "oob" nor an absolute URL`)
	case u.User != nil:
		return nil, errors.New("oauth_callback has userinfo")
	}
	for _, kv := range strings.FieldsFunc(u.RawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		name, _, _ := strings.Cut(kv, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		switch strings.ToLower(name) {
		case "oauth_token", "oauth_verifier", "oauth_problem":
			return nil, fmt.Errorf("oauth_callback has %s in its query, which the provider adds", strings.ToLower(name))
		}
	}
	return u, nil
}

// at returns s[i], or 0 (not a hex digit) past the end.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// checkWebHost checks that the http or https URL u has an authority with
// a host: a DNS name of letters, digits, '-', '_' and '.', or an IP
// literal.
func checkWebHost(u *url.URL) error {
	host := u.Hostname()
	if u.Opaque != "" || host == "" {
		return errors.New("oauth_callback has no host")
	}
	if strings.HasPrefix(u.Host, "[") {
		return nil // url.Parse checked the IPv6 literal
	}
	for i := 0; i < len(host); i++ {
		if c := host[i]; !ascii.Unreserved(c) || c == '~' {
			return fmt.Errorf("oauth_callback has the host %q", host)
		}
	}
	return nil
}

// matchCallback reports, with nil, that callback matches one of the
// callbacks registered for a client, as [Registration].Callbacks says;
// the error says why not. The callback is first checked as the Provider
// checks every oauth_callback: one with userinfo, a fragment, a control
// character or a byte that is not ASCII matches nothing.
func matchCallback(registered []string, callback string) error {
	if callback == "oob" {
		if slices.Contains(registered, "oob") {
			return nil
		}
		return errors.New(`oauth_callback "oob" is not registered`)
	}
	u, err := parseCallback(callback)
	if err != nil {
		return err
	}
	for _, r := range registered {
		if callbackMatches(r, u) {
			return nil
		}
	}
	return errors.New("oauth_callback matches no registered callback")
}

// callbackMatches reports whether the callback u matches the registered
// callback reg, as Registration.Callbacks says.
func callbackMatches(reg string, u *url.URL) bool {
	ru, err := url.Parse(reg)
	if err != nil || ru.Scheme == "" || ru.User != nil || strings.Contains(reg, "#") {
		return false
	}
	if ru.Scheme != u.Scheme || !sameAuthority(ru, u) || ru.Opaque != u.Opaque {
		return false
	}
	if (ru.RawQuery != "" || ru.ForceQuery) && (ru.RawQuery != u.RawQuery || ru.ForceQuery != u.ForceQuery) {
		return false
	}
	rp, cp := ru.EscapedPath(), u.EscapedPath()
	if ru.Host != "" && rp == "" {
		rp = "/"
	}
	if u.Host != "" && cp == "" {
		cp = "/"
	}
	if !strings.HasSuffix(rp, "/") {
		return rp == cp
	}
	rest, ok := strings.CutPrefix(cp, rp)
	return ok && !escapesPrefix(rest)
}

// sameAuthority reports whether the callback u has the host and port of
// the registered callback reg, or, when reg is an http URL to a loopback
// IP literal without a port, the same literal on any port (RFC 8252 §7.3).
func sameAuthority(reg, u *url.URL) bool {
	if authority(reg) == authority(u) {
		return true
	}
	if reg.Scheme != "http" || (reg.Host != reg.Hostname() && reg.Host != "["+reg.Hostname()+"]") {
		return false // not http, or with a port
	}
	ip, err := netip.ParseAddr(reg.Hostname())
	if err != nil || !ip.IsLoopback() || ip.Zone() != "" {
		return false
	}
	port, ok := strings.CutPrefix(u.Host, reg.Host+":")
	if !ok || port == "" || len(port) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
		n = n*10 + int(port[i]-'0')
	}
	return 0 < n && n <= 65535
}

// authority returns the host and port of u as they compare: lowercase,
// without the default port of http and https.
func authority(u *url.URL) string {
	host := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case u.Scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return host
}

// maxDecodeRounds bounds how many times escapesPrefix percent-decodes the
// rest of a path: a rest still changing after that many is refused.
const maxDecodeRounds = 4

// escapesPrefix reports whether the rest of a path, after a registered
// prefix, can lead out of it through a server or proxy that decodes it
// again: it is percent-decoded until it no longer changes (at most
// maxDecodeRounds times), and refused if any round holds a dot segment
// ("." or "..", also with trailing dots or spaces, or followed by
// parameters, ";"), a backslash, a slash, '?' or '#' that decoding made, a
// control character, a malformed escape, or bytes that are not UTF-8 (an
// overlong %c0%ae among them); or a dot-like character such as the
// fullwidth full stop, which some servers normalize to '.'.
func escapesPrefix(rest string) bool {
	s := rest
	for range maxDecodeRounds {
		if unsafeSegments(s) {
			return true
		}
		d, err := url.PathUnescape(s)
		switch {
		case err != nil:
			return true
		case d == s:
			return false
		case countAny(d, "/?#") != countAny(s, "/?#"):
			return true // an escaped slash, '?' or '#'
		}
		s = d
	}
	return true // still encoded after maxDecodeRounds: deeper than any honest callback
}

// countAny returns how many bytes of s are in chars.
func countAny(s, chars string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) >= 0 {
			n++
		}
	}
	return n
}

// unsafeSegments reports whether the path s holds a backslash, a control
// character or bytes that are not UTF-8, or a segment that some server
// could read as a dot segment.
func unsafeSegments(s string) bool {
	if !utf8.ValidString(s) || strings.ContainsRune(s, '\\') {
		return true
	}
	for _, r := range s {
		if r < ' ' || r == 0x7F || (0x80 <= r && r < 0xA0) {
			return true
		}
	}
	for seg := range strings.SplitSeq(s, "/") {
		seg, _, _ = strings.Cut(seg, ";")
		if seg != "" && strings.Trim(seg, ". \t\u2024\uFE52\uFF0E\u3002") == "" {
			return true
		}
	}
	return false
}
