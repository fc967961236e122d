package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/sqlstore"
)

// newTestProvider serves the provider on loopback, on a new SQLite file,
// with one client and the user alice; autoApprove as the flag.
func newTestProvider(t *testing.T, autoApprove string) (*oauth1.Config, string) {
	t.Helper()
	ctx := context.Background()
	db, err := openDB(ctx, filepath.Join(t.TempDir(), "provider.db"))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	p, err := newProvider(ctx, db, randomKey(), map[string]string{"app": "app-secret"})
	require.NoError(t, err)
	srv := httptest.NewServer(newHandler(p, map[string]string{"alice": "pw-alice"}, autoApprove))
	t.Cleanup(srv.Close)
	return &oauth1.Config{
		ConsumerKey: "app", ConsumerSecret: "app-secret",
		Callback: "http://127.0.0.1:9/callback",
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: srv.URL + "/oauth/request_token",
			AuthorizeURL:    srv.URL + "/oauth/authorize",
			AccessTokenURL:  srv.URL + "/oauth/access_token",
		},
	}, srv.URL
}

// noRedirects is a browser that stops at the redirect to the callback.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// callbackCode reads the verification code from a redirect to the callback.
func callbackCode(t *testing.T, resp *http.Response, temp *oauth1.Credentials) string {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	req, err := http.NewRequest("GET", resp.Header.Get("Location"), nil)
	require.NoError(t, err)
	_, code, err := oauth1.ParseCallback(req, temp)
	require.NoError(t, err)
	return code
}

// callMe calls /api/me with tok and returns the name it answers.
func callMe(t *testing.T, cfg *oauth1.Config, base string, tok *oauth1.Credentials) string {
	t.Helper()
	resp, err := cfg.Client(tok).Get(base + "/api/me")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var v struct{ Name string }
	require.NoError(t, json.Unmarshal(body, &v))
	return v.Name
}

func TestAutoApprove(t *testing.T) {
	cfg, base := newTestProvider(t, "demo-user")
	ctx := context.Background()
	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	resp, err := noRedirects.Get(cfg.AuthorizationURL(res.Credentials))
	require.NoError(t, err)
	resp.Body.Close()
	code := callbackCode(t, resp, res.Credentials)
	tok, err := cfg.AccessToken(ctx, res.Credentials, code)
	require.NoError(t, err)
	assert.Equal(t, "demo-user", callMe(t, cfg, base, tok.Credentials))

	// The grant is the token's only: unsigned and temporary-signed calls are refused.
	resp, err = http.Get(base + "/api/me")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode) // parameter_absent (RFC 5849 §3.2)
	resp, err = cfg.Client(res.Credentials).Get(base + "/api/me")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func TestConsentPage(t *testing.T) {
	cfg, base := newTestProvider(t, "")
	ctx := context.Background()
	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	temp := res.Credentials
	authURL := cfg.AuthorizationURL(temp)

	get := func(user, pw string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", authURL, nil)
		if user != "" {
			req.SetBasicAuth(user, pw)
		}
		resp, err := noRedirects.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	post := func(form url.Values) *http.Response {
		req, _ := http.NewRequest("POST", base+"/oauth/authorize", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth("alice", "pw-alice")
		resp, err := noRedirects.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}

	for _, tc := range []struct{ name, user, pw string }{
		{"no sign-in", "", ""}, {"wrong password", "alice", "pw-bob"}, {"unknown user", "mallory", "pw-alice"},
	} {
		resp, _ := get(tc.user, tc.pw)
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, tc.name)
		assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "Basic", tc.name)
	}

	resp, page := get("alice", "pw-alice")
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	assert.Equal(t, "frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"))
	assert.Contains(t, page, "<b>app</b>")
	m := csrfField.FindStringSubmatch(page)
	require.NotNil(t, m, page)

	// A form another site made, without the page's field, approves nothing.
	resp = post(url.Values{"oauth_token": {temp.Token}, "approve": {"1"}, "csrf": {"forged"}})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)

	resp = post(url.Values{"oauth_token": {temp.Token}, "approve": {"1"}, "csrf": {m[1]}})
	code := callbackCode(t, resp, temp)
	// Approved once: neither a second approval nor a denial changes it.
	assert.Equal(t, http.StatusConflict, post(url.Values{"oauth_token": {temp.Token}, "approve": {"1"}, "csrf": {m[1]}}).StatusCode)
	assert.Equal(t, http.StatusConflict, post(url.Values{"oauth_token": {temp.Token}, "deny": {"1"}, "csrf": {m[1]}}).StatusCode)
	tok, err := cfg.AccessToken(ctx, temp, code)
	require.NoError(t, err)
	assert.Equal(t, "alice", callMe(t, cfg, base, tok.Credentials))

	// A denial sends the user back with permission_denied.
	res, err = cfg.RequestToken(ctx)
	require.NoError(t, err)
	authURL = cfg.AuthorizationURL(res.Credentials)
	_, page = get("alice", "pw-alice")
	m = csrfField.FindStringSubmatch(page)
	require.NotNil(t, m, page)
	resp = post(url.Values{"oauth_token": {res.Credentials.Token}, "deny": {"1"}, "csrf": {m[1]}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	req, _ := http.NewRequest("GET", resp.Header.Get("Location"), nil)
	_, _, err = oauth1.ParseCallback(req, res.Credentials)
	assert.ErrorIs(t, err, oauth1.ErrDenied)
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.2:0": true, "[::1]:8080": true, "localhost:8080": false,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "192.168.1.10:8080": false,
		"example.com:8080": false, "127.0.0.1": false,
	} {
		assert.Equal(t, want, loopback(addr), addr)
	}
}

func TestExpireLoopStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	db, err := openDB(ctx, filepath.Join(t.TempDir(), "provider.db"))
	require.NoError(t, err)
	defer db.Close()
	done := make(chan struct{})
	go func() { expireLoop(ctx, db, 10*time.Millisecond); close(done) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("expireLoop did not return once its context was done")
	}
}

func TestSealKey(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, err string }{
		{"ok", strings.Repeat("0f", 32) + "\n", ""},
		{"short", strings.Repeat("0f", 31), "want 64 hex digits"},
		{"not hex", strings.Repeat("zz", 32), "want 64 hex digits"},
	} {
		file := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(file, []byte(tc.content), 0o600))
		key, err := readKey(file)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.name)
			assert.NotContains(t, err.Error(), tc.content, "the error repeats the file's content")
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Len(t, key, 32)
	}

	// A consumer registered with a key is sealed: a store without it
	// cannot read the secret.
	ctx := context.Background()
	db, err := openDB(ctx, filepath.Join(dir, "provider.db"))
	require.NoError(t, err)
	defer db.Close()
	_, err = newProvider(ctx, db, randomKey(), map[string]string{"app": "app-secret"})
	require.NoError(t, err)
	plain, err := sqlstore.NewConsumerStore(db, "", nil)
	require.NoError(t, err)
	_, err = plain.Consumer(ctx, "app", time.Now())
	assert.Error(t, err)
}
