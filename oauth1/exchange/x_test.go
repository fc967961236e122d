package exchange_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

const (
	aliceToken  = "1234-aliceToken"
	aliceSecret = "alice-1.0a-SECRET-kept"
	xID         = "x-client-id"
	xSecret     = "x-client-SECRET-2"
)

var alice = oauth1.Credentials{Token: aliceToken, Secret: aliceSecret}

func xUsers() map[string]string {
	return map[string]string{aliceToken: aliceSecret, "5678-bob": "bob-secret"}
}

func TestXExchange(t *testing.T) {
	for _, tc := range []struct {
		name, secret string
		scopes       []string
		wantScope    string
	}{
		{"confidential", xSecret, nil, "tweet.read users.read offline.access"},
		{"public", "", nil, "tweet.read users.read offline.access"},
		{"confidential with scope", xSecret, []string{"tweet.read", "offline.access"}, "tweet.read offline.access"},
		{"public with scope", "", []string{"users.read"}, "users.read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, srv := newXStandIn(t, xID, tc.secret, xUsers())
			e := exchange.X(xID, tc.secret)
			e.TokenURL = srv.URL + "/2/oauth2/token"
			e.Scopes = tc.scopes
			before := time.Now()
			tok, err := e.Exchange(context.Background(), alice)
			require.NoError(t, err)
			assert.Equal(t, "at-1-"+aliceToken, tok.AccessToken)
			assert.Equal(t, "rt-1-"+aliceToken, tok.RefreshToken)
			assert.Equal(t, "bearer", tok.TokenType)
			assert.Equal(t, "Bearer", tok.Type())
			assert.EqualValues(t, 7200, tok.ExpiresIn)
			assert.WithinRange(t, tok.Expiry, before.Add(2*time.Hour), time.Now().Add(2*time.Hour))
			assert.Equal(t, tc.wantScope, tok.Extra("scope"))
			assert.Equal(t, 1, x.exchanges)

			// Again: a new pair, and the first is no longer valid.
			tok2, err := e.Exchange(context.Background(), alice)
			require.NoError(t, err)
			assert.NotEqual(t, tok.AccessToken, tok2.AccessToken)
			assert.False(t, x.valid(tok.AccessToken))
			assert.True(t, x.valid(tok2.AccessToken))
		})
	}
}

// The TokenSource refreshes through x/oauth2's own refresh, against the
// stand-in, which checks the refresh request as strictly as the exchange.
func TestXTokenSourceRefreshes(t *testing.T) {
	for _, secret := range []string{xSecret, ""} {
		t.Run(fmt.Sprintf("secret=%q", secret), func(t *testing.T) {
			x, srv := newXStandIn(t, xID, secret, xUsers())
			e := exchange.X(xID, secret)
			e.TokenURL = srv.URL + "/2/oauth2/token"
			tok, err := e.Exchange(context.Background(), alice)
			require.NoError(t, err)

			ts := e.TokenSource(context.Background(), tok)
			got, err := ts.Token()
			require.NoError(t, err)
			assert.Equal(t, tok.AccessToken, got.AccessToken, "a valid token is reused")
			assert.Equal(t, 0, x.refreshes)

			expired := *tok
			expired.Expiry = time.Now().Add(-time.Minute)
			ts = e.TokenSource(context.Background(), &expired)
			got, err = ts.Token()
			require.NoError(t, err)
			assert.Equal(t, "at-2-"+aliceToken, got.AccessToken)
			assert.Equal(t, "rt-2-"+aliceToken, got.RefreshToken, "the rotated refresh token")
			assert.Equal(t, 1, x.refreshes)
			assert.True(t, x.valid(got.AccessToken))
			again, err := ts.Token()
			require.NoError(t, err)
			assert.Equal(t, got.AccessToken, again.AccessToken)
			assert.Equal(t, 1, x.refreshes)
		})
	}
}

// X's answer to too many requests: 429, Retry-After, and X's own error
// body, which is not RFC 6749's.
func answer429(w http.ResponseWriter, retry string) {
	if retry != "" {
		w.Header().Set("Retry-After", retry)
	}
	writeJSON(w, 429, map[string]any{"errors": []map[string]any{{"code": 88, "message": "Rate limit exceeded"}}})
}

