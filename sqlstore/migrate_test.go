package sqlstore_test

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestMigrate: a dry run on an empty database lists every migration and
// changes nothing; Migrate applies them, records each, and a second
// Migrate applies none.
func TestMigrate(t *testing.T) {
	for name, openEmpty := range map[string]func(testing.TB, bool) *sql.DB{"SQLite": openSQLite, "PostgreSQL": openPostgres} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openEmpty(t, false)
			dry, err := sqlstore.Migrate(ctx, db, true)
			require.NoError(t, err)
			require.NotEmpty(t, dry)
			for i, m := range dry {
				assert.Equal(t, i+1, m.Version)
				assert.Contains(t, m.SQL, "CREATE TABLE", m.Name)
			}
			var exists bool
			err = db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM oauth1_nonces`).Scan(&exists)
			assert.Error(t, err, "a dry run created the nonce table")

			applied, err := sqlstore.Migrate(ctx, db, false)
			require.NoError(t, err)
			assert.Equal(t, dry, applied)
			var n int
			require.NoError(t, db.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_schema_migrations`).Scan(&n))
			assert.Equal(t, len(applied), n)

			again, err := sqlstore.Migrate(ctx, db, false)
			require.NoError(t, err)
			assert.Empty(t, again)
			dry, err = sqlstore.Migrate(ctx, db, true)
			require.NoError(t, err)
			assert.Empty(t, dry)
		})
	}
}

// TestMigrateConcurrent: 4 processes migrating one database at once apply
// each migration once, without an error.
func TestMigrateConcurrent(t *testing.T) {
	for name, openEmpty := range map[string]func(testing.TB, bool) *sql.DB{"SQLite": openSQLite, "PostgreSQL": openPostgres} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openEmpty(t, false)
			var mu sync.Mutex
			total := 0
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					applied, err := sqlstore.Migrate(ctx, db, false)
					assert.NoError(t, err)
					mu.Lock()
					total += len(applied)
					mu.Unlock()
				})
			}
			wg.Wait()
			all, err := sqlstore.Migrate(ctx, openEmpty(t, false), true)
			require.NoError(t, err)
			assert.Equal(t, len(all), total, "migrations applied in all")
		})
	}
}

// TestMigrateUpgrade: a database at version 1 (credentials only), with
// credentials in it, is upgraded to the last version, and what it held
// still works.
func TestMigrateUpgrade(t *testing.T) {
	for name, openEmpty := range map[string]func(testing.TB, bool) *sql.DB{"SQLite": openSQLite, "PostgreSQL": openPostgres} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openEmpty(t, false)
			applied, err := sqlstore.MigrateTo(ctx, db, false, 1)
			require.NoError(t, err)
			require.Len(t, applied, 1)
			now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
			tokens := sqlstore.NewTokenStore(db, "")
			tok := server.TokenCredentials{Token: "tok", Secret: "sec", ConsumerKey: "app", User: "alice", Scope: "read"}
			require.NoError(t, tokens.PutToken(ctx, tok, now))
			n := server.Nonce{ConsumerKey: "app", Value: "n1", Timestamp: now.Unix()}
			fresh, err := sqlstore.NewNonceStore(db, "").Use(ctx, n, now, now.Add(5*time.Minute))
			require.NoError(t, err)
			require.True(t, fresh)
			_, err = sqlstore.NewConsumerStore(db, "", nil)
			require.NoError(t, err)
			_, err = db.ExecContext(ctx, `SELECT 1 FROM oauth1_consumers`)
			require.Error(t, err, "version 1 has no consumers")

			applied, err = sqlstore.Migrate(ctx, db, false)
			require.NoError(t, err)
			require.NotEmpty(t, applied)
			assert.Equal(t, 2, applied[0].Version)

			got, err := tokens.Token(ctx, "tok", now)
			require.NoError(t, err)
			assert.Equal(t, tok, got)
			fresh, err = sqlstore.NewNonceStore(db, "").Use(ctx, n, now, now.Add(5*time.Minute))
			require.NoError(t, err)
			assert.False(t, fresh, "a nonce used before the upgrade, replayed after it")
			consumers, err := sqlstore.NewConsumerStore(db, "", nil)
			require.NoError(t, err)
			require.NoError(t, consumers.PutConsumer(ctx, "app", server.Registration{Secret: "s"}))
		})
	}
}

// TestMigrateNewer: a schema newer than the package's is refused.
func TestMigrateNewer(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t, true)
	_, err := db.ExecContext(ctx, `INSERT INTO oauth1_schema_migrations (version, name, applied_at) VALUES (999, '0999_future.sql', 'x')`)
	require.NoError(t, err)
	_, err = sqlstore.Migrate(ctx, db, true)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "newer"), err.Error())
}
