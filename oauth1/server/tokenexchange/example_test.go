package tokenexchange_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// newHandler is a provider with one 1.0a grant: jane's, to client
// "dpf43f3p2l4k3l03", for "photos:read photos:write".
func newHandler() *tokenexchange.Handler {
	tokens := new(server.MemoryTokenStore)
	tokens.PutToken(context.Background(), server.TokenCredentials{
		Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00",
		ConsumerKey: "dpf43f3p2l4k3l03", User: "jane", Scope: "photos:read photos:write",
	}, time.Now())
	return &tokenexchange.Handler{
		Consumers: server.Consumers{"dpf43f3p2l4k3l03": {Secret: "kd94hf93k423kf44"}},
		Tokens:    tokens,
		// The provider's OAuth 2.0 clients, each mapped to its 1.0a consumer.
		Clients: tokenexchange.Clients{"photos-app": {ID: "photos-app", Secret: "photos-app-secret", ConsumerKey: "dpf43f3p2l4k3l03"}},
		// The provider's own OAuth 2.0 authorization server mints here.
		Issuer: tokenexchange.IssuerFunc(func(ctx context.Context, g tokenexchange.Grant) (*oauth2.Token, error) {
			return &oauth2.Token{AccessToken: "2YotnFZFEjr1zCsicMWpAA", RefreshToken: "tGzv3JOkF0XG5Qx2TlKWIA", ExpiresIn: 3600}, nil
		}),
		Observe: func(r *http.Request, g tokenexchange.Grant, err error) {
			if err == nil && !g.Repeat {
				fmt.Printf("exchanged: %s for %s, scope %q\n", g.ConsumerKey, g.User, g.Scope)
				// usage.RecordExchange(g.ConsumerKey, time.Now())
			}
		},
	}
}

// X's shape: the 1.0a token and secret in the body, the OAuth 2.0 client
// authenticated with HTTP Basic.
func Example() {
	srv := httptest.NewServer(newHandler())
	defer srv.Close()

	form := url.Values{
		"grant_type":         {tokenexchange.GrantType},
		"subject_token":      {"nnch734d00sl2jdk"},
		"subject_token_type": {tokenexchange.OAuth1TokenType},
		"oauth_token_secret": {"pfkkdhi9sl3r4s00"},
		"scope":              {"photos:read"},
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("photos-app", "photos-app-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Cache-Control"))
	fmt.Println(string(body))

	// Output:
	// exchanged: dpf43f3p2l4k3l03 for jane, scope "photos:read"
	// 200 OK no-store
	// {"access_token":"2YotnFZFEjr1zCsicMWpAA","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3600,"scope":"photos:read","refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA"}
}

// A signed exchange: the request carries the 1.0a signature of the
// consumer and the token, which is the proof of the grant.
func Example_signed() {
	srv := httptest.NewServer(newHandler())
	defer srv.Close()

	cfg := oauth1.Config{ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44"}
	tok := oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	resp, err := cfg.Client(&tok).PostForm(srv.URL, url.Values{"grant_type": {tokenexchange.GrantType}})
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Println(string(body))

	// A token the provider does not know: refused.
	resp, err = cfg.Client(&oauth1.Credentials{Token: "unknown", Secret: "x"}).PostForm(srv.URL, url.Values{})
	if err != nil {
		panic(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Println(string(body))
	// Output:
	// exchanged: dpf43f3p2l4k3l03 for jane, scope "photos:read photos:write"
	// 200 OK
	// {"access_token":"2YotnFZFEjr1zCsicMWpAA","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3600,"scope":"photos:read photos:write","refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA"}
	// 400 Bad Request
	// {"error":"invalid_request","error_description":"OAuth 1.0a: token_rejected"}
}
