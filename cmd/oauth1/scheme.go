package main

import (
	"fmt"
	"net/http"
	"strings"
)

// A schemeChoice is the scheme verify checks a captured request with.
type schemeChoice struct {
	scheme  string
	why     string // the evidence it was inferred from; "" when --scheme or the request line gives it, or when guessed
	guessed bool   // nothing names it, and https, the likelier, is taken
}

// requestScheme returns the scheme to verify r with: --scheme, else the
// request line's (absolute form), else the one the capture shows: a
// Forwarded or X-Forwarded-Proto header, the port of the Host header, or
// the connection curl -v shows. The request line of a captured request
// rarely names the scheme the client signed; without evidence, https is
// the likelier.
func (f *verifyOptions) requestScheme(r *http.Request, cap capture) schemeChoice {
	if f.scheme != "" {
		return schemeChoice{scheme: f.scheme}
	}
	if r.URL.Scheme != "" {
		return schemeChoice{scheme: r.URL.Scheme}
	}
	if p := forwardedProto(r.Header.Get("Forwarded")); p != "" {
		return schemeChoice{scheme: p, why: "the Forwarded header says proto=" + p}
	}
	if p := strings.ToLower(strings.TrimSpace(strings.Split(r.Header.Get("X-Forwarded-Proto"), ",")[0])); p == "http" || p == "https" {
		return schemeChoice{scheme: p, why: "the X-Forwarded-Proto header says " + p}
	}
	switch {
	case strings.HasSuffix(r.Host, ":80"):
		return schemeChoice{scheme: "http", why: "the Host header names port 80"}
	case strings.HasSuffix(r.Host, ":443"):
		return schemeChoice{scheme: "https", why: "the Host header names port 443"}
	case cap.curlScheme != "":
		return schemeChoice{scheme: cap.curlScheme, why: cap.curlWhy}
	}
	return schemeChoice{scheme: "https", guessed: true}
}

// printScheme says which scheme was inferred, and from what.
func (c *cmd) printScheme(sc schemeChoice) {
	if sc.why != "" {
		fmt.Fprintf(c.stdout, "Scheme: %s, since %s (--scheme overrides it).\n", sc.scheme, sc.why)
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

// curlScheme returns the scheme that the "*" lines of curl -v show: the
// port it connected to (80 or 443), or a TLS handshake.
func curlScheme(lines []string) (scheme, why string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "* ") {
			continue
		}
		// curl 7 and 8: "* Connected to host (addr) port 80 (#0)",
		// "*   Trying 192.0.2.1:80..." and "* Host a.example:80 was resolved.".
		for _, port := range []string{"80", "443"} {
			_, after, connected := strings.Cut(l, ") port "+port)
			if connected && strings.HasPrefix(l, "* Connected to ") && (after == "" || after[0] == ' ') ||
				strings.Contains(l, "Trying ") && strings.HasSuffix(strings.TrimRight(l, " ."), ":"+port) ||
				strings.HasPrefix(l, "* Host ") && strings.HasSuffix(l, ":"+port+" was resolved.") {
				if port == "80" {
					return "http", "curl connected to port 80"
				}
				return "https", "curl connected to port 443"
			}
		}
		if strings.HasPrefix(l, "* SSL connection using") || strings.HasPrefix(l, "* TLSv1") {
			return "https", "curl -v shows a TLS connection"
		}
	}
	return "", ""
}
