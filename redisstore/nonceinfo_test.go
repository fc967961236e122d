package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// infoCalls returns how many INFO commands rdb's server has run, scripts'
// included, from INFO commandstats (which counts itself once run).
func infoCalls(t *testing.T, rdb *redis.Client) int64 {
	t.Helper()
	stats, err := rdb.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for line := range strings.Lines(stats) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_info:calls="); ok {
			n, err := strconv.ParseInt(v[:strings.IndexByte(v, ',')], 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no cmdstat_info in INFO commandstats: %q", stats)
	return 0
}

// TestNonceStoreReadsFreeMemoryPerInterval checks that a client over the
// fair-refusal floor (256 nonces) does not cost an INFO memory on each
// request, only one every 100 ms at most: 2,000 requests of such a client,
// accepted and then refused as over its fair share, run a handful of INFO
// commands, not 2,000. (Before, each one ran INFO memory: +50–70% of
// Redis's CPU a request.)
func TestNonceStoreReadsFreeMemoryPerInterval(t *testing.T) {
	ctx := context.Background()
	srv := ownServer(t)
	rdb := newClient(t, srv.addr())
	store := redisstore.NewNonceStore(rdb, testPrefix(t))
	now := time.Now()
	use := func(i int) error {
		_, err := store.Use(ctx, server.Nonce{ConsumerKey: "busy", Value: strconv.Itoa(i), Timestamp: now.Unix()}, now, now.Add(5*time.Minute))
		return err
	}
	for i := range 256 { // up to the floor: no INFO at all
		require.NoError(t, use(i))
	}
	// Room for about 1,900 nonces below three quarters of maxmemory: the
	// client may take about 1,000 more, so that its requests are first
	// accepted and then refused as over its fair share.
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", fmt.Sprint((usedMemory(t, rdb)+280_000)*4/3)).Err())
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err())
	before := infoCalls(t, rdb)
	start := time.Now()
	const n = 2000
	accepted, full := 0, 0
	for i := 256; i < 256+n; i++ {
		switch err := use(i); {
		case err == nil:
			accepted++
		case assert.ErrorIs(t, err, server.ErrStoreFull, "nonce %d", i):
			full++
		default:
			return
		}
	}
	elapsed := time.Since(start)
	calls := infoCalls(t, rdb) - before - 1 // less the INFO commandstats above
	t.Logf("%d requests over the floor in %v (%d accepted, %d refused as over the fair share): %d INFO commands", n, elapsed, accepted, full, calls)
	assert.Positive(t, accepted, "requests over the floor accepted")
	assert.Positive(t, full, "requests refused as over the fair share")
	assert.LessOrEqual(t, calls, int64(elapsed/(100*time.Millisecond))+2, "INFO commands for %d requests in %v: one in 100 ms at most", n, elapsed)
}
