package redisstore_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// usedMemory returns Redis's used_memory, in bytes.
func usedMemory(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), "memory").Result()
	require.NoError(t, err)
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no used_memory in INFO memory: %q", info)
	return 0
}

// docMaxTemporaryPerClient is what a zero MaxTemporaryPerClient means, as
// the docs of redisstore.TemporaryStore and server.MemoryTemporaryStore
// say.
const docMaxTemporaryPerClient = 1024

// TestTemporaryFlood sends 3,000 temporary credential requests from one
// client, each with a long callback, to a Provider on a Redis of its own:
// past the default quota the Provider answers 503 and Redis stops
// growing. Without a quota every request was stored (0.9 → 9.6 MB).
func TestTemporaryFlood(t *testing.T) {
	srv := ownServer(t)
	rdb := newClient(t, srv.addr())
	prefix := testPrefix(t)
	p := &server.Provider{
		Consumers: consumers,
		Temporary: redisstore.NewTemporaryStore(rdb, prefix),
		Tokens:    redisstore.NewTokenStore(rdb, prefix),
		Settings:  server.Settings{Nonces: redisstore.NewNonceStore(rdb, prefix)},
	}
	h := p.RequestTokenHandler()
	callback := "https://client.example/cb?state=" + strings.Repeat("x", 1500)
	before := usedMemory(t, rdb)
	status := map[int]int{}
	var atQuota int64
	for i := range 3000 {
		if i == docMaxTemporaryPerClient {
			atQuota = usedMemory(t, rdb)
		}
		rec := post(t, h, "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: callback})
		status[rec.Code]++
		if rec.Code == http.StatusServiceUnavailable {
			assert.NotEmpty(t, rec.Header().Get("Retry-After"))
		}
	}
	after := usedMemory(t, rdb)
	t.Logf("3,000 requests from one client: answers %v; Redis used_memory %.1f MB before, %.1f MB at the quota, %.1f MB after (the refused requests' nonces)",
		status, float64(before)/1e6, float64(atQuota)/1e6, float64(after)/1e6)
	assert.Equal(t, docMaxTemporaryPerClient, status[http.StatusOK], "answers %v", status)
	assert.Equal(t, 3000-docMaxTemporaryPerClient, status[http.StatusServiceUnavailable], "answers %v", status)
	keys, err := rdb.Keys(context.Background(), prefix+"temp:*").Result()
	require.NoError(t, err)
	assert.Equal(t, docMaxTemporaryPerClient, len(keys), "temporary credentials stored")
}

// TestTemporaryQuota checks the per-client quota: exact under concurrency
// across instances, per client, freed as credentials expire, reported with
// an error that wraps server.ErrStoreFull and names the client, and
// kept in a key that expires with the last of them.
func TestTemporaryQuota(t *testing.T) {
	addr := sharedAddr(t)
	testTemporaryQuota(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testTemporaryQuota is TestTemporaryQuota with the clients newClient
// returns, one per store.
func testTemporaryQuota(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	ctx := context.Background()
	const quota = 10
	var stores [4]*redisstore.TemporaryStore
	for i := range stores {
		stores[i] = redisstore.NewTemporaryStore(newClient(), prefix)
		stores[i].MaxTemporaryPerClient = quota
	}
	var seq atomic.Int64
	put := func(s *redisstore.TemporaryStore, client string, ttl time.Duration) error {
		now := time.Now()
		return s.PutTemporary(ctx, server.TemporaryCredentials{
			Token: fmt.Sprint("tok-", seq.Add(1)), Secret: "s", ConsumerKey: client, Callback: "oob",
			Expires: now.Add(ttl),
		}, now)
	}

	// 64 at once across four instances: exactly quota are stored.
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			// The first quota-1 expire soon; the last one lives long.
			err := put(stores[i%len(stores)], "flooder", 300*time.Millisecond)
			switch {
			case err == nil:
				ok.Add(1)
			case assert.ErrorIs(t, err, server.ErrStoreFull):
				full.Add(1)
				assert.Contains(t, err.Error(), `"flooder"`, "the error names the client")
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, quota, ok.Load(), "stored")
	assert.EqualValues(t, 64-quota, full.Load(), "refused")

	// Another client is not affected.
	require.NoError(t, put(stores[0], "other", time.Minute))

	// The quota's key expires with the last credentials it counts.
	rdb := newClient()
	keys := allKeys(t, rdb, prefix+"quota:*")
	require.Len(t, keys, 2, "one quota key per client")
	for _, k := range keys {
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		assert.Positive(t, ttl, "PTTL %s", k)
		assert.LessOrEqual(t, ttl, time.Minute, "PTTL %s", k)
	}

	// Once they expire, the client may have as many again.
	time.Sleep(400 * time.Millisecond)
	for i := range quota {
		require.NoError(t, put(stores[i%len(stores)], "flooder", time.Minute), "put %d after expiry", i)
	}
	assert.ErrorIs(t, put(stores[0], "flooder", time.Minute), server.ErrStoreFull)

	// Exchanged credentials count until they expire, as MemoryTemporaryStore's.
	_, err := stores[0].TakeTemporary(ctx, fmt.Sprint("tok-", seq.Load()-1), time.Now())
	require.NoError(t, err)
	assert.ErrorIs(t, put(stores[0], "flooder", time.Minute), server.ErrStoreFull)

	// A token stored twice does not count twice, nor leaves the quota short.
	dup := server.TemporaryCredentials{Token: "dup", Secret: "s", ConsumerKey: "dup-client", Callback: "oob", Expires: time.Now().Add(time.Minute)}
	require.NoError(t, stores[0].PutTemporary(ctx, dup, time.Now()))
	for range quota {
		assert.Error(t, stores[1].PutTemporary(ctx, dup, time.Now()))
	}
	for i := range quota - 1 {
		require.NoError(t, put(stores[0], "dup-client", time.Minute), "put %d after a duplicate", i)
	}
	assert.ErrorIs(t, put(stores[0], "dup-client", time.Minute), server.ErrStoreFull)
}

// TestTemporaryDefaultQuotaIsMemoryStores checks that a Provider keeps one
// per-client default whichever store it is given: a
// server.MemoryTemporaryStore whose MaxTemporaryPerClient is zero takes
// exactly docMaxTemporaryPerClient temporary credentials from one
// client, and refuses the next with ErrStoreFull. It needs no Redis.
func TestTemporaryDefaultQuotaIsMemoryStores(t *testing.T) {
	m := new(server.MemoryTemporaryStore)
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	put := func(i int) error {
		return m.PutTemporary(ctx, server.TemporaryCredentials{Token: "t" + strconv.Itoa(i), Secret: "s", ConsumerKey: "hog",
			Callback: "oob", Expires: now.Add(time.Hour)}, now)
	}
	for i := range docMaxTemporaryPerClient {
		require.NoError(t, put(i), "temporary credentials %d of one client, under docMaxTemporaryPerClient", i+1)
	}
	assert.ErrorIs(t, put(docMaxTemporaryPerClient), server.ErrStoreFull,
		"one more than docMaxTemporaryPerClient: the memory store's default is another")
}
