package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestLockedDeadline: while another connection holds the write lock (a
// long transaction, a migration), Use waits no longer than its context
// allows, and then fails with an error wrapping ErrStoreUnavailable and
// the context's, never reporting the nonce fresh.
func TestLockedDeadline(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		// Lock the nonce table (PostgreSQL) or the database (SQLite).
		tx, err := db.BeginTx(ctx, nil)
		require.NoError(t, err)
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `LOCK TABLE oauth1_nonces IN EXCLUSIVE MODE`); err != nil {
			// SQLite has no LOCK TABLE; its IMMEDIATE transaction holds
			// the write lock once it writes.
			tx.Rollback()
			tx, err = db.BeginTx(ctx, nil)
			require.NoError(t, err)
			_, err = tx.ExecContext(ctx, `DELETE FROM oauth1_nonces WHERE tenant = 'nobody'`)
			require.NoError(t, err)
		}
		now := time.Now()
		n := server.Nonce{ConsumerKey: "c", Value: "v", Timestamp: now.Unix()}
		dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		fresh, err := sqlstore.NewNonceStore(db, "").Use(dctx, n, now, now.Add(time.Minute))
		took := time.Since(start)
		assert.False(t, fresh)
		assert.ErrorIs(t, err, server.ErrStoreUnavailable)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), "error %v, want one wrapping the deadline", err)
		assert.Less(t, took, 2*time.Second, "Use under a lock, with a deadline of 300 ms")
		t.Logf("Use under a lock returned after %v: %v", took.Round(time.Millisecond), err)
	})
}
