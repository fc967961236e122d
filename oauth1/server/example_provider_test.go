package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// A provider issues credentials with the Provider's two handlers and a
// consent page of its own, and protects its API with the Provider's
// Middleware. The client side runs the flow with Config, as against any
// provider.
func ExampleProvider() {
	p := &server.Provider{
		Consumers: server.Consumers{"dpf43f3p2l4k3l03": {Secret: "kd94hf93k423kf44"}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		TokenValues: func(_ context.Context, t server.TokenCredentials) (url.Values, error) {
			return url.Values{"user_id": {t.User}}, nil
		},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.HandleFunc("GET /oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		// A real consent page signs the user in, shows which client asks
		// (p.Pending has its ConsumerKey) and approves on a POST protected
		// against cross-site request forgery. This one approves at once
		// for alice.
		redirect, pin, err := p.Authorize(r.Context(), server.Approval{Token: r.FormValue("oauth_token"), User: "alice"})
		switch {
		case err != nil:
			http.Error(w, "This request is unknown, expired or already used.", http.StatusBadRequest)
		case redirect == "": // oob
			fmt.Fprintf(w, "Enter this PIN in the application: %s", pin)
		default:
			http.Redirect(w, r, redirect, http.StatusFound)
		}
	})
	mux.Handle("/photos", p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := server.FromContext(r.Context())
		if v.User == "" { // a two-legged request: no user
			http.Error(w, "sign in first", http.StatusForbidden)
			return
		}
		fmt.Fprintf(w, "the photos of %s", v.User)
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The client.
	ctx := context.Background()
	cfg := &oauth1.Config{
		ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44",
		Callback: "oob",
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: srv.URL + "/oauth/request_token",
			AuthorizeURL:    srv.URL + "/oauth/authorize",
			AccessTokenURL:  srv.URL + "/oauth/access_token",
		},
	}
	temp, err := cfg.RequestToken(ctx)
	if err != nil {
		panic(err)
	}
	// The user opens the authorization URL and types the PIN it shows
	// into the client.
	resp, err := http.Get(cfg.AuthorizationURL(temp.Credentials))
	if err != nil {
		panic(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, pin, _ := strings.Cut(string(page), "PIN in the application: ")

	tok, err := cfg.AccessToken(ctx, temp.Credentials, pin)
	if err != nil {
		panic(err)
	}
	fmt.Println("user_id:", tok.Values.Get("user_id"))
	resp, err = cfg.Client(tok.Credentials).Get(srv.URL + "/photos")
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(string(body))

	// The temporary credentials were good for one exchange.
	_, err = cfg.AccessToken(ctx, temp.Credentials, pin)
	fmt.Println(strings.Replace(err.Error(), srv.URL, "https://photos.example", 1))
	// Output:
	// user_id: alice
	// the photos of alice
	// oauth1: token request to https://photos.example/oauth/access_token: provider answered 401 Unauthorized: oauth_problem=token_used
}

// The consent page finds which client asks with Pending, shows it to the
// signed-in user, and on approval calls Authorize, which adds oauth_token
// and the verifier to the callback, keeping its query (RFC 5849 §2.2); the
// consent page redirects there.
func ExampleProvider_Authorize() {
	ctx := context.Background()
	p := &server.Provider{Temporary: new(server.MemoryTemporaryStore)}
	// What the temporary credential request stored (RFC 5849 §1.2).
	err := p.Temporary.PutTemporary(ctx, server.TemporaryCredentials{
		Token: "hh5s93j4hdidpola", Secret: "hdhd0244k9j7ao03", ConsumerKey: "dpf43f3p2l4k3l03",
		Callback: "http://printer.example.com/ready?job=42", Expires: time.Now().Add(time.Minute),
	}, time.Now())
	if err != nil {
		panic(err)
	}
	// GET of the consent page: its form names the client (never the
	// secret, which Pending leaves empty).
	pending, err := p.Pending(ctx, "hh5s93j4hdidpola")
	if err != nil {
		panic(err) // a real page answers "unknown, expired or already used"
	}
	fmt.Printf("Allow %s to print your photos? (secret %q)\n", pending.ConsumerKey, pending.Secret)

	// POST of the form, with jane signed in.
	redirect, verifier, err := p.Authorize(ctx, server.Approval{Token: "hh5s93j4hdidpola", User: "jane"})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Replace(redirect, verifier, "VERIFIER", 1))
	_, _, err = p.Authorize(ctx, server.Approval{Token: "hh5s93j4hdidpola", User: "jane"})
	fmt.Println(err)
	_, err = p.Pending(ctx, "hh5s93j4hdidpola")
	fmt.Println(err)
	// Output:
	// Allow dpf43f3p2l4k3l03 to print your photos? (secret "")
	// http://printer.example.com/ready?job=42&oauth_token=hh5s93j4hdidpola&oauth_verifier=VERIFIER
	// oauth1: token already used: temporary token "hh5s93j4hdidpola" is already authorized
	// oauth1: token already used: temporary token "hh5s93j4hdidpola" is already authorized
}

// Deny uses the temporary credentials up and tells the client, through
// its callback, that the user refused.
func ExampleProvider_Deny() {
	ctx := context.Background()
	p := &server.Provider{Temporary: new(server.MemoryTemporaryStore)}
	err := p.Temporary.PutTemporary(ctx, server.TemporaryCredentials{
		Token: "hh5s93j4hdidpola", ConsumerKey: "dpf43f3p2l4k3l03",
		Callback: "http://printer.example.com/ready", Expires: time.Now().Add(time.Minute),
	}, time.Now())
	if err != nil {
		panic(err)
	}
	redirect, err := p.Deny(ctx, "hh5s93j4hdidpola")
	if err != nil {
		panic(err)
	}
	fmt.Println(redirect)

	// The client's callback handler.
	r := httptest.NewRequest("GET", redirect, nil)
	_, _, err = oauth1.ParseCallback(r, nil)
	fmt.Println(err)
	// Output:
	// http://printer.example.com/ready?oauth_token=hh5s93j4hdidpola&oauth_problem=permission_denied
	// oauth1: the resource owner denied access (oauth_problem=permission_denied)
}

// A two-legged provider, such as an LTI 1.1 tool, knows only consumers:
// Consumers is its whole CredentialStore.
func ExampleConsumers() {
	v := &server.Verifier{Store: server.Consumers{
		"lms.example.edu": {Secret: "tool-secret"},
	}}
	launch := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		r.ParseForm()
		fmt.Fprintf(w, "launch from %s for %s", ver.ConsumerKey, r.PostForm.Get("user_id"))
	}))
	srv := httptest.NewServer(launch)
	defer srv.Close()

	cfg := &oauth1.Config{ConsumerKey: "lms.example.edu", ConsumerSecret: "tool-secret"}
	resp, err := cfg.Client(nil).PostForm(srv.URL+"/launch", url.Values{"user_id": {"292832126"}})
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(body))
	// Output: 200 OK launch from lms.example.edu for 292832126
}

