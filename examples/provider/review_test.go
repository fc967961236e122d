package main

// The security review's tests of the provider: the consent form's CSRF
// field binds user and token, every answer that carries a credential is
// not stored by caches, the log holds neither secrets nor lines a client
// wrote, and a callback goes only where the server's rules let it.

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// reviewProvider serves the provider with users alice and bob, no
// auto-approval, and returns a client config and the base URL.
func reviewProvider(t *testing.T) (*oauth1.Config, string) {
	t.Helper()
	ctx := context.Background()
	db, err := openDB(ctx, filepath.Join(t.TempDir(), "provider.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(ctx, db, randomKey(), map[string]string{"app": "app-secret-XYZZY"})
	require.NoError(t, err)
	srv := httptest.NewServer(newHandler(p, map[string]string{"alice": "pw-alice", "bob": "pw-bob"}, ""))
	t.Cleanup(srv.Close)
	return &oauth1.Config{
		ConsumerKey: "app", ConsumerSecret: "app-secret-XYZZY",
		Callback: "http://127.0.0.1:9/callback",
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: srv.URL + "/oauth/request_token",
			AuthorizeURL:    srv.URL + "/oauth/authorize",
			AccessTokenURL:  srv.URL + "/oauth/access_token",
		},
	}, srv.URL
}

// consentCSRF opens the consent page for temp as user and returns its
// CSRF field.
func consentCSRF(t *testing.T, cfg *oauth1.Config, temp *oauth1.Credentials, user, pw string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", cfg.AuthorizationURL(temp), nil)
	req.SetBasicAuth(user, pw)
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	m := csrfField.FindStringSubmatch(string(b))
	require.NotNil(t, m)
	return m[1]
}

// decideAs posts the consent form as user.
func decideAs(t *testing.T, base, user, pw string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/oauth/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(user, pw)
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp
}

// TestReviewCSRFBinding: the CSRF field of one user's form for one token
// approves neither another token (one the attacker started, to have the
// victim approve it) nor the same token as another user; nor does an
// empty field, nor the field sent in the query.
func TestReviewCSRFBinding(t *testing.T) {
	cfg, base := reviewProvider(t)
	ctx := context.Background()
	mine, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	theirs, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	aliceMine := consentCSRF(t, cfg, mine.Credentials, "alice", "pw-alice")

	for name, tc := range map[string]struct {
		user, pw string
		form     url.Values
	}{
		"another token":     {"alice", "pw-alice", url.Values{"oauth_token": {theirs.Credentials.Token}, "approve": {"1"}, "csrf": {aliceMine}}},
		"another user":      {"bob", "pw-bob", url.Values{"oauth_token": {mine.Credentials.Token}, "approve": {"1"}, "csrf": {aliceMine}}},
		"empty field":       {"alice", "pw-alice", url.Values{"oauth_token": {mine.Credentials.Token}, "approve": {"1"}, "csrf": {""}}},
		"no field":          {"alice", "pw-alice", url.Values{"oauth_token": {mine.Credentials.Token}, "approve": {"1"}}},
		"deny, other token": {"alice", "pw-alice", url.Values{"oauth_token": {theirs.Credentials.Token}, "deny": {"1"}, "csrf": {aliceMine}}},
	} {
		assert.Equal(t, http.StatusForbidden, decideAs(t, base, tc.user, tc.pw, tc.form).StatusCode, name)
	}
	// The field in the query, the form empty: PostFormValue reads the body only.
	req, _ := http.NewRequest("POST", base+"/oauth/authorize?"+url.Values{"oauth_token": {mine.Credentials.Token}, "approve": {"1"}, "csrf": {aliceMine}}.Encode(), nil)
	req.SetBasicAuth("alice", "pw-alice")
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the form in the query")

	// Nothing above approved either token: each still approves once.
	resp = decideAs(t, base, "alice", "pw-alice", url.Values{"oauth_token": {mine.Credentials.Token}, "approve": {"1"}, "csrf": {aliceMine}})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	csrf := consentCSRF(t, cfg, theirs.Credentials, "bob", "pw-bob")
	resp = decideAs(t, base, "bob", "pw-bob", url.Values{"oauth_token": {theirs.Credentials.Token}, "approve": {"1"}, "csrf": {csrf}})
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
}

// TestReviewNoStore: the answers that carry credentials or a user's data
// (temporary and token credentials, the protected resource) tell caches
// not to keep them; the redirect with the verification code gives them
// nothing to keep it by.
func TestReviewNoStore(t *testing.T) {
	cfg, base := reviewProvider(t)
	ctx := context.Background()

	// The request token's answer, as the server sends it.
	var rt *http.Response
	client := &http.Client{Transport: recordRT{&rt}}
	c := *cfg
	c.HTTPClient = client
	cfg = &c
	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	require.NotNil(t, rt)
	assert.Equal(t, "no-store", rt.Header.Get("Cache-Control"), "request_token")

	csrf := consentCSRF(t, cfg, res.Credentials, "alice", "pw-alice")
	resp := decideAs(t, base, "alice", "pw-alice", url.Values{"oauth_token": {res.Credentials.Token}, "approve": {"1"}, "csrf": {csrf}})
	code := callbackCode(t, resp, res.Credentials)
	// The 303 that carries oauth_verifier is not cacheable without
	// explicit freshness (RFC 9111 §4.2.2), which it has not.
	assert.Empty(t, resp.Header.Get("Expires")+resp.Header.Get("Last-Modified"), "the redirect that carries oauth_verifier")

	tok, err := cfg.AccessToken(ctx, res.Credentials, code)
	require.NoError(t, err)
	assert.Equal(t, "no-store", rt.Header.Get("Cache-Control"), "access_token")

	r, err := cfg.Client(tok.Credentials).Get(base + "/api/me")
	require.NoError(t, err)
	r.Body.Close()
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "no-store", r.Header.Get("Cache-Control"), "/api/me")
}

