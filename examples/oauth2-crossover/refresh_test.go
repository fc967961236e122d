package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1/server"
)

// newTestProvider is the provider holding jane's and john's grants,
// served on loopback.
func newTestProvider(t *testing.T) (*Provider, string) {
	t.Helper()
	p, err := NewProvider([]server.TokenCredentials{
		{Token: jane.Token, Secret: jane.Secret, ConsumerKey: photos.ConsumerKey, User: "jane", Scope: "photos:read photos:write"},
		{Token: john.Token, Secret: john.Secret, ConsumerKey: printer.ConsumerKey, User: "john", Scope: "photos:read"},
	}, time.Minute)
	require.NoError(t, err)
	srv := httptest.NewServer(p.Handler)
	t.Cleanup(srv.Close)
	return p, srv.URL
}

// TestRefreshAfterExpiry: an exchanged token comes with a refresh token;
// once the access token has expired on the provider (refused by
// go-oauth2's own validation), x/oauth2's TokenSource refreshes it and
// the call is authorized again, for the same user and scope, with no
// new consent. The refresh token is rotated: the old one is refused.
func TestRefreshAfterExpiry(t *testing.T) {
	old := accessLife
	accessLife = time.Second
	t.Cleanup(func() { accessLife = old })
	ctx := context.Background()
	_, base := newTestProvider(t)

	for _, tc := range []struct {
		name     string
		exchange func() (*oauth2.Token, error)
		conf     *oauth2.Config
		want     string
	}{
		{"x/oauth2, X's shape", func() (*oauth2.Token, error) {
			return ExchangeWithSecret(ctx, base, "photos-app", "photos-app-secret", jane, "photos:read")
		}, ClientConfig(base, "photos-app", "photos-app-secret"), `{"client":"photos-app","scope":"photos:read","user":"jane"}`},
		{"signed", func() (*oauth2.Token, error) {
			return ExchangeSigned(ctx, base, &printer, john, "")
		}, ClientConfig(base, "printer-app", "printer-app-secret"), `{"client":"printer-app","scope":"photos:read","user":"john"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := tc.exchange()
			require.NoError(t, err)
			require.NotEmpty(t, tok.RefreshToken, "the exchange mints a refresh token")
			me, err := CallAPI(ctx, base, oauth2.StaticTokenSource(tok))
			require.NoError(t, err)
			require.Equal(t, tc.want, me)

			// The access token expires on the provider.
			require.Eventually(t, func() bool {
				_, err := CallAPI(ctx, base, oauth2.StaticTokenSource(tok))
				return err != nil
			}, 10*time.Second, 100*time.Millisecond)
			_, err = CallAPI(ctx, base, oauth2.StaticTokenSource(tok))
			require.ErrorContains(t, err, "401")

			// x/oauth2 sees it expired, refreshes, and calls with the new one.
			ts := tc.conf.TokenSource(ctx, tok)
			me, err = CallAPI(ctx, base, ts)
			require.NoError(t, err)
			require.Equal(t, tc.want, me)
			fresh, err := ts.Token()
			require.NoError(t, err)
			require.NotEqual(t, tok.AccessToken, fresh.AccessToken)
			require.NotEqual(t, tok.RefreshToken, fresh.RefreshToken, "rotated")
			require.WithinDuration(t, time.Now().Add(time.Hour), fresh.Expiry, time.Minute, "a refreshed token lives an hour")

			// The old refresh token is spent.
			_, err = tc.conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			requireCode(t, err, "invalid_grant")
		})
	}
}

// TestRefreshChecksClient: a refresh token is refreshed only for the
// client it was issued to, which authenticates (RFC 6749 §6); go-oauth2
// v4.5 checks neither.
func TestRefreshChecksClient(t *testing.T) {
	ctx := context.Background()
	_, base := newTestProvider(t)
	tok, err := ExchangeWithSecret(ctx, base, "photos-app", "photos-app-secret", jane, "")
	require.NoError(t, err)
	spent := &oauth2.Token{RefreshToken: tok.RefreshToken}

	_, err = ClientConfig(base, "printer-app", "printer-app-secret").TokenSource(ctx, spent).Token()
	requireCode(t, err, "invalid_grant")
	_, err = ClientConfig(base, "photos-app", "wrong").TokenSource(ctx, spent).Token()
	requireCode(t, err, "invalid_client")
	_, err = ClientConfig(base, "nobody", "photos-app-secret").TokenSource(ctx, spent).Token()
	requireCode(t, err, "invalid_client")
	_, err = ClientConfig(base, "photos-app", "photos-app-secret").TokenSource(ctx, &oauth2.Token{RefreshToken: "made-up"}).Token()
	requireCode(t, err, "invalid_grant")

	// None of those spent it: its own client refreshes it.
	fresh, err := ClientConfig(base, "photos-app", "photos-app-secret").TokenSource(ctx, spent).Token()
	require.NoError(t, err)
	me, err := CallAPI(ctx, base, oauth2.StaticTokenSource(fresh))
	require.NoError(t, err)
	require.Equal(t, `{"client":"photos-app","scope":"photos:read photos:write","user":"jane"}`, me)

	// go-oauth2 serves no other grant: the password grant, whose token
	// settings the exchange borrows, is refused.
	_, err = ClientConfig(base, "photos-app", "photos-app-secret").PasswordCredentialsToken(ctx, "jane", "anything")
	var re *oauth2.RetrieveError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Contains(t, []string{"unsupported_grant_type", "access_denied"}, re.ErrorCode)
}

// TestServerTimeouts: the server bounds how long a client may take to
// send its request and how long an idle connection stays open, and
// leaves an exchange time to wait for a concurrent one or the Issuer.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s is not set", name)
		}
	}
	if srv.WriteTimeout <= 30*time.Second {
		t.Errorf("WriteTimeout %v leaves no room for the Issuer's claim (30 s)", srv.WriteTimeout)
	}
}
