package sqlstore

// The security review's tests of Expire racing with NonceStore.Use on
// PostgreSQL: a nonce still in its window must never be dropped, or its
// replay is taken as fresh. An open transaction stands for a Use caught
// between its statements' steps, so that the race is decided, not hoped for.

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

// reviewPostgres opens a new migrated database on the tests' PostgreSQL.
func reviewPostgres(t *testing.T) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, pgtest.DSN(t))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = Migrate(ctx, db, false)
	require.NoError(t, err)
	return db
}

// useIn runs NonceStore.Use's statement for n in tx, as a Use whose
// transaction has not committed yet, and reports whether it was fresh.
func useIn(t *testing.T, tx *sql.Tx, n server.Nonce, now, expires time.Time) bool {
	t.Helper()
	var one int
	err := tx.QueryRow(useNonce, "", nonceID(n), n.Timestamp, ms(expires), ms(now)).Scan(&one)
	if err == sql.ErrNoRows {
		return false
	}
	require.NoError(t, err)
	return true
}

// TestReviewPartitionDropRace: Expire decides that an hour's partition
// holds no live nonce, then drops it; a nonce used between the two (its
// timestamp late in the hour, used a few seconds after the hour, well in
// its window) must survive, or its replay is fresh.
func TestReviewPartitionDropRace(t *testing.T) {
	db := reviewPostgres(t)
	ctx := context.Background()
	hour := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, Expire(ctx, db, hour)) // makes the partitions of 11:00 to 12:00 the next day
	// and that of 13:00 the next day, so that Expire at 13:00 has none to
	// make (making one waits for the table's lock).
	next := hour.Add(25 * time.Hour).Unix()
	_, err := db.ExecContext(ctx, fmt.Sprintf(`CREATE TABLE oauth1_nonces_p%d PARTITION OF oauth1_nonces FOR VALUES FROM (%d) TO (%d)`, next, next, next+3600))
	require.NoError(t, err)

	// At 13:00:10, a request stamped 12:59:59, in a 5-minute window: its
	// nonce lives until 13:05:00, in the partition of 12:00.
	now := hour.Add(time.Hour + 10*time.Second)
	n := server.Nonce{ConsumerKey: "ck", Token: "tok", Value: "late", Timestamp: hour.Add(time.Hour - time.Second).Unix()}
	expires := time.Unix(n.Timestamp, 0).Add(5*time.Minute + time.Second)

	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.True(t, useIn(t, tx, n, now, expires))
	done := make(chan error, 1)
	go func() { done <- Expire(ctx, db, now) }()
	time.Sleep(300 * time.Millisecond) // Expire has looked, and waits for the partition's lock
	require.NoError(t, tx.Commit())
	require.NoError(t, <-done)

	fresh, err := NewNonceStore(db, "").Use(ctx, n, now.Add(time.Second), expires)
	require.NoError(t, err)
	assert.False(t, fresh, "a nonce used at 13:00:10, in its window until 13:05:00, was fresh again after Expire dropped its partition")
}

// TestReviewDefaultDeleteRace: a nonce of the default partition expired,
// is used again (fresh, its expiry moved on) while Expire's DELETE, which
// read it as expired, waits for its row; the DELETE must then leave the
// row as it now is, live, or the nonce's next replay is fresh.
func TestReviewDefaultDeleteRace(t *testing.T) {
	db := reviewPostgres(t)
	ctx := context.Background()
	now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	// No partition made: every nonce is in the default one.
	n := server.Nonce{ConsumerKey: "ck", Token: "tok", Value: "again", Timestamp: now.Unix()}
	s := NewNonceStore(db, "")
	fresh, err := s.Use(ctx, n, now, now.Add(time.Minute))
	require.NoError(t, err)
	require.True(t, fresh)

	later := now.Add(2 * time.Minute) // expired: a Use now is fresh, until later+5m
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	require.True(t, useIn(t, tx, n, later, later.Add(5*time.Minute)))
	done := make(chan error, 1)
	go func() { done <- Expire(ctx, db, later) }()
	time.Sleep(300 * time.Millisecond) // the DELETE read the old row, and waits for its lock
	require.NoError(t, tx.Commit())
	require.NoError(t, <-done)

	fresh, err = s.Use(ctx, n, later.Add(time.Second), later.Add(5*time.Minute))
	require.NoError(t, err)
	assert.False(t, fresh, "the nonce used again at 12:02 (live until 12:07) was dropped by the Expire that raced it")
}

// TestReviewExpireClaimRace: an exchange record past its keep is claimed
// again while Expire's DELETE, which read it as due, waits for its row;
// the fresh claim must survive, or a second Handler claims the same grant
// at once.
func TestReviewExpireClaimRace(t *testing.T) {
	db := reviewPostgres(t)
	ctx := context.Background()
	now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	s := NewExchangeStore(db, "")
	c, err := s.Claim(ctx, "tok", "first", time.Second, now)
	require.NoError(t, err)
	require.Equal(t, tokenexchange.Claimed, c.State)

	later := now.Add(time.Minute) // the first claim's lease has passed
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	var one int
	require.NoError(t, tx.QueryRow(claimExchange, "", "tok", "second", ms(later.Add(time.Minute)), ms(later)).Scan(&one))
	done := make(chan error, 1)
	go func() { done <- Expire(ctx, db, later) }()
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, tx.Commit())
	require.NoError(t, <-done)

	c, err = s.Claim(ctx, "tok", "third", time.Minute, later.Add(time.Second))
	require.NoError(t, err)
	assert.Equal(t, tokenexchange.Busy, c.State, "the second claim, held until 12:02, was dropped by the Expire that raced it")
}
