package tokenexchange

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
)

// wantToken checks an RFC 8693 §2.2.1 answer, field by field.
func wantToken(t *testing.T, a answerOf, access, scope string) {
	t.Helper()
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Equal(t, map[string]any{
		"access_token":      access,
		"issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
		"token_type":        "Bearer",
		"expires_in":        float64(3600),
		"scope":             scope,
		"refresh_token":     "rt" + strings.TrimPrefix(access, "at"),
	}, a.fields)
}

func TestSecretShape(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        func() *http.Request
		clientID string
	}{
		{"basic", func() *http.Request { return post(secretForm(), clientID, clientSecret) }, clientID},
		{"body", func() *http.Request {
			return post(secretForm("client_id", clientID, "client_secret", clientSecret), "", "")
		}, clientID},
		{"public", func() *http.Request { return post(secretForm("client_id", publicID), "", "") }, publicID},
		{"access-token-type", func() *http.Request {
			return post(secretForm("subject_token_type", "urn:ietf:params:oauth:token-type:access_token"), clientID, clientSecret)
		}, clientID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			a := serve(t, f.h, tc.r())
			wantToken(t, a, "at-1", "read write")
			require.Equal(t, []Grant{{ConsumerKey: consumerKey, ClientID: tc.clientID, User: "alice", Scope: "read write", Token: token1}}, f.grants)
			o := f.lastObserved(t)
			require.NoError(t, o.err)
			require.False(t, o.g.Repeat)
			f.noSecret(t, a)
		})
	}
}

