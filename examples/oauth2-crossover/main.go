// Command oauth2-crossover shows a provider retiring OAuth 1.0a carrying
// its clients' grants over to OAuth 2.0, on loopback, with no network:
//
//	cd examples/oauth2-crossover && go run .
//
// The provider keeps its 1.0a token credentials in a server.TokenStore and
// mints OAuth 2.0 tokens with github.com/go-oauth2/oauth2/v4, a maintained
// OAuth 2.0 server library. Its token endpoint sends token exchanges
// (RFC 8693) to a tokenexchange.Handler, whose Issuer is go-oauth2's
// manager, and every other grant to go-oauth2's own handler; its new API
// checks bearer tokens with go-oauth2's ValidationBearerToken.
//
// Two clients cross over: one with golang.org/x/oauth2, in X's shape
// (the 1.0a token and secret in the body, HTTP Basic client
// authentication), and one with a request signed by its 1.0a credentials
// (oauth1.Config). Each then calls the OAuth 2.0 API with its new token,
// and, with the refresh token the exchange answers, keeps access once it
// expires (refresh.go).
// It is a module of its own, so that go-oauth2 is no dependency of
// countersign.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	o2errors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	o2server "github.com/go-oauth2/oauth2/v4/server"
	"github.com/go-oauth2/oauth2/v4/store"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// The provider's clients: each has 1.0a client credentials and, for the
// crossover, an OAuth 2.0 registration mapped to them.
var registry = []struct {
	consumerKey, consumerSecret string
	clientID, clientSecret      string
}{
	{"dpf43f3p2l4k3l03", "kd94hf93k423kf44", "photos-app", "photos-app-secret"},
	{"printer-key", "printer-secret", "printer-app", "printer-app-secret"},
}

// Provider is the example provider: its handler, and its stores, for a
// test to look into.
type Provider struct {
	Handler  http.Handler
	Tokens   *server.MemoryTokenStore
	Exchange *tokenexchange.Handler
}