func TestX429(t *testing.T) {
	x, srv := newXStandIn(t, xID, xSecret, xUsers())
	x.answer = func(n int, w http.ResponseWriter) bool {
		if n == 1 {
			answer429(w, "1")
			return true
		}
		if n == 3 { // longer than the 1s a TokenSource waits when told nothing
			answer429(w, "2")
			return true
		}
		return false
	}
	e := exchange.X(xID, xSecret)
	e.TokenURL = srv.URL + "/2/oauth2/token"
	_, err := e.Exchange(context.Background(), alice)
	var xe *exchange.Error
	require.ErrorAs(t, err, &xe)
	assert.Equal(t, 429, xe.StatusCode)
	assert.Equal(t, time.Second, xe.RetryAfter)
	assert.True(t, xe.Temporary())
	assert.Contains(t, xe.Body, "Rate limit exceeded")
	assert.Equal(t, `exchange: the provider answered 429 Too Many Requests: "{\"errors\":[{\"code\":88,\"message\":\"Rate limit exceeded\"}]}\n"; retry after 1s`, err.Error())

	tok, err := e.Exchange(context.Background(), alice) // request 2
	require.NoError(t, err)
	tok.Expiry = time.Now().Add(-time.Minute)
	start := time.Now()
	got, err := e.TokenSource(context.Background(), tok).Token() // 3 is refused, 4 refreshes
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(start), 2*time.Second, "Retry-After: 2 waited out")
	assert.Equal(t, 1, x.refreshes)
	assert.True(t, x.valid(got.AccessToken))
}

func TestX429ContextEndsWait(t *testing.T) {
	x, srv := newXStandIn(t, xID, xSecret, xUsers())
	e := exchange.X(xID, xSecret)
	e.TokenURL = srv.URL + "/2/oauth2/token"
	tok, err := e.Exchange(context.Background(), alice)
	require.NoError(t, err)
	x.answer = func(n int, w http.ResponseWriter) bool { answer429(w, "600"); return true }
	tok.Expiry = time.Now().Add(-time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = e.TokenSource(ctx, tok).Token()
	var xe *exchange.Error
	require.ErrorAs(t, err, &xe)
	assert.Equal(t, 10*time.Minute, xe.RetryAfter)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestXRefusal(t *testing.T) {
	_, srv := newXStandIn(t, xID, xSecret, xUsers())
	e := exchange.X(xID, xSecret)
	e.TokenURL = srv.URL + "/2/oauth2/token"
	_, err := e.Exchange(context.Background(), oauth1.Credentials{Token: aliceToken, Secret: "not-" + aliceSecret})
	var xe *exchange.Error
	require.ErrorAs(t, err, &xe)
	assert.Equal(t, exchange.Error{StatusCode: 400, Code: "invalid_grant", Description: "Value passed for the token was invalid."}, *xe)
	assert.Equal(t, `exchange: the provider answered 400 Bad Request: "invalid_grant" ("Value passed for the token was invalid.")`, err.Error())
	assert.False(t, xe.Temporary())
}

// A provider that echoes the request in its refusal: the 1.0a secret and
// the client secret, in the forms an echo takes, never come out.
func TestXRefusalEchoScrubbed(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(xID + ":" + xSecret))
	for _, body := range []string{
		`{"error":"invalid_request","error_description":"bad oauth_token_secret=` + aliceSecret + ` for ` + aliceToken + `"}`,
		`{"error":"invalid_request ` + aliceSecret + `","error_description":"secret \"` + aliceSecret + `\"","error_uri":"https://x.example/e?s=` + url.QueryEscape(aliceSecret) + `"}`,
		`{"error":"invalid_client","error_description":"Authorization: Basic ` + b64 + `"}`,
		`{"error":"invalid_request","error_description":"` + base64.StdEncoding.EncodeToString([]byte("s="+aliceSecret+"&t=x")) + `"}`,
		`<html><body>request: grant_type=x&amp;subject_token=` + aliceToken + `&amp;oauth_token_secret=` + url.QueryEscape(aliceSecret) + `</body></html>`,
		`{"errors":[{"message":"bad secret \u0061` + aliceSecret[1:] + `"}]}`,
		`{"detail":"` + strings.ToUpper(aliceSecret) + " " + xSecret + `"}`,
	} {
		x, srv := newXStandIn(t, xID, xSecret, xUsers())
		x.answer = func(int, http.ResponseWriter) bool { return false }
		x.answer = func(n int, w http.ResponseWriter) bool {
			w.WriteHeader(400)
			w.Write([]byte(body))
			return true
		}
		e := exchange.X(xID, xSecret)
		e.TokenURL = srv.URL + "/2/oauth2/token"
		_, err := e.Exchange(context.Background(), alice)
		require.Error(t, err)
		var xe *exchange.Error
		require.ErrorAs(t, err, &xe)
		for _, out := range []string{err.Error(), fmt.Sprintf("%v %+v %#v %s %q", err, xe, xe, xe, xe)} {
			for _, s := range []string{aliceSecret, xSecret, url.QueryEscape(aliceSecret), b64} {
				assert.NotContains(t, strings.ToLower(out), strings.ToLower(s), "body %s", body)
			}
		}
		assert.Contains(t, err.Error(), "REDACTED", "body %s", body)
	}
}

// A redirect is not followed: it would resend the body, and its secrets.
func TestXRedirectNotFollowed(t *testing.T) {
	hits := 0
	_, other := newXStandIn(t, xID, xSecret, xUsers())
	x, srv := newXStandIn(t, xID, xSecret, xUsers())
	x.answer = func(n int, w http.ResponseWriter) bool {
		hits++
		w.Header().Set("Location", other.URL+"/2/oauth2/token?leak=1")
		w.WriteHeader(http.StatusPermanentRedirect)
		return true
	}
	e := exchange.X(xID, xSecret)
	e.TokenURL = srv.URL + "/2/oauth2/token"
	_, err := e.Exchange(context.Background(), alice)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "redirected (308)")
	assert.NotContains(t, err.Error(), "leak=1")
	assert.Equal(t, 1, hits)
}