// A grant's scope: Scope reads what the client asks for from its
// temporary credential request (here a scope parameter of the query, which
// is signed), the consent page shows it and may approve less, and the
// Verification of every request signed with the token credentials carries
// what the owner approved.
func ExampleProvider_scope() {
	ctx := context.Background()
	p := &server.Provider{
		Consumers: server.Consumers{"key": {Secret: "secret"}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Scope: func(r *http.Request, v *server.Verification) (string, error) {
			scope := r.FormValue("scope")
			for _, s := range strings.Fields(scope) {
				if s != "photos:read" && s != "photos:write" {
					return "", fmt.Errorf("unknown scope %q", s)
				}
			}
			return scope, nil
		},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.Handle("/photos", p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := server.FromContext(r.Context())
		fmt.Fprintf(w, "%s may %s", v.User, v.Scope)
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	cfg := &oauth1.Config{
		ConsumerKey: "key", ConsumerSecret: "secret", Callback: "oob",
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: srv.URL + "/oauth/request_token?scope=photos:read+photos:write",
			AccessTokenURL:  srv.URL + "/oauth/access_token",
		},
	}
	temp, err := cfg.RequestToken(ctx)
	if err != nil {
		panic(err)
	}
	// The consent page: jane allows reading only.
	pending, err := p.Pending(ctx, temp.Credentials.Token)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s asks for %q\n", pending.ConsumerKey, pending.Scope)
	_, pin, err := p.Authorize(ctx, server.Approval{Token: temp.Credentials.Token, User: "jane", Scope: "photos:read"})
	if err != nil {
		panic(err)
	}
	tok, err := cfg.AccessToken(ctx, temp.Credentials, pin)
	if err != nil {
		panic(err)
	}
	resp, err := cfg.Client(tok.Credentials).Get(srv.URL + "/photos")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output:
	// key asks for "photos:read photos:write"
	// jane may photos:read
}