// NewProvider returns the provider, holding the 1.0a token credentials
// given, with a repeat window of window.
func NewProvider(tokens []server.TokenCredentials, window time.Duration) (*Provider, error) {
	ctx := context.Background()
	consumers := server.Consumers{}
	clients := clientStore{}
	o2clients := store.NewClientStore()
	for _, c := range registry {
		consumers[c.consumerKey] = server.Registration{Secret: c.consumerSecret}
		clients[c.clientID] = tokenexchange.Client{ID: c.clientID, Secret: c.clientSecret, ConsumerKey: c.consumerKey}
		if err := o2clients.Set(c.clientID, &models.Client{ID: c.clientID, Secret: c.clientSecret}); err != nil {
			return nil, err
		}
	}
	ts := new(server.MemoryTokenStore)
	for _, t := range tokens {
		if err := ts.PutToken(ctx, t, time.Now()); err != nil {
			return nil, err
		}
	}

	// go-oauth2: the provider's OAuth 2.0 authorization server.
	manager := manage.NewDefaultManager()
	manager.MustTokenStorage(store.NewMemoryTokenStore())
	manager.MapClientStorage(o2clients)
	configureManager(manager)
	o2 := o2server.NewDefaultServer(manager)
	o2.SetAllowGetAccessRequest(false)
	configureServer(o2)

	// The Issuer: go-oauth2 mints the token of each grant, with a refresh
	// token, so that the client keeps access past the access token's
	// hour with no new consent. The client authenticated already, with
	// the Handler; go-oauth2 checks its secret again, so it is given it
	// from the provider's records.
	issuer := tokenexchange.IssuerFunc(func(ctx context.Context, g tokenexchange.Grant) (*oauth2.Token, error) {
		clientID := g.ClientID
		if clientID == "" { // a signed exchange that named no OAuth 2.0 client
			clientID = clients.forConsumer(g.ConsumerKey)
		}
		ti, err := manager.GenerateAccessToken(ctx, exchangeGrant, manageRequest{
			ClientID: clientID, ClientSecret: clients[clientID].Secret, UserID: g.User, Scope: g.Scope,
		}.request())
		if err != nil {
			return nil, err
		}
		return &oauth2.Token{
			AccessToken:  ti.GetAccess(),
			RefreshToken: ti.GetRefresh(),
			ExpiresIn:    int64(ti.GetAccessExpiresIn() / time.Second),
		}, nil
	})

	ex := &tokenexchange.Handler{
		Consumers: consumers,
		Tokens:    ts,
		Clients:   clients,
		Issuer:    issuer,

		RepeatWindow: window,
		Observe: func(r *http.Request, g tokenexchange.Grant, err error) {
			// Where a provider counts exchanges for its sunset report
			// (with the RecordExchange method of a sunset.Usage), and logs
			// refusals.
			if err != nil && r != nil {
				log.Printf("exchange refused: %v", err)
			}
		},
	}

	mux := http.NewServeMux()
	// One token endpoint: token exchanges to the Handler, refreshes to
	// go-oauth2 once the client and its refresh token are checked.
	mux.HandleFunc("POST /oauth2/token", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		q, _ := url.ParseQuery(string(body))
		if q.Get("grant_type") == tokenexchange.GrantType || strings.HasPrefix(r.Header.Get("Authorization"), "OAuth ") {
			ex.ServeHTTP(w, r)
			return
		}
		if q.Get("grant_type") == "refresh_token" && !checkRefresh(r.Context(), w, r, manager, clients, q) {
			return
		}
		if err := o2.HandleTokenRequest(w, r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
	// The OAuth 2.0 API: go-oauth2 validates the bearer token.
	mux.HandleFunc("GET /2/me", func(w http.ResponseWriter, r *http.Request) {
		ti, err := o2.ValidationBearerToken(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, o2errors.ErrInvalidAccessToken.Error(), http.StatusUnauthorized)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"user": ti.GetUserID(), "client": ti.GetClientID(), "scope": ti.GetScope()})
	})
	// The 1.0a API, until the cut-off.
	v := &server.Verifier{Store: credentialStore{consumers, ts}, Settings: server.Settings{RequireToken: true}}
	mux.Handle("GET /1.1/me", v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		json.NewEncoder(w).Encode(map[string]string{"user": ver.User})
	})))
	return &Provider{Handler: mux, Tokens: ts, Exchange: ex}, nil
}

func main() {
	log.SetFlags(0)
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer) error {
	ctx := context.Background()
	p, err := NewProvider([]server.TokenCredentials{
		{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00", ConsumerKey: "dpf43f3p2l4k3l03", User: "jane", Scope: "photos:read photos:write"},
		{Token: "printer-token", Secret: "printer-token-secret", ConsumerKey: "printer-key", User: "john", Scope: "photos:read"},
	}, time.Minute)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := newServer(p.Handler)
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	// X's shape, with golang.org/x/oauth2.
	tok, err := ExchangeWithSecret(ctx, base, "photos-app", "photos-app-secret",
		oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}, "photos:read")
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "x/oauth2 exchange: token_type=%s scope=%v issued_token_type=%v expires=%t refresh=%t\n",
		tok.Type(), tok.Extra("scope"), tok.Extra("issued_token_type"), !tok.Expiry.IsZero(), tok.RefreshToken != "")
	me, err := CallAPI(ctx, base, oauth2.StaticTokenSource(tok))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "GET /2/me with it: %s\n", me)

	// The signed shape.
	cfg := oauth1.Config{ConsumerKey: "printer-key", ConsumerSecret: "printer-secret"}
	tok, err = ExchangeSigned(ctx, base, &cfg, oauth1.Credentials{Token: "printer-token", Secret: "printer-token-secret"}, "")
	if err != nil {
		return err
	}
	me, err = CallAPI(ctx, base, oauth2.StaticTokenSource(tok))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "signed exchange, then GET /2/me: %s\n", me)
	return nil
}
