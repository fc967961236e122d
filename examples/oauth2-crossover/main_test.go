package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

func TestRun(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out))
	require.Equal(t, `x/oauth2 exchange: token_type=Bearer scope=photos:read issued_token_type=urn:ietf:params:oauth:token-type:access_token expires=true refresh=true
GET /2/me with it: {"client":"photos-app","scope":"photos:read","user":"jane"}
signed exchange, then GET /2/me: {"client":"printer-app","scope":"photos:read","user":"john"}
`, out.String())
}

var (
	jane    = oauth1.Credentials{Token: "jane-token", Secret: "jane-token-secret"}
	john    = oauth1.Credentials{Token: "john-token", Secret: "john-token-secret"}
	photos  = oauth1.Config{ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44"}
	printer = oauth1.Config{ConsumerKey: "printer-key", ConsumerSecret: "printer-secret"}
)

// TestCrossover takes two grants across, end to end over loopback HTTP:
// the 1.0a API serves them before; golang.org/x/oauth2 (X's shape) and a
// signed request exchange them; go-oauth2's own validation authorizes the
// new tokens on the OAuth 2.0 API; a repeat within the window is the
// same token; after it the exchange is refused and the 1.0a token too.
func TestCrossover(t *testing.T) {
	ctx := context.Background()
	p, err := NewProvider([]server.TokenCredentials{
		{Token: jane.Token, Secret: jane.Secret, ConsumerKey: photos.ConsumerKey, User: "jane", Scope: "photos:read photos:write"},
		{Token: john.Token, Secret: john.Secret, ConsumerKey: printer.ConsumerKey, User: "john", Scope: "photos:read"},
	}, 500*time.Millisecond)
	require.NoError(t, err)
	srv := httptest.NewServer(p.Handler)
	t.Cleanup(srv.Close)

	// Before: the 1.0a API serves both.
	require.Equal(t, 200, call1(t, srv.URL, &photos, jane))
	require.Equal(t, 200, call1(t, srv.URL, &printer, john))

	// A scope wider than the grant is refused, as x/oauth2 reads it.
	_, err = ExchangeWithSecret(ctx, srv.URL, "photos-app", "photos-app-secret", jane, "photos:read admin")
	requireCode(t, err, "invalid_scope")
	// A wrong client secret: invalid_client.
	_, err = ExchangeWithSecret(ctx, srv.URL, "photos-app", "wrong", jane, "")
	requireCode(t, err, "invalid_client")
	require.NotContains(t, err.Error(), jane.Secret)

	// X's shape, with x/oauth2.
	tok, err := ExchangeWithSecret(ctx, srv.URL, "photos-app", "photos-app-secret", jane, "")
	require.NoError(t, err)
	require.Equal(t, "Bearer", tok.Type())
	require.Equal(t, "photos:read photos:write", tok.Extra("scope"))
	require.WithinDuration(t, time.Now().Add(time.Hour), tok.Expiry, time.Minute)
	me, err := CallAPI(ctx, srv.URL, oauth2.StaticTokenSource(tok))
	require.NoError(t, err)
	require.Equal(t, `{"client":"photos-app","scope":"photos:read photos:write","user":"jane"}`, me)

	// The repeat (a retry after a lost answer) is the same token.
	again, err := ExchangeWithSecret(ctx, srv.URL, "photos-app", "photos-app-secret", jane, "")
	require.NoError(t, err)
	require.Equal(t, tok.AccessToken, again.AccessToken)

	// The signed shape, narrowed.
	tok2, err := ExchangeSigned(ctx, srv.URL, &printer, john, "photos:read")
	require.NoError(t, err)
	me, err = CallAPI(ctx, srv.URL, oauth2.StaticTokenSource(tok2))
	require.NoError(t, err)
	require.Equal(t, `{"client":"printer-app","scope":"photos:read","user":"john"}`, me)

	// A made-up bearer token is refused by go-oauth2: its validation is
	// what authorized the calls above.
	_, err = CallAPI(ctx, srv.URL, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "made-up"}))
	require.ErrorContains(t, err, "401")

	// After the window: the exchange is refused, and the 1.0a tokens
	// are revoked (by RevokeDue, which a provider runs from a ticker);
	// the OAuth 2.0 tokens go on working.
	require.Eventually(t, func() bool {
		p.Exchange.RevokeDue(ctx)
		return call1(t, srv.URL, &photos, jane) == http.StatusUnauthorized && call1(t, srv.URL, &printer, john) == http.StatusUnauthorized
	}, 10*time.Second, 50*time.Millisecond)
	_, err = ExchangeWithSecret(ctx, srv.URL, "photos-app", "photos-app-secret", jane, "")
	requireCode(t, err, "invalid_request")
	_, err = ExchangeSigned(ctx, srv.URL, &printer, john, "")
	require.ErrorContains(t, err, "invalid_request")
	_, err = p.Tokens.Token(ctx, jane.Token, time.Now())
	require.ErrorIs(t, err, server.ErrTokenRevoked)
	_, err = CallAPI(ctx, srv.URL, oauth2.StaticTokenSource(tok))
	require.NoError(t, err)
}

// call1 calls the 1.0a API and returns the status.
func call1(t *testing.T, base string, cfg *oauth1.Config, tok oauth1.Credentials) int {
	t.Helper()
	resp, err := cfg.Client(&tok).Get(base + "/1.1/me")
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// requireCode checks that err is x/oauth2's reading of an RFC 6749 §5.2
// error with code.
func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	var re *oauth2.RetrieveError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Equal(t, code, re.ErrorCode)
}
