package redisstore_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// outageBound is what a request may take while Redis is down, with the
// client options of the package doc (outageOptions).
const outageBound = 500 * time.Millisecond

// outageOptions are the client options the package doc and
// ExampleNewTokenStore recommend, for addr.
func outageOptions(addr string) *redis.UniversalOptions {
	return &redis.UniversalOptions{
		Addrs:                 []string{addr},
		ContextTimeoutEnabled: true,
		DialTimeout:           150 * time.Millisecond,
		ReadTimeout:           150 * time.Millisecond,
		WriteTimeout:          150 * time.Millisecond,
		PoolTimeout:           150 * time.Millisecond,
		MaxRetries:            1,
		MaxRetryBackoff:       20 * time.Millisecond,
		DialerRetries:         1,
	}
}

// TestOutage stops Redis mid-test (kills it, or, where it can, stops it
// with SIGSTOP as a hung server or a lost network would) under Providers
// that keep one of their stores each in it (the others in memory), and
// checks that every request that reaches the store Redis holds is
// answered 503 with Retry-After and no detail, within outageBound with
// the documented client options; and, with go-redis's default options
// (1.7 s a request), that a token-signed request is answered 503 all the
// same.
func TestOutage(t *testing.T) {
	for _, tc := range []struct {
		name, mode string
		bound      time.Duration
		options    func(addr string) *redis.UniversalOptions
	}{
		{"killed", "killed", outageBound, outageOptions},
		{"hung", "hung", outageBound, outageOptions},
		{"default options", "killed", 0, func(addr string) *redis.UniversalOptions {
			return &redis.UniversalOptions{Addrs: []string{addr}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { testOutage(t, tc.mode, tc.bound, tc.options) })
	}
}

func testOutage(t *testing.T, mode string, bound time.Duration, options func(addr string) *redis.UniversalOptions) {
	srv := ownServer(t)
	rdb := redis.NewUniversalClient(options(srv.addr()))
	t.Cleanup(func() { rdb.Close() })
	prefix := testPrefix(t)
	ctx := context.Background()

	// Each Provider keeps one store in Redis.
	inRedis := map[string]*server.Provider{
		"nonces": {Settings: server.Settings{Nonces: redisstore.NewNonceStore(rdb, prefix)},
			Temporary: new(server.MemoryTemporaryStore), Tokens: new(server.MemoryTokenStore)},
		"temporary": {Settings: server.Settings{Nonces: new(server.MemoryNonceStore)},
			Temporary: redisstore.NewTemporaryStore(rdb, prefix), Tokens: new(server.MemoryTokenStore)},
		"tokens": {Settings: server.Settings{Nonces: new(server.MemoryNonceStore)},
			Temporary: new(server.MemoryTemporaryStore), Tokens: redisstore.NewTokenStore(rdb, prefix)},
	}
	type creds struct{ temp, tok *oauth1.Credentials }
	issued := map[string]creds{}
	for name, p := range inRedis {
		p.Consumers = consumers
		// While Redis is up: token credentials, and temporary
		// credentials approved for the exchange.
		rec := post(t, p.RequestTokenHandler(), "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: "oob"})
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
		form, _ := url.ParseQuery(rec.Body.String())
		temp := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
		_, code, err := p.Authorize(ctx, server.Approval{Token: temp.Token, User: "alice"})
		require.NoError(t, err)
		rec = post(t, p.AccessTokenHandler(), "http://provider.example/access_token", temp, oauth1.Param{Name: "oauth_verifier", Value: code})
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
		form, _ = url.ParseQuery(rec.Body.String())
		tok := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}

		rec = post(t, p.RequestTokenHandler(), "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: "oob"})
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", name, rec.Body)
		form, _ = url.ParseQuery(rec.Body.String())
		temp = &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
		issued[name] = creds{temp, tok}
	}

	if mode == "killed" {
		srv.stop()
	} else if err := srv.pause(); err != nil {
		t.Skipf("not testing a hung Redis: %v", err)
	} else {
		t.Cleanup(func() { srv.resume() })
	}

	for _, tc := range []struct {
		store, request string
		send           func(p *server.Provider, c creds) (int, http.Header, string)
	}{
		{"nonces", "two-legged request", func(p *server.Provider, _ creds) (int, http.Header, string) {
			rec := post(t, p.Middleware(http.NotFoundHandler()), "http://provider.example/api", nil)
			return rec.Code, rec.Header(), rec.Body.String()
		}},
		{"temporary", "temporary credential request", func(p *server.Provider, _ creds) (int, http.Header, string) {
			rec := post(t, p.RequestTokenHandler(), "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: "oob"})
			return rec.Code, rec.Header(), rec.Body.String()
		}},
		{"temporary", "token request", func(p *server.Provider, c creds) (int, http.Header, string) {
			rec := post(t, p.AccessTokenHandler(), "http://provider.example/access_token", c.temp, oauth1.Param{Name: "oauth_verifier", Value: "x"})
			return rec.Code, rec.Header(), rec.Body.String()
		}},
		{"tokens", "token-signed request", func(p *server.Provider, c creds) (int, http.Header, string) {
			rec := post(t, p.Middleware(http.NotFoundHandler()), "http://provider.example/api", c.tok)
			return rec.Code, rec.Header(), rec.Body.String()
		}},
	} {
		if bound == 0 && tc.store != "tokens" {
			continue // 1.7 s each: one is enough
		}
		start := time.Now()
		code, h, body := tc.send(inRedis[tc.store], issued[tc.store])
		took := time.Since(start)
		assert.Equal(t, http.StatusServiceUnavailable, code, "%s with the %s store down: %s", tc.request, tc.store, body)
		assert.NotEmpty(t, h.Get("Retry-After"), "%s with the %s store down: Retry-After", tc.request, tc.store)
		assert.Equal(t, "oauth_problem=internal_error", body, "%s with the %s store down", tc.request, tc.store)
		if bound > 0 {
			assert.Less(t, took, bound, "%s with the %s store down", tc.request, tc.store)
		}
		t.Logf("Redis %s: %s, %s store down: %d in %v", mode, tc.request, tc.store, code, took.Round(time.Millisecond))
	}

	// The operator's revocation says the store is unavailable too.
	err := inRedis["tokens"].Revoke(ctx, issued["tokens"].tok.Token)
	assert.ErrorIs(t, err, server.ErrStoreUnavailable)
}
