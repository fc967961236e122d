package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// count returns the rows of table.
func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM `+table).Scan(&n))
	return n
}

// TestExpire: Expire drops what expired by the clock it is passed, and
// nothing else: an unexpired nonce is still refused as a replay after it,
// a revocation is remembered for 24 hours.
func TestExpire(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 30, 0, 0, time.UTC)
		tenant := rand.Text()
		nonces := sqlstore.NewNonceStore(db, tenant)
		old := server.Nonce{ConsumerKey: "c", Value: "old", Timestamp: now.Unix()}
		young := server.Nonce{ConsumerKey: "c", Value: "young", Timestamp: now.Add(4 * time.Minute).Unix()}
		fresh, err := nonces.Use(ctx, old, now, now.Add(5*time.Minute))
		require.NoError(t, err)
		require.True(t, fresh)
		fresh, err = nonces.Use(ctx, young, now.Add(4*time.Minute), now.Add(9*time.Minute))
		require.NoError(t, err)
		require.True(t, fresh)

		temps := sqlstore.NewTemporaryStore(db, tenant)
		require.NoError(t, temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "t1", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(5 * time.Minute)}, now))
		require.NoError(t, temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "t2", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(10 * time.Minute)}, now))

		tokens := sqlstore.NewTokenStore(db, tenant)
		require.NoError(t, tokens.PutToken(ctx, server.TokenCredentials{Token: "k1", Secret: "s", ConsumerKey: "c", User: "u"}, now))
		require.NoError(t, tokens.Revoke(ctx, "k1", now))

		later := now.Add(6 * time.Minute)
		require.NoError(t, sqlstore.Expire(ctx, db, later))
		assert.Equal(t, 1, count(t, db, "oauth1_nonces"), "nonces after Expire")
		fresh, err = nonces.Use(ctx, young, later, now.Add(9*time.Minute))
		require.NoError(t, err)
		assert.False(t, fresh, "the unexpired nonce, replayed after Expire")
		assert.Equal(t, 1, count(t, db, "oauth1_temporary"), "temporary credentials after Expire")
		_, err = temps.Temporary(ctx, "t2", later)
		assert.NoError(t, err)
		_, err = tokens.Token(ctx, "k1", later)
		assert.ErrorIs(t, err, server.ErrTokenRevoked, "a revocation an hour old, after Expire")

		day := now.Add(25 * time.Hour)
		require.NoError(t, sqlstore.Expire(ctx, db, day))
		assert.Equal(t, 0, count(t, db, "oauth1_nonces"))
		assert.Equal(t, 0, count(t, db, "oauth1_temporary"))
		assert.Equal(t, 0, count(t, db, "oauth1_tokens"), "revocations after 25 hours")
	})
}

// TestExpireBatches: Expire drops more rows than one batch holds.
func TestExpireBatches(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 30, 0, 0, time.UTC)
		// Timestamps of 2001: no partition holds them on PostgreSQL.
		_, err := db.ExecContext(ctx, `INSERT INTO oauth1_nonces (tenant, id, ts, expires)
SELECT 'x', CAST(CAST(i AS TEXT) AS BLOB), 1000000000, 1 FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000) SELECT i FROM n) AS s`)
		if err != nil {
			// PostgreSQL spells the cast to bytea otherwise.
			_, err = db.ExecContext(ctx, `INSERT INTO oauth1_nonces (tenant, id, ts, expires)
