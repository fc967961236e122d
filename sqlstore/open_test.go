package sqlstore_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/sqlstore"
)

// TestOpenSQLite: every connection Open makes has WAL, the busy timeout
// and synchronous=NORMAL, unless a file: URI sets its own.
func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		dsn  string
		sync int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{filepath.Join(dir, "a.db"), 1},
		{filepath.Join(dir, "with space & ?.db"), 1},
		{"file:" + filepath.Join(dir, "b.db") + "?_pragma=synchronous(FULL)", 2},
	} {
		db, err := sqlstore.Open(ctx, c.dsn)
		require.NoError(t, err, c.dsn)
		db.SetMaxOpenConns(3)
		// Hold two connections, so that a third is made.
		var conns []*sql.Conn
		for range 3 {
			conn, err := db.Conn(ctx)
			require.NoError(t, err)
			var mode string
			var sync, timeout int
			require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode))
			require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync))
			require.NoError(t, conn.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout))
			assert.Equal(t, "wal", mode, c.dsn)
			assert.Equal(t, c.sync, sync, c.dsn)
			assert.Equal(t, 10000, timeout, c.dsn)
			conns = append(conns, conn)
		}
		for _, conn := range conns {
			conn.Close()
		}
		db.Close()
	}
	_, err := os.Stat(filepath.Join(dir, "with space & ?.db"))
	assert.NoError(t, err, "the file of a path with a space, & and ?")
	_, err = sqlstore.Open(ctx, "")
	assert.Error(t, err, "an empty DSN")
}
