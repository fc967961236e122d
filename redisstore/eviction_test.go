package redisstore_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// flood fills Redis, as a flood of requests would, with n keys that expire
// (like nonces and temporary credentials), in pipelined batches, and
// returns how many writes Redis refused.
func flood(t *testing.T, rdb *redis.Client, prefix string, n int) (refused int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		cmds, _ := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j := i; j < i+1000 && j < n; j++ {
				p.Set(ctx, prefix+"flood:"+strconv.Itoa(j), "0123456789abcdef0123456789abcdef", time.Hour)
			}
			return nil
		})
		for _, c := range cmds {
			if c.Err() != nil {
				refused++
			}
		}
	}
	return refused
}

// TestEviction runs a Verifier on a Redis with a maxmemory that a flood
// fills. With volatile-lru, Redis evicts nonces to make room, and a replay
// refused before the flood may be accepted after it: Check reports the
// policy. With noeviction, Check is content, and once Redis is full the
// Verifier answers every fresh request 503, and still refuses the replay:
// it fails closed.
func TestEviction(t *testing.T) {
	ctx := context.Background()
	for _, policy := range []string{"volatile-lru", "noeviction"} {
		srv := ownServer(t)
		rdb := newClient(t, srv.addr())
		require.NoError(t, redisstore.Check(ctx, rdb), "a Redis with no maxmemory")
		used := usedMemory(t, rdb)
		require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", fmt.Sprint(used+2<<20)).Err())
		require.NoError(t, rdb.ConfigSet(ctx, "maxmemory-policy", policy).Err())
		err := redisstore.Check(ctx, rdb)
		if policy == "noeviction" {
			assert.NoError(t, err)
		} else {
			assert.ErrorContains(t, err, policy)
			t.Logf("Check: %v", err)
		}

		prefix := testPrefix(t)
		v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: redisstore.NewNonceStore(rdb, prefix)}}
		auth := signedHeader(t, time.Now(), "evicted?")
		rec, _ := serve(v, auth)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		rec, _ = serve(v, auth)
		require.Equal(t, http.StatusUnauthorized, rec.Code, "replay before the flood")

		refused := flood(t, rdb, prefix, 60000)
		info, err := rdb.Info(ctx, "stats").Result()
		require.NoError(t, err)
		rec, ran := serve(v, auth)
		t.Logf("%s: %d flood writes refused; replay after the flood: %d %q", policy, refused, rec.Code, rec.Body)
		if policy == "noeviction" {
			assert.Positive(t, refused, "Redis was not filled")
			assert.Contains(t, info, "evicted_keys:0\r\n")
			// Telling a replay needs no memory: it is refused as one.
			assert.Equal(t, http.StatusUnauthorized, rec.Code, "replay with Redis full")
			assert.Equal(t, "oauth_problem=nonce_used", rec.Body.String(), "replay with Redis full")
			assert.False(t, ran)
			rec, ran = serve(v, signedHeader(t, time.Now(), "fresh"))
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "fresh request with Redis full")
			assert.False(t, ran)
		} else {
			assert.NotContains(t, info, "evicted_keys:0\r\n", "nothing evicted")
		}
	}
}
