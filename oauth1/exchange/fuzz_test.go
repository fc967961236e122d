package exchange_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

// FuzzRefusalScrubbed: whatever a provider answers around an echo of the
// secrets, no error of Exchange shows one, under any verb.
func FuzzRefusalScrubbed(f *testing.F) {
	f.Add(400, "application/json", `{"error":"invalid_request","error_description":"`, `"}`, "aB3-xYz_9Q")
	f.Add(429, "text/html", `<p>oauth_token_secret=`, `</p>`, "s3cr3t-Value")
	f.Add(200, "application/json", `{"access_token":"","error":"`, `"}`, "Kp9_kp9_KP9")
	f.Add(200, "text/plain", `secret: `, ``, "zz-top-SECRET")
	f.Fuzz(func(t *testing.T, status int, ct, before, after, secret string) {
		if status < 200 || status > 599 || len(secret) < 6 || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" ||
			strings.Trim(secret, "0123456789-_") == "" || // digits alone are in the numbers %#v prints
			strings.Contains(strings.ToUpper(secret), "REDACTED") ||
			// %q writes a NUL and the "0A" after it as \x000A, and
			// quotes that again in %#v: the body's other bytes are
			// printable, so that no escape spells the secret.
			strings.IndexFunc(before+after, func(r rune) bool { return !strconv.IsPrint(r) }) >= 0 ||
			len(before)+len(after) > 4096 || (status >= 300 && status < 400) {
			t.Skip()
		}
		hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			h := http.Header{"Content-Type": {ct}, "Retry-After": {"3"}}
			return &http.Response{StatusCode: status, Header: h, Body: readCloser(before + secret + after), Request: r}, nil
		})}
		e := exchange.X(xID, xSecret)
		e.HTTPClient = hc
		_, err := e.Exchange(context.Background(), oauth1.Credentials{Token: "t", Secret: secret})
		if err == nil {
			return // a token: nothing echoed in an error
		}
		for _, out := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err)} {
			// "00000" before REDACTED reads "00000R": the marker that
			// spells the secret is not an echo of it.
			out = strings.ReplaceAll(out, "REDACTED", " ")
			if strings.Contains(strings.ToLower(out), strings.ToLower(secret)) {
				t.Fatalf("the secret %q is in %q", secret, out)
			}
		}
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type stringBody struct{ *strings.Reader }

func (stringBody) Close() error { return nil }

func readCloser(s string) stringBody { return stringBody{strings.NewReader(s)} }
