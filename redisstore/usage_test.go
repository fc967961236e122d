package redisstore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
	"github.com/countersign/countersign/redisstore"
)

func TestUsageAcrossInstances(t *testing.T) {
	addr := sharedAddr(t)
	testUsageAcrossInstances(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testUsageAcrossInstances counts requests on two instances, each with
// its own sunset.Usage and Redis client, flushes both at once, and reads
// the sums from either store.
func testUsageAcrossInstances(t *testing.T, newClient func() redis.UniversalClient) {
	ctx := context.Background()
	prefix := testPrefix(t)
	t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var local [2]sunset.Usage
	shared := [2]*redisstore.Usage{redisstore.NewUsage(newClient(), prefix), redisstore.NewUsage(newClient(), prefix)}

	// Instance 0: app-a 3 times, last at t0+3s; app-b once at t0+10s.
	// Instance 1: app-a 5 times, last at t0+2s; app-c twice, at t0+1s.
	for i := range 3 {
		local[0].Record("app-a", t0.Add(time.Duration(i+1)*time.Second))
	}
	local[0].Record("app-b", t0.Add(10*time.Second))
	local[0].RecordExchange("app-b", t0.Add(9*time.Second))
	for i := range 5 {
		local[1].Record("app-a", t0.Add(time.Duration(i%3)*time.Second))
	}
	local[1].Record("app-c", t0.Add(time.Second))
	local[1].Record("app-c", t0.Add(time.Second))
	local[1].RecordExchange("app-d", t0.Add(4*time.Second)) // exchanged, no request

	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, local[i].Flush(ctx, shared[i].Add))
		}()
	}
	wg.Wait()
	want := []sunset.Client{
		{ConsumerKey: "app-a", Requests: 8, LastSeen: t0.Add(3 * time.Second)},
		{ConsumerKey: "app-c", Requests: 2, LastSeen: t0.Add(time.Second)},
		{ConsumerKey: "app-b", Requests: 1, Exchanges: 1, LastSeen: t0.Add(10 * time.Second)},
		{ConsumerKey: "app-d", Exchanges: 1, LastSeen: t0.Add(4 * time.Second)},
	}
	for i := range 2 {
		got, err := shared[i].Clients(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, got, "store %d", i)
	}

	// A second Flush adds only what came since, and an earlier time does
	// not move a last seen back.
	local[1].Record("app-b", t0.Add(5*time.Second))
	require.NoError(t, local[0].Flush(ctx, shared[0].Add))
	require.NoError(t, local[1].Flush(ctx, shared[1].Add))
	got, err := shared[0].Clients(ctx)
	require.NoError(t, err)
	assert.Equal(t, []sunset.Client{
		{ConsumerKey: "app-a", Requests: 8, LastSeen: t0.Add(3 * time.Second)},
		{ConsumerKey: "app-b", Requests: 2, Exchanges: 1, LastSeen: t0.Add(10 * time.Second)},
		{ConsumerKey: "app-c", Requests: 2, LastSeen: t0.Add(time.Second)},
		{ConsumerKey: "app-d", Exchanges: 1, LastSeen: t0.Add(4 * time.Second)},
	}, got)
}

// A flood of keys beyond MaxClients does not grow the hash, over more
// than one batch of a script; the keys already kept still count.
func TestUsageMaxClients(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, sharedAddr(t))
	prefix := testPrefix(t)
	u := redisstore.NewUsage(c, prefix)
	u.MaxClients = 3
	t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, u.Add(ctx, []sunset.Client{{ConsumerKey: "a", Requests: 1, LastSeen: t0}}))
	flood := make([]sunset.Client, 1000)
	for i := range flood {
		flood[i] = sunset.Client{ConsumerKey: "flood-" + strconv.Itoa(i), Requests: 1, LastSeen: t0}
	}
	flood = append(flood, sunset.Client{ConsumerKey: "a", Requests: 2, LastSeen: t0}, sunset.Client{ConsumerKey: "", Requests: 9}, sunset.Client{ConsumerKey: "zero"})
	require.NoError(t, u.Add(ctx, flood))
	got, err := u.Clients(ctx)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, sunset.Client{ConsumerKey: "a", Requests: 3, LastSeen: t0}, got[0])
	n, err := c.HLen(ctx, prefix+"usage").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(9), n, "three fields for each of the three keys")
}

// When Redis is down, Add fails with ErrStoreUnavailable and Flush keeps
// the counts for the next Flush.
func TestUsageOutage(t *testing.T) {
	ctx := context.Background()
	srv := ownServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { c.Close() })
	shared := redisstore.NewUsage(c, testPrefix(t))
	var local sunset.Usage
	t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	local.Record("app-a", t0)
	srv.stop()
	err := local.Flush(ctx, shared.Add)
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
	_, err = shared.Clients(ctx)
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
	require.NoError(t, srv.start())
	require.NoError(t, local.Flush(ctx, shared.Add))
	got, err := shared.Clients(ctx)
	require.NoError(t, err)
	assert.Equal(t, []sunset.Client{{ConsumerKey: "app-a", Requests: 1, LastSeen: t0}}, got)
}
