package sqlstore_test

import (
	"context"
	"database/sql"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestOpenKeepsConnections sends 64 clients' nonce checks at once, in 20
// bursts, as a busy provider sees them, through the pool Open returns,
// and fails if the pool closes its connections after a burst only to open
// them again for the next:
// database/sql keeps 2 idle connections unless told otherwise, so each
// check past the second that returns its connection closes it, and the
// next opens one anew (on SQLite, opening the file and setting its
// pragmas; on PostgreSQL, a server process of its own, its login and its
// caches). The simulated year measured that churn as most of its CPU:
// 3.8 ms of PostgreSQL's CPU a request, where a pool that keeps its
// connections took a tenth of that.
func TestOpenKeepsConnections(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		s := sqlstore.NewNonceStore(db, "pool")
		ctx := context.Background()
		now := time.Now()
		const bursts, clients, each = 20, 64, 5
		for b := range bursts {
			var wg sync.WaitGroup
			for c := range clients {
				wg.Go(func() {
					for i := range each {
						n := server.Nonce{ConsumerKey: "client " + strconv.Itoa(c), Value: strconv.Itoa(b*each + i), Timestamp: now.Unix()}
						if fresh, err := s.Use(ctx, n, now, now.Add(5*time.Minute)); err != nil || !fresh {
							t.Errorf("Use: %v, %v", fresh, err)
							return
						}
					}
				})
			}
			wg.Wait()
		}
		st := db.Stats()
		t.Logf("%d bursts of %d checks: %d connections closed as idle past the pool's bound, %d waits for a connection, %d open",
			bursts, clients*each, st.MaxIdleClosed, st.WaitCount, st.OpenConnections)
		if st.MaxIdleClosed > clients {
			t.Errorf("the pool closed %d connections after use, to open them again for the next burst (%d bursts of %d clients): set its idle connections (sql.DB.SetMaxIdleConns) to the connections it may open",
				st.MaxIdleClosed, bursts, clients)
		}
	})
}
