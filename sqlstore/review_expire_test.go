package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestReviewExpireAhead: a Verifier reads its clock at T, then its Use
// waits a few seconds (behind SQLite's write lock, a row lock, a slow
// disk), while Expire runs on a clock a few seconds later: the same
// host's time.Now a moment after, or another instance's clock a little
// ahead. A replay sent in the last second of its window (the first use's
// expiry one second after T) must still be refused.
func TestReviewExpireAhead(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		const window = 5 * time.Minute
		ts := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		n := server.Nonce{ConsumerKey: "c", Token: "t", Value: "late", Timestamp: ts.Unix()}
		expires := ts.Add(window + time.Second) // as the Verifier records it
		s := sqlstore.NewNonceStore(db, "")
		fresh, err := s.Use(ctx, n, ts, expires)
		require.NoError(t, err)
		require.True(t, fresh)

		replayAt := ts.Add(window) // the Verifier still takes the timestamp
		for _, ahead := range []time.Duration{2 * time.Second, 10 * time.Second} {
			require.NoError(t, sqlstore.Expire(ctx, db, replayAt.Add(ahead)))
			fresh, err = s.Use(ctx, n, replayAt, expires)
			require.NoError(t, err)
			assert.False(t, fresh, "a replay in its window was fresh after an Expire %v ahead of the Verifier", ahead)
		}
	})
}
