package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrations embed.FS

// A Migration is one version of the schema: the SQL that brings the
// schema of the version before to this one.
type Migration struct {
	Version int    // 1, 2, …: applied in order, each once
	Name    string // the file's, such as "0001_credentials.sql"
	SQL     string
}

// schemaTable records the migrations applied, one row a version.
const schemaTable = `CREATE TABLE IF NOT EXISTS oauth1_schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT    NOT NULL,
	applied_at TEXT    NOT NULL
)`

// migrationsOf returns every migration of d, in order.
func migrationsOf(d dialect) ([]Migration, error) {
	dir := "migrations/sqlite"
	if d == postgres {
		dir = "migrations/postgres"
	}
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(out)+1 || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("sqlstore: migration %s is out of sequence", e.Name())
		}
		b, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: e.Name(), SQL: string(b)})
	}
	return out, nil
}

// Migrate brings the schema of db to the version this package needs, and
// returns the migrations it applied; with dryRun, it changes nothing and
// returns those it would apply, whose SQL a DBA may run instead (then
// record each in oauth1_schema_migrations as Migrate does: version, name and the
// time as text). Each migration runs in a transaction of its own with its
// row in oauth1_schema_migrations, so that it is applied whole or not at all;
// Migrate run by several processes at once applies each once (PostgreSQL:
// under an advisory lock; SQLite: in an IMMEDIATE transaction). A
// database whose schema is newer than this package's is an error, not a
// downgrade.
func Migrate(ctx context.Context, db *sql.DB, dryRun bool) ([]Migration, error) {
	return migrateTo(ctx, db, dryRun, 0)
}

// migrateTo migrates db up to version upTo, or to the last if upTo is 0.
func migrateTo(ctx context.Context, db *sql.DB, dryRun bool, upTo int) ([]Migration, error) {
	d := dialectOf(db)
	all, err := migrationsOf(d)
	if err != nil {
		return nil, err
	}
	if upTo == 0 {
		upTo = len(all)
	}
	current, err := schemaVersion(ctx, db)
	if err != nil {
		return nil, err
	}
	if current > len(all) {
		return nil, fmt.Errorf("sqlstore: the schema is at version %d, newer than this package's %d: upgrade the package", current, len(all))
	}
	pending := all[min(current, upTo):upTo]
	if dryRun || len(pending) == 0 {
		return pending, nil
	}
	if err := createSchemaTable(ctx, db, d); err != nil {
		return nil, storeError(ctx, "creating oauth1_schema_migrations", err)
	}
	var applied []Migration
	for _, m := range pending {
		done, err := apply(ctx, db, d, m)
		if err != nil {
			return applied, err
		}
		if done {
			applied = append(applied, m)
		}
	}
	return applied, nil
}

// createSchemaTable creates oauth1_schema_migrations if it is missing; on
// PostgreSQL under the migrations' lock, since concurrent CREATE TABLE IF
// NOT EXISTS may fail there.
func createSchemaTable(ctx context.Context, db *sql.DB, d dialect) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if d == postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, schemaTable); err != nil {
		return err
	}
	return tx.Commit()
}

// schemaVersion returns the last version applied to db, 0 for none.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	probe := `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'oauth1_schema_migrations')`
	if dialectOf(db) == postgres {
		probe = `SELECT to_regclass('oauth1_schema_migrations') IS NOT NULL`
	}
	var exists bool
	if err := db.QueryRowContext(ctx, probe).Scan(&exists); err != nil {
		return 0, storeError(ctx, "reading the schema version", err)
	}
	if !exists {
		return 0, nil
	}
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, `SELECT max(version) FROM oauth1_schema_migrations`).Scan(&v); err != nil {
		return 0, storeError(ctx, "reading the schema version", err)
	}
	return int(v.Int64), nil
}

// migrationLock is the key of the advisory lock Migrate holds on
// PostgreSQL: "oauth1sm" in ASCII.
const migrationLock = 0x6f61757468_31736d

// apply applies m in a transaction, unless another process applied it
// meanwhile, and reports whether it did.
func apply(ctx context.Context, db *sql.DB, d dialect, m Migration) (applied bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, storeError(ctx, "beginning migration "+m.Name, err)
	}
	defer func() {
		if err != nil || !applied {
			tx.Rollback()
		}
	}()
	if d == postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
			return false, storeError(ctx, "locking for migration "+m.Name, err)
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_schema_migrations WHERE version = $1`, m.Version).Scan(&n); err != nil {
		return false, storeError(ctx, "reading the schema version", err)
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("sqlstore: migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO oauth1_schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
		m.Version, m.Name, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return false, storeError(ctx, "recording migration "+m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, storeError(ctx, "committing migration "+m.Name, err)
	}
	return true, nil
}
