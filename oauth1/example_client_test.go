package oauth1_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

// addSource is a Base transport with a bug: it changes the query after the
// request was signed.
type addSource struct{ base http.RoundTripper }

func (t addSource) RoundTrip(r *http.Request) (*http.Response, error) {
	r.URL.RawQuery += "&source=app"
	return t.base.RoundTrip(r)
}

// Find out why a provider refuses the requests of a Client: a Trace hands
// over the base string the Transport signed, to log and to compare with the
// provider's. The fake provider of oauth1test sends its base string back
// with the refusal (server.Verifier.SendBaseString), where CheckResponse
// finds it and compares the two itself; a real provider's is in its
// documentation, its logs or your support ticket.
func ExampleWithTrace() {
	srv := oauth1test.NewServer("key", "secret")
	defer srv.Close()
	tok := srv.IssueToken()
	cfg := &oauth1.Config{
		ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret,
		HTTPClient: &http.Client{Transport: addSource{http.DefaultTransport}},
	}

	var signed string
	ctx := oauth1.WithTrace(context.Background(), &oauth1.Trace{
		Signed: func(info oauth1.SignInfo) {
			log.Printf("signed %s %s: %s", info.Method, info.URL, info.BaseString) // no secret in it
			signed = info.BaseString
		},
	})
	req, err := http.NewRequestWithContext(ctx, "GET", srv.ResourceURL+"?q=go", nil)
	if err != nil {
		log.Fatal(err)
	}
	resp, err := cfg.Client(&tok).Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var re *oauth1.ResponseError
	if err := oauth1.CheckResponse(resp); errors.As(err, &re) {
		fmt.Println(err)
		for _, d := range basestring.Diff(re.BaseString, signed) {
			fmt.Printf("%s %s\n  provider: %s\n  client:   %s\n", d.Kind, d.Name, d.Want, d.Got)
		}
	}
	// Output:
	// oauth1: provider answered 401 Unauthorized: oauth_problem=signature_invalid (the provider's base string differs from the one signed: missing parameter "source": parameter source is missing from got: the provider signed it and the client did not. If it is in the request body, did the client send Content-Type application/x-www-form-urlencoded (only form bodies are signed, §3.4.1.3.1)? If it is in the query, did the client sign the URL without its query?)
	// missing parameter source
	//   provider: source=app
	//   client:
}

// exampleStore is the provider's record of one client and its tokens.
type exampleStore struct {
	consumer oauth1.Credentials
	tokens   map[string]string // token → secret
}

func (s exampleStore) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	if key != s.consumer.Token {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: s.consumer.Secret}, nil
}

func (s exampleStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	if secret, ok := s.tokens[token]; ok {
		return server.TokenCredentials{Token: token, Secret: secret, ConsumerKey: key}, nil
	}
	return server.TokenCredentials{}, server.ErrNotFound
}

// exampleProvider verifies every request before handing it to answer.
func exampleProvider(store exampleStore, answer func(http.ResponseWriter, *http.Request, *server.Verification)) *httptest.Server {
	v := &server.Verifier{Store: store}
	return httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		answer(w, r, ver)
	})))
}

// Exchange a user's name and password for token credentials with xAuth,
// which X granted to some desktop and mobile applications: the request goes
// straight to the access token URL, with no temporary credentials and no
// verification code, and the x_auth_* parameters go in the POST body, where
// they are signed like any form parameter.
func ExampleConfig_XAuthToken() {
	consumer := oauth1.Credentials{Token: "key", Secret: "secret"}
	provider := exampleProvider(exampleStore{consumer: consumer}, func(w http.ResponseWriter, r *http.Request, v *server.Verification) {
		if v.Token != "" || r.PostFormValue("x_auth_mode") != "client_auth" ||
			r.PostFormValue("x_auth_username") != "jane" || r.PostFormValue("x_auth_password") != "correct horse" {
			http.Error(w, "oauth_problem=permission_denied", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "oauth_token=jane-token&oauth_token_secret=jane-secret&screen_name=jane")
	})
	defer provider.Close()

	cfg := &oauth1.Config{
		ConsumerKey: consumer.Token, ConsumerSecret: consumer.Secret,
		Endpoint: oauth1.Endpoint{AccessTokenURL: provider.URL + "/oauth/access_token"},
	}
	tok, err := cfg.XAuthToken(context.Background(), "jane", "correct horse")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*tok.Credentials, tok.Values.Get("screen_name"))
	// Output: {Token:jane-token Secret:REDACTED} jane
}

// Renew expired token credentials under the OAuth Session 1.0 extension
// (Yahoo's, among others): the token response carried an
// oauth_session_handle, and a request to the access token URL signed with
// the expired token and that handle, as a protocol parameter, returns fresh
// credentials.
func ExampleConfig_RenewToken() {
	consumer := oauth1.Credentials{Token: "key", Secret: "secret"}
	store := exampleStore{consumer: consumer, tokens: map[string]string{"token-1": "secret-1"}}
	provider := exampleProvider(store, func(w http.ResponseWriter, r *http.Request, v *server.Verification) {
		if v.Token != "token-1" || !slices.Contains(v.Params, oauth1.Param{Name: "oauth_session_handle", Value: "session-42"}) {
			http.Error(w, "oauth_problem=token_rejected", http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "oauth_token=token-2&oauth_token_secret=secret-2&oauth_session_handle=session-42&oauth_expires_in=3600")
	})
	defer provider.Close()

	cfg := &oauth1.Config{
		ConsumerKey: consumer.Token, ConsumerSecret: consumer.Secret,
		Endpoint: oauth1.Endpoint{AccessTokenURL: provider.URL + "/oauth/access_token"},
	}
	// Stored when token-1 was issued: its secret, and the values of that
	// response, such as oauth_session_handle.
	expired := &oauth1.Credentials{Token: "token-1", Secret: "secret-1"}
	handle := "session-42"

	tok, err := cfg.RenewToken(context.Background(), expired, handle)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*tok.Credentials, "expires in", tok.Values.Get("oauth_expires_in"), "seconds")
	// Output: {Token:token-2 Secret:REDACTED} expires in 3600 seconds
}

// Add a protocol parameter to every request a Config signs, such as the
// xoauth_requestor_id of two-legged requests made for a user. Now and Nonce
// fix the timestamp and nonce, as a test would.
func ExampleConfig_Sign_params() {
	cfg := &oauth1.Config{
		ConsumerKey: "key", ConsumerSecret: "secret",
		Params: []oauth1.Param{{Name: "xoauth_requestor_id", Value: "jane@example.com"}},
		Now:    func() time.Time { return time.Unix(1700000000, 0) },
		Nonce:  oauth1test.SequentialNonces("nonce"),
	}
	req, err := http.NewRequest("GET", "https://api.example.com/feeds/contacts", nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := cfg.Sign(req, nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.ReplaceAll(req.Header.Get("Authorization"), ", ", ",\n  "))
	// Output:
	// OAuth oauth_consumer_key="key",
	//   oauth_nonce="nonce-1",
	//   oauth_signature="2kqt8p16juvVzVhFkXCWvuOCikc%3D",
	//   oauth_signature_method="HMAC-SHA1",
	//   oauth_timestamp="1700000000",
	//   oauth_version="1.0",
	//   xoauth_requestor_id="jane%40example.com"
}
