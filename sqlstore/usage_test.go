package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/sunset"
	"github.com/countersign/countersign/sqlstore"
)

// TestUsageAcrossInstances counts requests on two instances, each with
// its own sunset.Usage and connection pool, flushes both at once, and
// reads the sums from either store.
func TestUsageAcrossInstances(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		tenant := rand.Text()
		t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
		var local [2]sunset.Usage
		shared := [2]*sqlstore.Usage{sqlstore.NewUsage(db, tenant), sqlstore.NewUsage(db, tenant)}
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
		local[1].RecordExchange("app-d", t0.Add(4*time.Second))

		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() { assert.NoError(t, local[i].Flush(ctx, shared[i].Add)) })
		}
		wg.Wait()
		want := []sunset.Client{
			{ConsumerKey: "app-a", Requests: 8, LastSeen: t0.Add(3 * time.Second)},
			{ConsumerKey: "app-c", Requests: 2, LastSeen: t0.Add(time.Second)},
			{ConsumerKey: "app-b", Requests: 1, Exchanges: 1, LastSeen: t0.Add(10 * time.Second)},
			{ConsumerKey: "app-d", Exchanges: 1, LastSeen: t0.Add(4 * time.Second)},
		}
		for _, s := range shared {
			got, err := s.Clients(ctx)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
		other, err := sqlstore.NewUsage(db, rand.Text()).Clients(ctx)
		require.NoError(t, err)
		assert.Empty(t, other, "another tenant's counts")
	})
}

// TestUsageMaxClients: keys past MaxClients are dropped, those kept go on
// counting.
func TestUsageMaxClients(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		u := sqlstore.NewUsage(db, rand.Text())
		u.MaxClients = 3
		t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
		var cs []sunset.Client
		for i := range 5 {
			cs = append(cs, sunset.Client{ConsumerKey: "app-" + strconv.Itoa(i), Requests: 1, LastSeen: t0})
		}
		require.NoError(t, u.Add(ctx, cs))
		require.NoError(t, u.Add(ctx, cs))
		got, err := u.Clients(ctx)
		require.NoError(t, err)
		require.Len(t, got, 3)
		for _, c := range got {
			assert.EqualValues(t, 2, c.Requests, c.ConsumerKey)
		}
	})
}
