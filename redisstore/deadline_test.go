package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// TestDeadline makes Redis unreachable, killed (connections refused) or
// hung (connections accepted, nothing answered), and checks that every call
// returns, with an error, within the context's deadline (plus a margin for
// a loaded machine), whether or not the client was created with
// ContextTimeoutEnabled: go-redis otherwise ignores deadlines and waits out
// its own read timeout (3 s by default), and retries.
func TestDeadline(t *testing.T) {
	const deadline, margin = 300 * time.Millisecond, 2 * time.Second
	srv := ownServer(t)
	for _, tc := range []struct {
		mode       string
		ctxTimeout bool
	}{{"killed", false}, {"killed", true}, {"hung", false}, {"hung", true}} {
		ctxTimeout := tc.ctxTimeout
		// Default options otherwise, as a service would most likely have.
		rdb := redis.NewClient(&redis.Options{Addr: srv.addr(), ContextTimeoutEnabled: ctxTimeout})
		t.Cleanup(func() { rdb.Close() })
		prefix := testPrefix(t)
		nonces, temps, tokens := redisstore.NewNonceStore(rdb, prefix), redisstore.NewTemporaryStore(rdb, prefix), redisstore.NewTokenStore(rdb, prefix)
		require.NoError(t, rdb.Ping(context.Background()).Err())
		if tc.mode == "killed" {
			srv.stop()
		} else if err := srv.pause(); err != nil {
			t.Logf("not testing a hung Redis: %v", err)
			continue
		}

		calls := storeCalls(nonces, temps, tokens)
		// The calls run at once, each timed on its own, to keep the test short.
		var wg sync.WaitGroup
		for name, call := range calls {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				start := time.Now()
				err := call(ctx)
				took := time.Since(start)
				assert.ErrorIs(t, err, server.ErrStoreUnavailable, "%s with Redis %s (ContextTimeoutEnabled %v)", name, tc.mode, ctxTimeout)
				assert.Less(t, took, deadline+margin, "%s with Redis %s and a %v deadline (ContextTimeoutEnabled %v)", name, tc.mode, deadline, ctxTimeout)
				t.Logf("Redis %s, ContextTimeoutEnabled %v: %s returned after %v: %v", tc.mode, ctxTimeout, name, took.Round(time.Millisecond), err)
			})
		}
		wg.Wait()

		// A request through the middleware, with the request's deadline.
		v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: nonces}}
		r := httptest.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
		r.Header.Set("Authorization", signedHeader(t, time.Now(), "deadline"))
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		rec := httptest.NewRecorder()
		start := time.Now()
		v.Middleware(http.NotFoundHandler()).ServeHTTP(rec, r.WithContext(ctx))
		took := time.Since(start)
		cancel()
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
		assert.Less(t, took, deadline+margin, "request with Redis %s (ContextTimeoutEnabled %v)", tc.mode, ctxTimeout)
		t.Logf("Redis %s, ContextTimeoutEnabled %v: request answered %d after %v", tc.mode, ctxTimeout, rec.Code, took.Round(time.Millisecond))
		if tc.mode == "killed" {
			require.NoError(t, srv.start())
		} else {
			require.NoError(t, srv.resume())
		}
	}
}
