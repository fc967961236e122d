package exchange_test

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

// X's exchange, and a client of X's API that stays fresh through the
// refresh token. The test server stands in for api.x.com.
func ExampleX() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"token_type":"bearer","expires_in":7200,"access_token":"VGhpcyBpcyBhbiBleGFtcGxl","scope":"tweet.read users.read offline.access","refresh_token":"bWRWa3gzdnk3WHRGU1o0bmRR"}`)
	}))
	defer srv.Close()

	x := exchange.X("rG9n6402A3dbUJKzXTNX4oWHJ", "the OAuth 2.0 client secret")
	x.TokenURL = srv.URL // leave it out to reach X: exchange.XTokenURL()
	stored := oauth1.Credentials{Token: "6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY", Secret: "2EEfA6BG5ly3sR3XjE0IBSnlQu4ZrUzPiYTmrkVU"}

	tok, err := x.Exchange(context.Background(), stored)
	if err != nil {
		log.Fatal(err) // an *exchange.Error names the provider's error, never a secret
	}
	// Store tok now: it is the only valid pair for this user from now on.
	fmt.Println(tok.AccessToken, tok.RefreshToken != "", tok.Extra("scope"))

	// The client refreshes tok when it expires; a refresh token is
	// single-use, so store each token whose RefreshToken changed.
	client := oauth2.NewClient(context.Background(), x.TokenSource(context.Background(), tok))
	_ = client // client.Get("https://api.x.com/2/users/me")
	// Output: VGhpcyBpcyBhbiBleGFtcGxl true tweet.read users.read offline.access
}

// Intuit's migration (QuickBooks Online): the request is signed with the
// app's OAuth 1.0a consumer and the user's token (HMAC-SHA1, in the
// Authorization header), with a JSON body of scope, redirect_uri, client_id
// and client_secret. The answer's realmId is in the token's Extra.
func ExampleSigned_intuit() {
	intuit := &exchange.Signed{
		Config:       &oauth1.Config{ConsumerKey: "qyprd...", ConsumerSecret: "..."},
		URL:          "https://developer.api.intuit.com/v2/oauth2/tokens/migrate", // sandbox: https://developer-sandbox.api.intuit.com/v2/oauth2/tokens/migrate
		ClientID:     "AB...",
		ClientSecret: "...",
		Scopes:       []string{"com.intuit.quickbooks.accounting"},
		Extra:        map[string]string{"redirect_uri": "https://developer.intuit.com/v2/OAuth2Playground/RedirectUrl"},
		RefreshURL:   "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
	}
	tok, err := intuit.Exchange(context.Background(), oauth1.Credentials{Token: "qyprd...", Secret: "..."})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("realm", tok.Extra("realmId"))
}

// Xero's migration of a partner app: signed with the app's RSA-SHA1 key,
// the tenant type in the signed query, a JSON body of scope (with
// offline_access), client_id and client_secret. The answer's
// xero_tenant_id is in the token's Extra.
func ExampleSigned_xero() {
	var partnerKey *rsa.PrivateKey // the partner app's signing key (see oauth1/rsakey)
	xero := &exchange.Signed{
		Config:       &oauth1.Config{ConsumerKey: "...", Signer: oauth1.RSA{Key: partnerKey}},
		URL:          "https://api.xero.com/oauth/migrate?tenantType=ORGANISATION", // or PRACTICE
		ClientID:     "...",
		ClientSecret: "...",
		Scopes:       []string{"offline_access", "accounting.transactions", "accounting.contacts"},
		RefreshURL:   "https://identity.xero.com/connect/token",
	}
	tok, err := xero.Exchange(context.Background(), oauth1.Credentials{Token: "..."})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("tenant", tok.Extra("xero_tenant_id"))
}

// A provider that limits the rate answers 429 with Retry-After: wait, then
// try again. Exchange itself never retries.
func ExampleError() {
	x := exchange.X("client id", "client secret")
	stored := oauth1.Credentials{Token: "...", Secret: "..."}
	for {
		tok, err := x.Exchange(context.Background(), stored)
		var e *exchange.Error
		if errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests {
			time.Sleep(max(e.RetryAfter, time.Second))
			continue
		}
		if err != nil {
			log.Printf("not exchanged: %v", err) // e.Code is RFC 6749's error, such as invalid_grant
			return
		}
		_ = tok
		return
	}
}