// recordRT keeps the last response it carried.
type recordRT struct{ last **http.Response }

func (r recordRT) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	*r.last = resp
	return resp, err
}

// TestReviewLog: what the provider logs of refused requests is one line a
// refusal, whatever the client sent (line breaks, format verbs), and
// holds no secret: not the consumer secret, not a token secret.
func TestReviewLog(t *testing.T) {
	cfg, base := reviewProvider(t)
	var buf bytes.Buffer
	log.SetOutput(&buf)
	log.SetFlags(0)
	t.Cleanup(func() { log.SetOutput(os.Stderr); log.SetFlags(log.LstdFlags) })
	ctx := context.Background()

	hostile := []string{"app\nFAKE refused: admin logged in", "%s%n%v\r\nFAKE", "\xff\xfe", strings.Repeat("A", 8000)}
	for _, v := range hostile {
		c := *cfg
		c.ConsumerKey = v
		c.RequestToken(ctx)
		c.ConsumerKey, c.ConsumerSecret = "app", "wrong-secret"
		c.Callback = "http://127.0.0.1:9/cb?x=" + url.QueryEscape(v)
		c.RequestToken(ctx)
		// A signed request whose token is the hostile value.
		cfg.Client(&oauth1.Credentials{Token: v, Secret: "token-secret-XYZZY"}).Get(base + "/api/me")
		// A request with no OAuth at all, its path hostile.
		http.Get(base + "/api/me?" + url.QueryEscape(v))
	}
	// Unsigned junk in the Authorization header.
	req, _ := http.NewRequest("POST", base+"/oauth/request_token", nil)
	req.Header.Set("Authorization", `OAuth oauth_consumer_key="app%0AFAKE", oauth_signature="%0AFAKE"`)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}

	out := buf.String()
	require.NotEmpty(t, out)
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		assert.Regexp(t, `^(GET|POST) /\S* refused: `, line, "a log line the provider did not begin")
		assert.Less(t, len(line), 4096, "a log line of %d bytes", len(line))
	}
	for _, secret := range []string{"app-secret-XYZZY", "token-secret-XYZZY", "wrong-secret"} {
		assert.NotContains(t, out, secret)
	}
}

// TestReviewCallbackPolicy: the callbacks the provider refuses, as the
// server's rules say, whatever the client signs: schemes that run what
// the URL holds, userinfo, a fragment, control characters.
func TestReviewCallbackPolicy(t *testing.T) {
	cfg, _ := reviewProvider(t)
	ctx := context.Background()
	for _, cb := range []string{
		"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
		"https://user:pw@evil.example/", "https://evil.example/#frag", "https://evil.example/%0d%0aSet-Cookie:x=1",
		"//evil.example/cb", "/relative", "https://evil.example/cb?oauth_verifier=forged",
	} {
		c := *cfg
		c.Callback = cb
		_, err := c.RequestToken(ctx)
		assert.Error(t, err, "callback %q taken", cb)
	}
}

// TestReviewPoolBounded: the provider bounds its database pool, so that a
// flood of requests cannot open a connection each: on PostgreSQL, past
// max_connections (100 by default, shared with every other client of the
// server), every request, and every other application there, is refused.
func TestReviewPoolBounded(t *testing.T) {
	db, err := openDB(context.Background(), filepath.Join(t.TempDir(), "provider.db"))
	require.NoError(t, err)
	defer db.Close()
	n := db.Stats().MaxOpenConnections
	assert.True(t, n > 0 && n <= 64, "the pool opens up to %d connections (0: no bound)", n)
}

// TestReviewLogVerifier: an access token request with a wrong
// verification code is refused, the log names neither the right code nor
// the temporary credentials' secret, and the grant had its one guess.
func TestReviewLogVerifier(t *testing.T) {
	cfg, base := reviewProvider(t)
	ctx := context.Background()
	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	csrf := consentCSRF(t, cfg, res.Credentials, "alice", "pw-alice")
	resp := decideAs(t, base, "alice", "pw-alice", url.Values{"oauth_token": {res.Credentials.Token}, "approve": {"1"}, "csrf": {csrf}})
	code := callbackCode(t, resp, res.Credentials)

	var buf bytes.Buffer
	log.SetOutput(&buf)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	_, err = cfg.AccessToken(ctx, res.Credentials, "wrong-"+code[:len(code)/2])
	require.Error(t, err)
	out := buf.String()
	require.NotEmpty(t, out, "the refusal is logged")
	assert.NotContains(t, out, code)
	assert.NotContains(t, out, res.Credentials.Secret)
	// One guess a grant (the Provider's rule): the right code after a
	// wrong one is refused too, across the database.
	_, err = cfg.AccessToken(ctx, res.Credentials, code)
	assert.ErrorContains(t, err, "token_used")
}
