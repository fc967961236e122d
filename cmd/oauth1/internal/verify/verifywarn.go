package verify

import (
	"io"
	"net/url"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/countersign/countersign/oauth1"
)

// tokenWithoutSecret returns the warning sign gives, in verify's words,
// when the request carries an oauth_token and no token secret was given:
// the signature is then checked with an empty token secret, which a token
// issued with a secret never matches. An RSA method uses no token secret.
func tokenWithoutSecret(raw []byte, data string, f *Options) string {
	if f.TokenSecret != "" {
		return ""
	}
	r, _, err := ParseRequest(raw, data)
	if err != nil {
		return ""
	}
	params := map[string]string{}
	if ps, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization")); err == nil {
		for _, p := range ps {
			params[p.Name] = p.Value
		}
	}
	sources := []string{r.URL.RawQuery}
	if form, _ := sign.IsFormType(r.Header.Get("Content-Type")); form {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		sources = append(sources, string(b))
	}
	for _, s := range sources {
		if q, err := url.ParseQuery(s); err == nil {
			for _, name := range []string{"oauth_token", "oauth_signature_method"} {
				if v := q.Get(name); v != "" && params[name] == "" {
					params[name] = v
				}
			}
		}
	}
	if params["oauth_token"] == "" || strings.HasPrefix(strings.ToUpper(params["oauth_signature_method"]), "RSA-") {
		return ""
	}
	return "the request carries an oauth_token but no token secret was given (--token-secret or $OAUTH1_TOKEN_SECRET); " +
		"it is verified with an empty token secret, which a token issued with a secret never matches"
}
