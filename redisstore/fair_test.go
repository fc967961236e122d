package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// floodRedis records fresh nonces of consumer in store from eight
// connections at once until Redis or the store refuses them, and returns
// how many it accepted.
func floodRedis(t *testing.T, store *redisstore.NonceStore, consumer string, now time.Time) int64 {
	t.Helper()
	var next, accepted atomic.Int64
	var refused atomic.Bool
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for !refused.Load() {
				i := next.Add(1)
				if i > 1_000_000 {
					t.Errorf("%s: a million nonces and no refusal", consumer)
					return
				}
				n := server.Nonce{ConsumerKey: consumer, Value: strconv.FormatInt(i, 36), Timestamp: now.Unix()}
				ok, err := store.Use(context.Background(), n, now, now.Add(5*time.Minute))
				switch {
				case ok:
					accepted.Add(1)
				case errors.Is(err, server.ErrStoreFull), errors.Is(err, server.ErrStoreUnavailable):
					refused.Store(true)
				default:
					t.Errorf("%s: nonce %d: %v, %v", consumer, i, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return accepted.Load()
}

// TestNonceStoreFloodersDoNotRefuseAnother has 8 and then 16 more clients
// flood a NonceStore, one after another, each until refused, on a Redis
// with noeviction and 4 MB of room; then a client that sends 50 requests
// is served. (Before fair refusal, the first flood filled Redis, and every
// client was refused with OOM.)
func TestNonceStoreFloodersDoNotRefuseAnother(t *testing.T) {
	ctx := context.Background()
	srv := ownServer(t)
	rdb := newClient(t, srv.addr())
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", fmt.Sprint(usedMemory(t, rdb)+4<<20)).Err())
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err())
	store := redisstore.NewNonceStore(rdb, testPrefix(t))
	now := time.Now()
	flooders := 0
	for _, more := range []int{8, 16} {
		var held int64
		for range more {
			held += floodRedis(t, store, fmt.Sprint("flooder", flooders), now)
			flooders++
		}
		light := 0
		for i := range 50 {
			n := server.Nonce{ConsumerKey: fmt.Sprint("light", flooders), Value: strconv.Itoa(i), Timestamp: now.Unix()}
			if ok, err := store.Use(ctx, n, now, now.Add(5*time.Minute)); ok {
				light++
			} else if i == 0 {
				t.Logf("the light client's first nonce: %v", err)
			}
		}
		t.Logf("%d flooders hold %d nonces; Redis uses %d bytes; the light client stored %d of 50", flooders, held, usedMemory(t, rdb), light)
		assert.Equal(t, 50, light, "the light client after %d flooders", flooders)
	}
	// A flooder is still refused, and its replays are replays.
	ok, err := store.Use(ctx, server.Nonce{ConsumerKey: "flooder0", Value: "again", Timestamp: now.Unix()}, now, now.Add(5*time.Minute))
	assert.False(t, ok)
	assert.ErrorIs(t, err, server.ErrStoreFull, "flooder0 again")
	ok, err = store.Use(ctx, server.Nonce{ConsumerKey: "flooder0", Value: "1", Timestamp: now.Unix()}, now, now.Add(5*time.Minute))
	assert.False(t, ok, "a replay of flooder0's first nonce")
	assert.NoError(t, err, "a replay of flooder0's first nonce")
}
