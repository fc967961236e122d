package oauth1

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/redact"
	"github.com/countersign/countersign/percent"
)

// stripURLError returns err with the URL of each [*url.Error] in its chain
// rid of protocol parameters: net/http names the request it sent, and a
// token request delivered in the query carries its signature and nonce
// there, and with PLAINTEXT both secrets. fallback names the endpoint when
// the URL does not parse.
func stripURLError(err error, fallback string) error {
	// Client.Do returns a *url.Error; a Transport it calls may wrap
	// another.
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: stripProtocolQuery(ue.URL, fallback), Err: stripURLError(ue.Err, fallback)}
}

// stripProtocolQuery returns rawURL without the query parameters whose
// names start with "oauth_", without a password, and without a fragment.
func stripProtocolQuery(rawURL, fallback string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		if fallback == "" {
			return "(unparsable URL)"
		}
		return stripProtocolQuery(fallback, "")
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		var kept []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, _, _ := strings.Cut(kv, "=")
			if dk, err := percent.DecodeForm(k); err == nil {
				k = dk
			}
			if !strings.HasPrefix(strings.ToLower(k), "oauth_") {
				kept = append(kept, kv)
			}
		}
		u.RawQuery = strings.Join(kept, "&")
		u.ForceQuery = false
	}
	return u.Redacted()
}

// signatureOf returns the oauth_signature that r carries after signing,
// in the header, the query or the form body, or "".
func signatureOf(r *http.Request) string {
	if ps, err := ParseAuthHeader(r.Header.Get("Authorization")); err == nil {
		for _, p := range ps {
			if p.Name == "oauth_signature" {
				return p.Value
			}
		}
	}
	if v := paramValue(r.URL.RawQuery, "oauth_signature"); v != "" {
		return v
	}
	if r.GetBody != nil {
		if rc, err := r.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, maxResponseBytes))
			rc.Close()
			return paramValue(string(b), "oauth_signature")
		}
	}
	return ""
}

func paramValue(form, name string) string {
	for _, kv := range strings.Split(form, "&") {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			if dv, err := percent.DecodeForm(v); err == nil {
				return dv
			}
			return v
		}
	}
	return ""
}

// scrubEcho returns text with the value of every oauth_signature and
// oauth_token_secret parameter, and every spelling of each non-empty
// secret (as it is, percent-encoded once or twice, form- or path-escaped),
// replaced with REDACTED. text is a provider's error page, which may echo
// the request it refused in any format: form, header, JSON or HTML.
func scrubEcho(text []byte, secrets ...string) []byte {
	out := bytes.Clone(text)
	for _, name := range []string{"oauth_signature", "oauth_token_secret"} {
		out = scrubParam(out, name)
	}
	for _, s := range secrets {
		if s == "" {
			continue
		}
		once := percent.Encode(s)
		for _, form := range []string{percent.Encode(once), once, url.QueryEscape(s), url.PathEscape(s), s} {
			out = replaceFold(out, form, redact.Text)
		}
	}
	return out
}

// scrubParam replaces the value after each occurrence of name (matched
// without regard to case), past separators such as `="`, `": "` or `%3D`,
// up to the next delimiter.
func scrubParam(b []byte, name string) []byte {
	var out []byte
	for {
		i := indexFold(b, name)
		if i < 0 {
			return append(out, b...)
		}
		j := i + len(name)
		for j < len(b) {
			if c := b[j]; c == '"' || c == '\'' || c == ':' || c == '=' || c == '>' || c == ' ' || c == '\t' || c == '\\' {
				j++
			} else if hasPrefixFold(b[j:], "%3D") || hasPrefixFold(b[j:], "%22") || hasPrefixFold(b[j:], "%3A") {
				j += 3
			} else {
				break
			}
		}
		k := j
		for k < len(b) && strings.IndexByte("&,\"'; \t\r\n<}\\", b[k]) < 0 &&
			!hasPrefixFold(b[k:], "%26") && !hasPrefixFold(b[k:], "%2C") && !hasPrefixFold(b[k:], "%22") {
			k++
		}
		out = append(out, b[:j]...)
		if k > j {
			out = append(out, redact.Text...)
		}
		b = b[k:]
	}
}

// replaceFold replaces every occurrence of old in b, matched without regard
// to ASCII case, with new.
func replaceFold(b []byte, old, new string) []byte {
	var out []byte
	for {
		i := indexFold(b, old)
		if i < 0 {
			if out == nil {
				return b
			}
			return append(out, b...)
		}
		out = append(append(out, b[:i]...), new...)
		b = b[i+len(old):]
	}
}

func indexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if hasPrefixFold(b[i:], s) {
			return i
		}
	}
	return -1
}

func hasPrefixFold(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