SELECT 'x', convert_to(i::text, 'UTF8'), 1000000000, 1 FROM generate_series(1, 12000) AS i`)
		}
		require.NoError(t, err)
		require.Equal(t, 12000, count(t, db, "oauth1_nonces"))
		require.NoError(t, sqlstore.Expire(ctx, db, now))
		assert.Equal(t, 0, count(t, db, "oauth1_nonces"))
	})
}

// TestExpirePartitions: on PostgreSQL, Expire makes the nonce partitions
// of the next 24 hours, nonces land in their hour's, and a partition is
// dropped once its hour passed and its nonces expired.
func TestExpirePartitions(t *testing.T) {
	db := openPostgres(t, true)
	ctx := context.Background()
	parts := func() []string {
		rows, err := db.QueryContext(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'oauth1_nonces'::regclass ORDER BY 1`)
		require.NoError(t, err)
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	now := time.Date(2026, time.March, 1, 12, 30, 0, 0, time.UTC)
	require.NoError(t, sqlstore.Expire(ctx, db, now))
	got := parts()
	assert.Len(t, got, 27, "default, the last hour, this one and 24 ahead: %v", got)
	assert.Contains(t, got, "oauth1_nonces_p1772366400") // 12:00 UTC

	n := server.Nonce{ConsumerKey: "c", Value: "v", Timestamp: now.Unix()}
	fresh, err := sqlstore.NewNonceStore(db, "").Use(ctx, n, now, now.Add(5*time.Minute))
	require.NoError(t, err)
	require.True(t, fresh)
	assert.Equal(t, 1, count(t, db, "oauth1_nonces_p1772366400"), "the nonce in its hour's partition")
	assert.Equal(t, 0, count(t, db, "oauth1_nonces_default"))

	// A nonce of 12:59 that expires at 13:04.
	late := server.Nonce{ConsumerKey: "c", Value: "late", Timestamp: now.Add(29 * time.Minute).Unix()}
	fresh, err = sqlstore.NewNonceStore(db, "").Use(ctx, late, now.Add(29*time.Minute), now.Add(34*time.Minute))
	require.NoError(t, err)
	require.True(t, fresh)

	require.NoError(t, sqlstore.Expire(ctx, db, now.Add(10*time.Minute)))
	assert.Contains(t, parts(), "oauth1_nonces_p1772366400", "the partition of 12:00 at 12:40")
	assert.Equal(t, 2, count(t, db, "oauth1_nonces_p1772366400"), "nonces of 12:00 to 13:00 at 12:40: a partition is dropped whole")
	require.NoError(t, sqlstore.Expire(ctx, db, now.Add(32*time.Minute)))
	assert.Contains(t, parts(), "oauth1_nonces_p1772366400", "the partition of 12:00 at 13:02, a nonce unexpired")
	require.NoError(t, sqlstore.Expire(ctx, db, now.Add(35*time.Minute)))
	assert.NotContains(t, parts(), "oauth1_nonces_p1772366400", "the partition of 12:00 at 13:05")
}

// TestExpireBeforePartitions: nonces used before Expire ever ran are in
// the default partition; Expire then cannot make their hour's partition,
// says nothing of it, makes the others, and the nonces stay refused as
// replays until they expire.
func TestExpireBeforePartitions(t *testing.T) {
	db := openPostgres(t, true)
	ctx := context.Background()
	now := time.Date(2026, time.March, 1, 12, 30, 0, 0, time.UTC)
	nonces := sqlstore.NewNonceStore(db, "")
	n := server.Nonce{ConsumerKey: "c", Value: "early", Timestamp: now.Unix()}
	fresh, err := nonces.Use(ctx, n, now, now.Add(5*time.Minute))
	require.NoError(t, err)
	require.True(t, fresh)
	require.NoError(t, sqlstore.Expire(ctx, db, now.Add(time.Minute)))
	assert.Equal(t, 1, count(t, db, "oauth1_nonces_default"))
	var parts int
	require.NoError(t, db.QueryRow(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'oauth1_nonces'::regclass`).Scan(&parts))
	assert.Equal(t, 26, parts, "every partition but that of 12:00, and the default")
	fresh, err = nonces.Use(ctx, n, now.Add(time.Minute), now.Add(5*time.Minute))
	require.NoError(t, err)
	assert.False(t, fresh, "the nonce in the default partition, replayed")
	require.NoError(t, sqlstore.Expire(ctx, db, now.Add(6*time.Minute)))
	assert.Equal(t, 0, count(t, db, "oauth1_nonces_default"))
}
