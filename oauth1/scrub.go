package oauth1

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
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
// secret (as it is, percent-encoded once, twice, or three times, as a
// value in a base string sent back in a form body is, form- or
// path-escaped),
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
		twice := percent.Encode(once)
		for _, form := range []string{percent.Encode(twice), twice, once, url.QueryEscape(s), url.PathEscape(s), s} {
			out = replaceFold(out, form, redact.Text)
		}
	}
	return out
}

// scrubParam replaces with REDACTED the value after each occurrence of
// name, matched without regard to case, as an echo of the request writes it:
// past separators such as `="`, `": "`, `%3D` or HTML tags, and to the end of
// the value, whatever it holds. A PLAINTEXT signature is the two secrets
// joined by "&": "%26" when percent-encoded, "&" when decoded, "%2526" when
// encoded twice. So a value ends at the closing quote when it is quoted, at
// the next tag in HTML, and otherwise at a delimiter; an "&" (or, in a value
// that is itself encoded inside another, a "%26") ends it only when a
// name=value pair follows.
func scrubParam(b []byte, name string) []byte {
	var out []byte
	for {
		i := ascii.IndexFold(b, name)
		if i < 0 {
			return append(out, b...)
		}
		j, format, quote := valueStart(b, i+len(name))
		// No separator: name is the start of a longer word
		// (oauth_signature_method). A "/" before it: a closing tag.
		if j == i+len(name) || i > 0 && b[i-1] == '/' {
			out = append(out, b[:j]...)
			b = b[j:]
			continue
		}
		k := valueEnd(b, j, format, quote)
		out = append(out, b[:j]...)
		if k > j {
			out = append(out, redact.Text...)
		}
		b = b[k:]
	}
}

// How a value is written, as the separators before it tell.
const (
	bareValue    = iota // a=b, a: b
	quotedValue         // a="b", "a": "b"
	htmlValue           // <td>a</td><td>b</td>
	encodedValue        // x=a%3Db%26c%3Dd: a query encoded inside another
)

// valueStart skips the separators at b[j:] and returns where the value
// starts, its format and, for a quoted one, its quote.
func valueStart(b []byte, j int) (int, int, byte) {
	format, quote := bareValue, byte(0)
	for j < len(b) {
		switch c := b[j]; {
		case c == '"' || c == '\'':
			format, quote = quotedValue, c
			j++
		case c == '<': // a tag between a table's name and value cells
			k := bytes.IndexByte(b[j:], '>')
			if k < 0 {
				return j, format, quote
			}
			format = htmlValue
			j += k + 1
		case c == '>':
			format = htmlValue
			j++
		case c == ':' || c == '=' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\':
			if format == quotedValue {
				format = bareValue // "a": b
			}
			j++
		case ascii.HasPrefixFold(b[j:], "%3D") || ascii.HasPrefixFold(b[j:], "%22") || ascii.HasPrefixFold(b[j:], "%3A"):
			format = encodedValue
			j += 3
		default:
			return j, format, quote
		}
	}
	return j, format, quote
}

// valueEnd returns where the value that starts at b[j] ends.
func valueEnd(b []byte, j, format int, quote byte) int {
	k := j
	for ; k < len(b); k++ {
		c := b[k]
		switch format {
		case quotedValue:
			if c == quote || c == '\\' || c == '\r' || c == '\n' {
				return k
			}
			continue
		case htmlValue:
			if c == '<' || c == '\r' || c == '\n' {
				return k
			}
			continue
		}
		if format == encodedValue {
			if ascii.HasPrefixFold(b[k:], "%26") {
				if pairFollows(b[k+3:]) {
					return k
				}
				k += 2
				continue
			}
			if ascii.HasPrefixFold(b[k:], "%2C") || ascii.HasPrefixFold(b[k:], "%22") {
				return k
			}
		}
		if c == '&' {
			if pairFollows(b[k+1:]) {
				return k
			}
			continue
		}
		if strings.IndexByte(",\"'; \t\r\n<}\\", c) >= 0 {
			return k
		}
	}
	return k
}

// pairFollows reports whether b starts with a name=value pair (its "=" may
// be encoded), rather than the rest of a value that holds an "&".
func pairFollows(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '=' || ascii.HasPrefixFold(b[i:], "%3D"):
			return i > 0
		case c == '&' || strings.IndexByte(",\"'; \t\r\n<}\\", c) >= 0 || ascii.HasPrefixFold(b[i:], "%26"):
			return false
		}
	}
	return false
}

// replaceFold replaces every occurrence of old in b, matched without regard
// to ASCII case, with new.
func replaceFold(b []byte, old, new string) []byte {
	var out []byte
	for {
		i := ascii.IndexFold(b, old)
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
