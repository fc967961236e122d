package verify

import (
	"fmt"
	"net/http"
	"strings"
)

// A Scheme is the scheme verify checks a captured request with.
type Scheme struct {
	Scheme  string
	why     string // the evidence it was inferred from; "" when --scheme or the request line gives it, or when guessed
	guessed bool   // nothing names it, and https, the likelier, is taken
}

// RequestScheme returns the scheme to verify r with: --scheme, else the
// request line's (absolute form), else the one the capture shows: a
// Forwarded or X-Forwarded-Proto header, the port of the Host header, or
// the connection curl -v shows. The request line of a captured request
// rarely names the scheme the client signed; without evidence, https is
// the likelier.
func (f *Options) RequestScheme(r *http.Request, cap Capture) Scheme {
	if f.Scheme != "" {
		return Scheme{Scheme: f.Scheme}
	}
	if r.URL.Scheme != "" {
		return Scheme{Scheme: r.URL.Scheme}
	}
	if p := forwardedProto(r.Header.Get("Forwarded")); p != "" {
		return Scheme{Scheme: p, why: "the Forwarded header says proto=" + p}
	}
	if p := strings.ToLower(strings.TrimSpace(strings.Split(r.Header.Get("X-Forwarded-Proto"), ",")[0])); p == "http" || p == "https" {
		return Scheme{Scheme: p, why: "the X-Forwarded-Proto header says " + p}
	}
	switch {
	case strings.HasSuffix(r.Host, ":80"):
		return Scheme{Scheme: "http", why: "the Host header names port 80"}
	case strings.HasSuffix(r.Host, ":443"):
		return Scheme{Scheme: "https", why: "the Host header names port 443"}
	case cap.curlScheme != "":
		return Scheme{Scheme: cap.curlScheme, why: cap.curlWhy}
	}
	return Scheme{Scheme: "https", guessed: true}
}

// printScheme says which scheme was inferred, and from what.
func (c *report) printScheme(sc Scheme) {
	c.rep.Scheme, c.rep.SchemeFrom = sc.Scheme, sc.why
	if sc.why != "" {
		fmt.Fprintf(c.stdout, "Scheme: %s, since %s (--scheme overrides it).\n", sc.Scheme, sc.why)
	}
}

// forwardedProto returns the proto of the first element of a Forwarded
// header (RFC 7239), if it is http or https.
func forwardedProto(h string) string {
	first, _, _ := strings.Cut(h, ",")
	for _, pair := range strings.Split(first, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(name, "proto") {
			if p := strings.ToLower(strings.Trim(value, `"`)); p == "http" || p == "https" {
				return p
			}
		}
	}
	return ""
}