func TestSignedShape(t *testing.T) {
	f := newFixture(t)
	a := serve(t, f.h, f.signed(t, url.Values{"grant_type": {GrantType}}, tok1))
	wantToken(t, a, "at-1", "read write")
	require.Equal(t, []Grant{{ConsumerKey: consumerKey, User: "alice", Scope: "read write", Token: token1}}, f.grants)

	// JSON body with the OAuth 2.0 client, as Intuit's and Xero's migrate
	// endpoints take it (the body is not signed; the client's secret is
	// its proof).
	f = newFixture(t)
	r := httptest.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"client_id":"client-1","client_secret":"cl-SECRET-client-1","scope":"read"}`))
	r.Header.Set("Content-Type", "application/json")
	cfg := oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
	require.NoError(t, cfg.SignAt(r, &tok1, f.clock.now(), "n-json"))
	a = serve(t, f.h, r)
	wantToken(t, a, "at-1", "read")
	require.Equal(t, []Grant{{ConsumerKey: consumerKey, ClientID: clientID, User: "alice", Scope: "read", Token: token1}}, f.grants)
	f.noSecret(t, a)
}

// TestErrors walks every refusal: its status, RFC 6749 §5.2 code,
// challenge, and that no secret is in it or in what Observe saw.
func TestErrors(t *testing.T) {
	type req = func(f *fixture, t *testing.T) *http.Request
	secret := func(form url.Values, id, sec string) req {
		return func(*fixture, *testing.T) *http.Request { return post(form, id, sec) }
	}
	signedForm := func(form url.Values, tok oauth1.Credentials) req {
		return func(f *fixture, t *testing.T) *http.Request { return f.signed(t, form, tok) }
	}
	cases := []struct {
		name      string
		r         req
		prepare   func(f *fixture)
		status    int
		code      string
		challenge string // WWW-Authenticate's scheme, if any
	}{
		{name: "GET", r: func(*fixture, *testing.T) *http.Request {
			return httptest.NewRequest(http.MethodGet, endpoint+"?"+secretForm().Encode(), nil)
		}, status: 405, code: "invalid_request"},
		{name: "no grant_type", r: secret(secretForm("grant_type", ""), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "other grant_type", r: secret(secretForm("grant_type", "client_credentials"), clientID, clientSecret), status: 400, code: "unsupported_grant_type"},
		{name: "no subject_token", r: secret(secretForm("subject_token", ""), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "no subject_token_type", r: secret(secretForm("subject_token_type", ""), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "jwt subject_token_type", r: secret(secretForm("subject_token_type", "urn:ietf:params:oauth:token-type:jwt"), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "no oauth_token_secret", r: secret(secretForm("oauth_token_secret", ""), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "repeated parameter", r: func(*fixture, *testing.T) *http.Request {
			r := post(secretForm(), clientID, clientSecret)
			body := secretForm().Encode() + "&scope=read&scope=write"
			r.Body, r.ContentLength = httptestBody(body), int64(len(body))
			return r
		}, status: 400, code: "invalid_request"},
		{name: "JSON body", r: func(*fixture, *testing.T) *http.Request {
			r := post(secretForm(), clientID, clientSecret)
			r.Header.Set("Content-Type", "application/json")
			return r
		}, status: 400, code: "invalid_request"},
		{name: "huge body", r: func(*fixture, *testing.T) *http.Request {
			return post(secretForm("scope", strings.Repeat("read ", 20000)), clientID, clientSecret)
		}, status: 400, code: "invalid_request"},
		{name: "actor_token", r: secret(secretForm("actor_token", "x", "actor_token_type", OAuth1TokenType), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "resource", r: secret(secretForm("resource", "https://elsewhere.example/"), clientID, clientSecret), status: 400, code: "invalid_target"},
		{name: "audience", r: secret(secretForm("audience", "elsewhere"), clientID, clientSecret), status: 400, code: "invalid_target"},
		{name: "requested id_token", r: secret(secretForm("requested_token_type", "urn:ietf:params:oauth:token-type:id_token"), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "no client", r: secret(secretForm(), "", ""), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "basic wrong secret", r: secret(secretForm(), clientID, "wrong-SECRET"), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "basic empty secret", r: secret(secretForm(), clientID, ""), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "basic unknown client", r: secret(secretForm(), "nobody", clientSecret), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "basic malformed", r: func(*fixture, *testing.T) *http.Request {
			r := post(secretForm(), "", "")
			r.Header.Set("Authorization", "Basic !!!")
			return r
		}, status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "bearer", r: func(*fixture, *testing.T) *http.Request {
			r := post(secretForm(), "", "")
			r.Header.Set("Authorization", "Bearer "+clientSecret)
			return r
		}, status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "body wrong secret", r: secret(secretForm("client_id", clientID, "client_secret", "wrong-SECRET"), "", ""), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "confidential without secret", r: secret(secretForm("client_id", clientID), "", ""), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "public with a secret", r: secret(secretForm("client_id", publicID, "client_secret", "wrong-SECRET"), "", ""), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "basic and body secret", r: secret(secretForm("client_secret", clientSecret), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "two client ids", r: secret(secretForm("client_id", otherID), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "wrong token secret", r: secret(secretForm("oauth_token_secret", "wrong-SECRET"), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "unknown token", r: secret(secretForm("subject_token", "tok-nobody"), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "token of another client", r: secret(secretForm("subject_token", "tok-other", "oauth_token_secret", "ts-SECRET-other"), clientID, clientSecret), status: 400, code: "invalid_request"},
		{name: "client of another consumer", r: secret(secretForm(), otherID, otherSecret), status: 400, code: "invalid_request"},
		{name: "revoked token", r: secret(secretForm(), clientID, clientSecret), prepare: revoke1, status: 400, code: "invalid_request"},
		{name: "consumer gone", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) {
			f.h.Consumers = server.Consumers{}
		}, status: 400, code: "invalid_request"},
		{name: "wider scope", r: secret(secretForm("scope", "read admin"), clientID, clientSecret), status: 400, code: "invalid_scope"},
		{name: "malformed scope", r: secret(secretForm("scope", "read\x01"), clientID, clientSecret), status: 400, code: "invalid_scope"},
		{name: "issuer refuses scope", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) {
			f.issue = func(context.Context, Grant) (*oauth2.Token, error) {
				return nil, &Error{Code: "invalid_scope", Description: "write is retired"}
			}
		}, status: 400, code: "invalid_scope"},
		{name: "issuer fails", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) {
			f.issue = func(context.Context, Grant) (*oauth2.Token, error) { return nil, errors.New("database on fire") }
		}, status: 500, code: "server_error"},
		{name: "issuer returns no token", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) {
			f.issue = func(context.Context, Grant) (*oauth2.Token, error) { return &oauth2.Token{}, nil }
		}, status: 500, code: "server_error"},
		{name: "token store down", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) {
			f.h.Tokens = downTokens{f.tokens}
		}, status: 503, code: "temporarily_unavailable"},
		{name: "no Clients", r: secret(secretForm(), clientID, clientSecret), prepare: func(f *fixture) { f.h.Clients = nil }, status: 400, code: "invalid_request"},

		// The signed shape.
		{name: "signed: bad signature", r: signedForm(url.Values{}, oauth1.Credentials{Token: token1, Secret: "wrong-SECRET"}), status: 401, code: "invalid_client", challenge: "OAuth"},
		{name: "signed: unknown consumer", r: func(f *fixture, t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodPost, endpoint, nil)
			cfg := oauth1.Config{ConsumerKey: "ck-nobody", ConsumerSecret: consumerSecret}
			require.NoError(t, cfg.SignAt(r, &tok1, f.clock.now(), "n1"))
			return r
		}, status: 401, code: "invalid_client", challenge: "OAuth"},
		{name: "signed: no token", r: func(f *fixture, t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodPost, endpoint, nil)
			cfg := oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
			require.NoError(t, cfg.SignAt(r, nil, f.clock.now(), "n1"))
			return r
		}, status: 400, code: "invalid_request"},
		{name: "signed: stale timestamp", r: func(f *fixture, t *testing.T) *http.Request {
			r := httptest.NewRequest(http.MethodPost, endpoint, nil)
			cfg := oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
			require.NoError(t, cfg.SignAt(r, &tok1, f.clock.now().Add(-time.Hour), "n1"))
			return r
		}, status: 401, code: "invalid_client", challenge: "OAuth"},
		{name: "signed: revoked token", r: signedForm(url.Values{}, tok1), prepare: revoke1, status: 400, code: "invalid_request"},
		{name: "signed: unknown token", r: signedForm(url.Values{}, oauth1.Credentials{Token: "tok-nobody", Secret: tokenSecret}), status: 400, code: "invalid_request"},
		{name: "signed: other grant_type", r: signedForm(url.Values{"grant_type": {"refresh_token"}}, tok1), status: 400, code: "unsupported_grant_type"},
		{name: "signed: token secret in body", r: signedForm(url.Values{"oauth_token_secret": {tokenSecret}}, tok1), status: 400, code: "invalid_request"},
		{name: "signed: other subject_token", r: signedForm(url.Values{"subject_token": {"tok-other"}}, tok1), status: 400, code: "invalid_request"},
		{name: "signed: client of another consumer", r: signedForm(url.Values{"client_id": {otherID}, "client_secret": {otherSecret}}, tok1), status: 400, code: "invalid_request"},
		{name: "signed: client wrong secret", r: signedForm(url.Values{"client_id": {clientID}, "client_secret": {"wrong-SECRET"}}, tok1), status: 401, code: "invalid_client", challenge: "Basic"},
		{name: "signed: wider scope", r: signedForm(url.Values{"scope": {"admin"}}, tok1), status: 400, code: "invalid_scope"},
		{name: "signed: no Consumers", r: signedForm(url.Values{}, tok1), prepare: func(f *fixture) { f.h.Consumers = nil }, status: 400, code: "invalid_request"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.prepare != nil {
				tc.prepare(f)
			}
			a := serve(t, f.h, tc.r(f, t))
			require.Equal(t, tc.status, a.status, a.body)
			require.Equal(t, tc.code, a.fields["error"], a.body)
			if d, ok := a.fields["error_description"]; ok {
				require.Regexp(t, `^[\x20\x21\x23-\x5b\x5d-\x7e]*$`, d)
			}
			ch := a.header.Get("WWW-Authenticate")
			if tc.challenge == "" {
				require.Empty(t, ch)
			} else {
				require.True(t, strings.HasPrefix(ch, tc.challenge+" realm="), "WWW-Authenticate: %q", ch)
			}
			if a.status == 503 {
				require.Equal(t, serverRetryAfter(t), a.header.Get("Retry-After"), "the Verifier's Retry-After for a store that cannot answer")
			}
			if tc.name == "GET" {
				require.Equal(t, "POST", a.header.Get("Allow"))
			}
			o := f.lastObserved(t)
			require.Error(t, o.err)
			var e *Error
			require.ErrorAs(t, o.err, &e)
			require.Equal(t, tc.code, e.Code)
			if tc.code != "server_error" {
				require.Zero(t, f.issued.Load()-int32(countIssuerRefusals(tc.name)), "the Issuer was called")
			}
			f.noSecret(t, a)
		})
	}
}

// countIssuerRefusals is 1 for the cases in which the Issuer is called
// and refuses.
func countIssuerRefusals(name string) int {
	if strings.HasPrefix(name, "issuer") {
		return 1
	}
	return 0
}

func revoke1(f *fixture) {
	if err := f.tokens.Revoke(context.Background(), token1, f.clock.now()); err != nil {
		panic(err)
	}
}

func httptestBody(s string) *readCloser { return &readCloser{strings.NewReader(s)} }

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// downTokens is a TokenStore whose Redis is down.
type downTokens struct{ server.TokenStore }

func (downTokens) Token(context.Context, string, time.Time) (server.TokenCredentials, error) {
	return server.TokenCredentials{}, fmt.Errorf("%w: dial tcp 127.0.0.1:6379: connection refused", server.ErrStoreUnavailable)
}

// TestConstantTimeCompare checks that the token secret and the client
// secret (in both its forms, for Basic) are compared with equalSecret,
// and that it is constant-time over the SHA-256 of both.
func TestConstantTimeCompare(t *testing.T) {
	type pair struct{ got, want string }
	var seen []pair
	old := equalSecret
	t.Cleanup(func() { equalSecret = old })
	equalSecret = func(got, want string) bool {
		seen = append(seen, pair{got, want})
		return old(got, want)
	}
	f := newFixture(t)
	a := serve(t, f.h, post(secretForm("oauth_token_secret", "wrong-SECRET"), clientID, clientSecret))
	require.Equal(t, "invalid_request", a.fields["error"])
	// The Basic secret twice, form-decoded and as sent (RFC 6749 §2.3.1).
	require.Equal(t, []pair{{clientSecret, clientSecret}, {clientSecret, clientSecret}, {"wrong-SECRET", tokenSecret}}, seen)

	seen = nil
	a = serve(t, f.h, post(secretForm(), clientID, "wrong-SECRET"))
	require.Equal(t, "invalid_client", a.fields["error"])
	require.Equal(t, []pair{{"wrong-SECRET", clientSecret}, {"wrong-SECRET", clientSecret}}, seen)

	require.True(t, old("abc", "abc"))
	require.False(t, old("abc", "abd"))
	require.False(t, old("abc", "abcd"))
	require.False(t, old("", "x"))
}

func TestScopeNarrowing(t *testing.T) {
	for _, tc := range []struct{ asked, granted, want, code string }{
		{"", "read write", "read write", ""},
		{"read", "read write", "read", ""},
		{"write read", "read write", "write read", ""},
		{"read  read", "read write", "read", ""},
		{"read admin", "read write", "", "invalid_scope"},
		{"admin", "", "", "invalid_scope"},
		{"rea", "read", "", "invalid_scope"},
		{`re"ad`, `re"ad`, "", "invalid_scope"},
	} {
		got, err := narrow(tc.asked, tc.granted)
		if tc.code == "" {
			require.NoError(t, err, tc.asked)
			require.Equal(t, tc.want, got)
			continue
		}
		var e *Error
		require.ErrorAs(t, err, &e, tc.asked)
		require.Equal(t, tc.code, e.Code)
	}
	// Through the handler, both shapes.
	f := newFixture(t)
	a := serve(t, f.h, post(secretForm("scope", "write"), clientID, clientSecret))
	wantToken(t, a, "at-1", "write")
	f = newFixture(t)
	a = serve(t, f.h, f.signed(t, url.Values{"scope": {"read"}}, tok1))
	wantToken(t, a, "at-1", "read")
	require.Equal(t, "read", f.grants[0].Scope)
}

// TestRepeatWithinWindow: a repeat inside the window is the same answer,
// without a second Issue; after it, invalid_request, and the 1.0a token is
// revoked.
func TestRepeatWithinWindow(t *testing.T) {
	f := newFixture(t)
	f.h.RepeatWindow = time.Hour // the timer never fires in the test; the clock moves
	a := serve(t, f.h, post(secretForm(), clientID, clientSecret))
	wantToken(t, a, "at-1", "read write")

	f.clock.add(30 * time.Minute)
	b := serve(t, f.h, post(secretForm("scope", "read"), clientID, clientSecret))
	require.Equal(t, a.fields["access_token"], b.fields["access_token"])
	require.Equal(t, a.fields["refresh_token"], b.fields["refresh_token"])
	require.Equal(t, float64(1800), b.fields["expires_in"], "expires_in counts down")
	require.True(t, f.lastObserved(t).g.Repeat)

	// A signed repeat (a fresh nonce) gets it too; a replay of it does not.
	r := f.signedNonce(t, url.Values{}, tok1, "n-repeat")
	c := serve(t, f.h, r)
	require.Equal(t, a.fields["access_token"], c.fields["access_token"])
	replay := serve(t, f.h, f.signedNonce(t, url.Values{}, tok1, "n-repeat"))
	require.Equal(t, 401, replay.status)
	require.Equal(t, "invalid_client", replay.fields["error"])
	require.Contains(t, replay.fields["error_description"], "nonce_used")
	require.EqualValues(t, 1, f.issued.Load())

	_, err := f.tokens.Token(context.Background(), token1, f.clock.now())
	require.NoError(t, err, "the 1.0a token lives through the window")

	f.clock.add(31 * time.Minute)
	d := serve(t, f.h, post(secretForm(), clientID, clientSecret))
	require.Equal(t, "invalid_request", d.fields["error"])
	_, err = f.tokens.Token(context.Background(), token1, f.clock.now())
	require.ErrorIs(t, err, server.ErrTokenRevoked, "revoked when presented after the window")
	e := serve(t, f.h, f.signed(t, url.Values{}, tok1))
	require.Equal(t, "invalid_request", e.fields["error"])
	require.EqualValues(t, 1, f.issued.Load())
	f.noSecret(t, d)
}

// TestSignedDeliveries: the 1.0a parameters in the query or the form
// body (RFC 5849 §3.5.2, §3.5.3) are a signed exchange as the header is.
func TestSignedDeliveries(t *testing.T) {
	for _, d := range []oauth1.Delivery{oauth1.QueryString, oauth1.FormBody} {
		f := newFixture(t)
		form := url.Values{"grant_type": {GrantType}, "scope": {"write"}}
		r := httptest.NewRequest(http.MethodPost, endpoint, strings.NewReader(form.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		cfg := oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Delivery: d}
		require.NoError(t, cfg.SignAt(r, &tok1, f.clock.now(), "n-delivery"))
		require.Empty(t, r.Header.Get("Authorization"))
		a := serve(t, f.h, r)
		wantToken(t, a, "at-1", "write")
	}
}

// TestBadGrantsAlike: an unknown, revoked or another client's token and a
// wrong secret get one answer, so that an authenticated client cannot
// probe for tokens it does not hold; each compares a secret.
func TestBadGrantsAlike(t *testing.T) {
	old := equalSecret
	t.Cleanup(func() { equalSecret = old })
	compared := 0
	equalSecret = func(got, want string) bool { compared++; return old(got, want) }
	var bodies []string
	for _, tc := range []struct {
		form    url.Values
		prepare func(*fixture)
	}{
		{form: secretForm("oauth_token_secret", "wrong-SECRET")},
		{form: secretForm("subject_token", "tok-nobody")},
		{form: secretForm("subject_token", "tok-other", "oauth_token_secret", "ts-SECRET-other")},
		{form: secretForm(), prepare: revoke1},
	} {
		f := newFixture(t)
		if tc.prepare != nil {
			tc.prepare(f)
		}
		compared = 0
		a := serve(t, f.h, post(tc.form, clientID, clientSecret))
		require.Equal(t, 400, a.status)
		require.Equal(t, 3, compared, "the client's secret, in both forms, and the token's")
		bodies = append(bodies, a.body)
	}
	for _, b := range bodies[1:] {
		require.Equal(t, bodies[0], b)
	}
}

// serverRetryAfter is the Retry-After a server.Verifier answers for a
// store that cannot answer: the one policy the Handler follows too.
func serverRetryAfter(t testing.TB) string {
	w := httptest.NewRecorder()
	new(server.Verifier).WriteError(w, server.ErrStoreUnavailable)
	ra := w.Header().Get("Retry-After")
	require.NotEmpty(t, ra)
	return ra
}

// TestUsageCountsExchanges: an Observe wired as the package doc says
// counts each grant's exchange once in a sunset.Usage, not its repeats
// within the window nor refusals.
func TestUsageCountsExchanges(t *testing.T) {
	f := newFixture(t)
	f.h.RepeatWindow = time.Hour
	var usage sunset.Usage
	observe := f.h.Observe
	f.h.Observe = func(r *http.Request, g Grant, err error) {
		observe(r, g, err)
		if err == nil && !g.Repeat {
			usage.RecordExchange(g.ConsumerKey, f.clock.now())
		}
	}
	wantToken(t, serve(t, f.h, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	f.clock.add(time.Minute)
	serve(t, f.h, post(secretForm(), clientID, clientSecret))                        // a repeat
	serve(t, f.h, post(secretForm("subject_token", "nope"), clientID, clientSecret)) // refused
	got := usage.Clients()
	require.Len(t, got, 1)
	require.Equal(t, consumerKey, got[0].ConsumerKey)
	require.EqualValues(t, 1, got[0].Exchanges)
	require.EqualValues(t, 0, got[0].Requests)
}