func TestXBadInput(t *testing.T) {
	e := exchange.X(xID, xSecret)
	e.TokenURL = "http://127.0.0.1:1/2/oauth2/token"
	for _, c := range []oauth1.Credentials{{Token: aliceToken}, {Secret: aliceSecret}, {}} {
		_, err := e.Exchange(context.Background(), c)
		require.Error(t, err)
		assert.NotContains(t, err.Error(), aliceSecret)
	}
	_, err := exchange.X("", xSecret).Exchange(context.Background(), alice)
	assert.ErrorContains(t, err, "no ClientID")
	_, err = (&exchange.TokenExchange{ClientID: xID}).Exchange(context.Background(), alice)
	assert.ErrorContains(t, err, "no TokenURL")
	// Nothing listens on port 1: the network error names no secret.
	_, err = e.Exchange(context.Background(), alice)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), aliceSecret)
	assert.NotContains(t, err.Error(), xSecret)
}

func TestTokenExchangePrintsRedacted(t *testing.T) {
	e := exchange.X(xID, xSecret)
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "e", e, "v", *e)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "e", e, "v", *e)
	for _, out := range []string{fmt.Sprintf("%v %+v %#v %s %q %x %d", e, e, e, e, e, e, e), logged.String()} {
		assert.NotContains(t, out, xSecret)
		assert.Contains(t, out, "REDACTED")
		assert.Contains(t, out, xID)
	}
	assert.Equal(t, "{TokenURL:https://api.x.com/2/oauth2/token ClientID:x-client-id ClientSecret:REDACTED Scopes:[] SubjectTokenType:}", fmt.Sprint(*e))
}

var _ = errors.New

// A refused refresh is an *Error too, scrubbed of the client secret the
// provider echoes.
func TestXTokenSourceRefusal(t *testing.T) {
	x, srv := newXStandIn(t, xID, xSecret, xUsers())
	e := exchange.X(xID, xSecret)
	e.TokenURL = srv.URL + "/2/oauth2/token"
	tok, err := e.Exchange(context.Background(), alice)
	require.NoError(t, err)
	x.answer = func(n int, w http.ResponseWriter) bool {
		writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "refresh token revoked; client " + xID + ":" + xSecret})
		return true
	}
	tok.Expiry = time.Now().Add(-time.Minute)
	_, err = e.TokenSource(context.Background(), tok).Token()
	var xe *exchange.Error
	require.ErrorAs(t, err, &xe)
	assert.Equal(t, 400, xe.StatusCode)
	assert.Equal(t, "invalid_grant", xe.Code)
	assert.Equal(t, "refresh token revoked; client "+xID+":REDACTED", xe.Description)
	assert.NotContains(t, fmt.Sprintf("%v %#v", err, err), xSecret)
}
