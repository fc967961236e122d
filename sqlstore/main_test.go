package sqlstore_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/countersign/countersign/sqlstore"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// dialects runs f once for each dialect, on a new migrated database.
func dialects(t *testing.T, f func(t *testing.T, db *sql.DB)) {
	t.Run("SQLite", func(t *testing.T) { f(t, openSQLite(t, true)) })
	t.Run("PostgreSQL", func(t *testing.T) { f(t, openPostgres(t, true)) })
}

// openSQLite opens a new SQLite database in a temporary directory,
// migrated if migrate is set.
func openSQLite(t testing.TB, migrate bool) *sql.DB {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "oauth.db"), migrate)
}

// openPostgres opens a new database on the tests' PostgreSQL, migrated if
// migrate is set; it skips t when PostgreSQL cannot be started, as pgtest
// does.
func openPostgres(t testing.TB, migrate bool) *sql.DB {
	t.Helper()
	return open(t, pgtest.DSN(t), migrate)
}

func open(t testing.TB, dsn string, migrate bool) *sql.DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if migrate {
		if _, err := sqlstore.Migrate(ctx, db, false); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
