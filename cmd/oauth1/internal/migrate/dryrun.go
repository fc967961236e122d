package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/countersign/countersign/oauth1/exchange"
)

// DryRun writes to w the request ex would send for l, with secrets, l's
// secret and the body field secretField redacted, and sends nothing.
func DryRun(w io.Writer, ex Exchanger, l Line, secrets []string, secretField string) error {
	var got *http.Request
	var body []byte
	capture := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		return nil, errDryRun
	})}
	switch e := ex.(type) {
	case *exchange.TokenExchange:
		e.HTTPClient = capture
	case *exchange.Signed:
		e.Config.HTTPClient = capture
	}
	cred := l.Cred
	if _, err := ex.Exchange(context.Background(), cred); got == nil {
		return fmt.Errorf("--dry-run: line %d: %v", l.N, err)
	}
	secrets = append(secrets, cred.Secret)
	fmt.Fprintf(w, "%s %s\n", got.Method, redactText(got.URL.String(), secrets))
	for _, k := range []string{"Authorization", "Content-Type", "Accept"} {
		if v := got.Header.Get(k); v != "" {
			fmt.Fprintf(w, "%s: %s\n", k, redactText(redactAuthorization(v), secrets))
		}
	}
	fmt.Fprintf(w, "\n%s\n", redactText(redactBody(string(body), got.Header.Get("Content-Type"), secretField), secrets))
	return nil
}

var errDryRun = errors.New("dry run")

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var oauthSignature = regexp.MustCompile(`oauth_signature="[^"]*"`)

// redactAuthorization hides Basic credentials and an OAuth signature.
func redactAuthorization(v string) string {
	if scheme, _, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Basic") {
		return scheme + " REDACTED"
	}
	return oauthSignature.ReplaceAllString(v, `oauth_signature="REDACTED"`)
}

// redactBody hides the secret fields of a form or JSON body.
func redactBody(body, contentType, secretField string) string {
	names := map[string]bool{"oauth_token_secret": true, "client_secret": true, secretField: true}
	if strings.HasPrefix(contentType, "application/json") {
		var m map[string]any
		if json.Unmarshal([]byte(body), &m) == nil {
			for k := range m {
				if names[k] {
					m[k] = "REDACTED"
				}
			}
			b, _ := json.Marshal(m)
			return string(b)
		}
		return body
	}
	var parts []string
	for _, kv := range strings.Split(body, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil && names[dk] {
			kv = k + "=REDACTED"
		}
		parts = append(parts, kv)
	}
	return strings.Join(parts, "&")
}

// redactText hides any secret left, as it is or encoded.
func redactText(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "REDACTED")
			s = strings.ReplaceAll(s, url.QueryEscape(sec), "REDACTED")
			s = strings.ReplaceAll(s, url.PathEscape(sec), "REDACTED")
		}
	}
	return s
}
