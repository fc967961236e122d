package sunset_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
	"github.com/countersign/countersign/oauth1/sunset"
)

// Retiring OAuth 1.0a, both sides in one process (see the package doc's
// guide): the provider announces the retirement on every 1.0a response,
// counts who still signs with 1.0a and who exchanged, and exchanges a
// grant for OAuth 2.0 tokens once; the client hears the announcement on a
// successful call, exchanges its stored 1.0a credentials, and calls the
// API with the OAuth 2.0 token. After the exchange the 1.0a token no
// longer works.
func Example_retiringOAuth1() {
	now := time.Date(2026, time.December, 5, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	// The provider: its 1.0a grant for jane, its API, and its exchange.
	tokens := new(server.MemoryTokenStore)
	tokens.PutToken(context.Background(), server.TokenCredentials{
		Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00",
		ConsumerKey: "fitness-app", User: "jane", Scope: "activity",
	}, now)
	consumers := server.Consumers{"fitness-app": {Secret: "kd94hf93k423kf44"}}
	var usage sunset.Usage
	p := &server.Provider{
		Consumers: consumers, Temporary: new(server.MemoryTemporaryStore), Tokens: tokens,
		Settings: server.Settings{Now: clock},
		Observe: func(r *http.Request, res *server.Verification, err error) {
			if res != nil {
				usage.Record(res.ConsumerKey, now)
			}
		},
	}
	retire := sunset.Policy{
		Announce:    now.Add(-30 * 24 * time.Hour),
		Deprecation: time.Date(2026, time.December, 15, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Now:         clock,
	}
	if err := retire.Validate(); err != nil {
		panic(err)
	}
	issued := map[string]string{} // OAuth 2.0 access token → user
	mux := http.NewServeMux()
	mux.Handle("/1/steps", retire.Handler(p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "steps=8042 (OAuth 1.0a)")
	}))))
	mux.Handle("POST /oauth2/token", &tokenexchange.Handler{
		Consumers: consumers,
		Tokens:    tokens,
		Settings:  server.Settings{Now: clock},
		Clients:   tokenexchange.Clients{"fitness-app-v2": {ID: "fitness-app-v2", Secret: "v2-client-secret", ConsumerKey: "fitness-app"}},
		Issuer: tokenexchange.IssuerFunc(func(ctx context.Context, g tokenexchange.Grant) (*oauth2.Token, error) {
			issued["2YotnFZFEjr1zCsicMWpAA"] = g.User // the provider's OAuth 2.0 server mints here
			return &oauth2.Token{AccessToken: "2YotnFZFEjr1zCsicMWpAA", RefreshToken: "tGzv3JOkF0XG5Qx2TlKWIA", ExpiresIn: 3600}, nil
		}),
		RepeatWindow: time.Minute,
		Observe: func(r *http.Request, g tokenexchange.Grant, err error) {
			if err == nil && !g.Repeat {
				usage.RecordExchange(g.ConsumerKey, now)
			}
		},
	})
	mux.HandleFunc("/2/steps", func(w http.ResponseWriter, r *http.Request) {
		if user, ok := issued[r.Header.Get("Authorization")[len("Bearer "):]]; ok {
			fmt.Fprintf(w, "steps=8042 (OAuth 2.0, %s)", user)
			return
		}
		http.Error(w, "invalid_token", http.StatusUnauthorized)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The client: its stored 1.0a credentials, signed calls through a
	// Transport that reads every response's notice.
	cfg := &oauth1.Config{ConsumerKey: "fitness-app", ConsumerSecret: "kd94hf93k423kf44", Now: clock}
	stored := oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	client := &http.Client{Transport: &sunset.Transport{
		Base:   cfg.Client(&stored).Transport,
		Notify: func(resp *http.Response, n sunset.Notice) { fmt.Println("notice:", n) },
	}}
	get := func(c *http.Client, url string) {
		resp, err := c.Get(url)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, string(body))
	}
	get(client, srv.URL+"/1/steps")

	// Heard: exchange the stored grant, once, and call the API with OAuth 2.0.
	x := &exchange.TokenExchange{TokenURL: srv.URL + "/oauth2/token", ClientID: "fitness-app-v2", ClientSecret: "v2-client-secret"}
	tok, err := x.Exchange(context.Background(), stored)
	if err != nil {
		panic(err)
	}
	get(oauth2.NewClient(context.Background(), oauth2.StaticTokenSource(tok)), srv.URL+"/2/steps")

	// The provider's report; once the window is over, the 1.0a token is
	// revoked by whichever instance next serves the exchange endpoint, or
	// calls its RevokeDue from a ticker.
	for _, c := range usage.Clients() {
		fmt.Printf("usage: %s, %d 1.0a requests, %d exchanged\n", c.ConsumerKey, c.Requests, c.Exchanges)
	}
	now = now.Add(2 * time.Minute)
	_, err = x.Exchange(context.Background(), stored)
	fmt.Println("exchange again:", err)
	get(client, srv.URL+"/1/steps")

	// Output:
	// notice: the provider deprecates this API as of 2026-12-15 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://developer.example.com/oauth2-migration)
	// 200 steps=8042 (OAuth 1.0a)
	// 200 steps=8042 (OAuth 2.0, jane)
	// usage: fitness-app, 1 1.0a requests, 1 exchanged
	// exchange again: exchange: the provider answered 400 Bad Request: "invalid_request" ("the token is unknown or revoked, its secret wrong, or it was issued to another client")
	// notice: the provider deprecates this API as of 2026-12-15 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://developer.example.com/oauth2-migration)
	// 401 oauth_problem=token_revoked
}
