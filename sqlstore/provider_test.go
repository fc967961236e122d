package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

// provider returns the handler of a Provider whose state is all in db:
// the three endpoints, a consent page that approves for alice and
// answers the PIN, and /me.
func provider(t *testing.T, db *sql.DB) http.Handler {
	consumers, err := sqlstore.NewConsumerStore(db, "", []byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	p := &server.Provider{
		Consumers: consumers,
		Temporary: sqlstore.NewTemporaryStore(db, ""),
		Tokens:    sqlstore.NewTokenStore(db, ""),
		Settings:  server.Settings{Nonces: sqlstore.NewNonceStore(db, "")},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.HandleFunc("GET /oauth/authorize", func(w http.ResponseWriter, r *http.Request) {
		_, pin, err := p.Authorize(r.Context(), server.Approval{Token: r.FormValue("oauth_token"), User: "alice"})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprint(w, pin)
	})
	mux.Handle("GET /me", p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := server.FromContext(r.Context())
		fmt.Fprint(w, v.User)
	})))
	return mux
}

// recorder keeps the last request a client sent.
type recorder struct {
	mu   sync.Mutex
	last *http.Request
}

func (rec *recorder) RoundTrip(r *http.Request) (*http.Response, error) {
	rec.mu.Lock()
	rec.last = r.Clone(r.Context())
	rec.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestProviderRestart runs the three-legged flow against a Provider on
// sqlstore, then "restarts" it (a new pool, new stores, a new Provider on
// the same database, as a process started again): the token still works,
// the request signed before is refused as a replay, the temporary
// credentials already exchanged stay used, and a revocation holds.
func TestProviderRestart(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"SQLite":     func(t *testing.T) string { return filepath.Join(t.TempDir(), "provider.db") },
		"PostgreSQL": func(t *testing.T) string { return pgtest.DSN(t) },
	} {
		t.Run(name, func(t *testing.T) { providerRestart(t, dsn(t)) })
	}
}

func providerRestart(t *testing.T, dsn string) {
	db := open(t, dsn, true)
	ctx := context.Background()
	consumers, err := sqlstore.NewConsumerStore(db, "", []byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	require.NoError(t, consumers.PutConsumer(ctx, "app", server.Registration{Secret: "app-secret"}))

	var h atomic.Value
	h.Store(provider(t, db))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.Load().(http.Handler).ServeHTTP(w, r)
	}))
	defer srv.Close()
	rec := &recorder{}
	cfg := &oauth1.Config{ConsumerKey: "app", ConsumerSecret: "app-secret", Callback: "oob",
		HTTPClient: &http.Client{Transport: rec},
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: srv.URL + "/oauth/request_token",
			AuthorizeURL:    srv.URL + "/oauth/authorize",
			AccessTokenURL:  srv.URL + "/oauth/access_token",
		}}
	temp, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	resp, err := http.Get(cfg.AuthorizationURL(temp.Credentials))
	require.NoError(t, err)
	pin, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	tok, err := cfg.AccessToken(ctx, temp.Credentials, string(pin))
	require.NoError(t, err)
	client := cfg.Client(tok.Credentials)
	get := func(c *http.Client) (int, string) {
		resp, err := c.Get(srv.URL + "/me")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get(client)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "alice", body)
	signed := rec.last

	// The restart.
	restarted := open(t, dsn, false)
	h.Store(provider(t, restarted))

	code, body = get(client)
	assert.Equal(t, http.StatusOK, code, "the token after the restart: %s", body)
	replay, err := http.DefaultTransport.RoundTrip(signed)
	require.NoError(t, err)
	b, _ := io.ReadAll(replay.Body)
	replay.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, replay.StatusCode, "a request signed before the restart, replayed after it: %s", b)
	assert.Contains(t, string(b), "nonce_used")
	_, err = cfg.AccessToken(ctx, temp.Credentials, string(pin))
	assert.ErrorContains(t, err, "token_used", "the temporary credentials exchanged before the restart")

	require.NoError(t, sqlstore.NewTokenStore(restarted, "").Revoke(ctx, tok.Credentials.Token, time.Now()))
	code, body = get(client)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.True(t, strings.Contains(body, "token_revoked"), body)
}
