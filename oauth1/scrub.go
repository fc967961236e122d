package oauth1

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/echo"
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

// scrubEcho returns text with every oauth_signature and oauth_token_secret
// value, and every occurrence of each non-empty secret, replaced with
// REDACTED; see [echo.Scrub].
func scrubEcho(text []byte, secrets ...string) []byte { return echo.Scrub(text, secrets...) }
