package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"

	"github.com/countersign/countersign/oauth1/server"
)

// dialect is the SQL a database speaks.
type dialect int

const (
	sqlite dialect = iota + 1
	postgres
)

// dialectOf tells the dialect of db by its driver: any driver whose type
// names SQLite speaks SQLite's, any other PostgreSQL's.
func dialectOf(db *sql.DB) dialect {
	if strings.Contains(strings.ToLower(fmt.Sprintf("%T", db.Driver())), "sqlite") {
		return sqlite
	}
	return postgres
}

// isPostgres reports whether dsn names a PostgreSQL database.
func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqlitePragmas are set on every connection Open makes to SQLite, unless
// the DSN sets them itself: write-ahead logging, so that readers do not
// wait for the writer; a writer waits up to 10 s for the lock rather than
// fail; a commit is synced at checkpoints, not each time (see Durability
// in the package documentation).
var sqlitePragmas = []struct{ name, value string }{
	{"journal_mode", "WAL"},
	{"busy_timeout", "10000"},
	{"synchronous", "NORMAL"},
	{"foreign_keys", "ON"},
}

// Open opens the database dsn names: PostgreSQL for a URL that starts
// with postgres:// or postgresql:// (through pgx), and otherwise SQLite,
// dsn being a file's path (created if missing, readable and writable by
// its owner only) or a "file:" URI. SQLite is set to write-ahead logging,
// a busy timeout of 10 s and synchronous=NORMAL, unless a "file:" URI sets them with _pragma
// parameters (such as _pragma=synchronous(FULL)); transactions begin
// IMMEDIATE. Open checks that the database answers, and does not change
// its schema: call [Migrate] for that.
func Open(ctx context.Context, dsn string) (*sql.DB, error) {
	driver, source := "sqlite", dsn
	if isPostgres(dsn) {
		driver = "pgx"
	} else {
		s, err := sqliteDSN(dsn)
		if err != nil {
			return nil, err
		}
		source = s
		createPrivate(dsn)
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: opening the database: %w", err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlstore: opening the database: %w: %w", server.ErrStoreUnavailable, err)
	}
	return db, nil
}

// sqliteDSN returns the modernc.org/sqlite data source for dsn, a path or
// a "file:" URI, with the default pragmas it does not set.
func sqliteDSN(dsn string) (string, error) {
	if dsn == "" {
		return "", errors.New("sqlstore: Open: empty DSN")
	}
	var path string
	q := url.Values{}
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		p, query, _ := strings.Cut(rest, "?")
		v, err := url.ParseQuery(query)
		if err != nil {
			return "", fmt.Errorf("sqlstore: Open: the query of the SQLite URI: %w", err)
		}
		path, q = p, v
	} else {
		path = dsn
	}
	set := strings.Join(q["_pragma"], ",")
	for _, p := range sqlitePragmas {
		if !strings.Contains(strings.ToLower(set), p.name) {
			q.Add("_pragma", p.name+"("+p.value+")")
		}
	}
	if q.Get("_txlock") == "" {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode(), nil
}

// createPrivate creates the SQLite file dsn names, if it does not exist,
// readable and writable by its owner only: it holds the token secrets and
// verification codes, and the consumer secrets unless sealed. SQLite gives
// the -wal and -shm files the database's mode. An existing file keeps its
// mode; an error is left for Open to meet.
func createPrivate(dsn string) {
	path := dsn
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		p, query, _ := strings.Cut(rest, "?")
		if v, _ := url.ParseQuery(query); v.Get("mode") == "memory" {
			return
		}
		path = p
	}
	if path == "" || path == ":memory:" {
		return
	}
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	}
}

// storeError wraps err, from the database, in what the store was doing
// and [server.ErrStoreUnavailable]: the Verifier and the Provider answer
// 503 with Retry-After, never a guess. An error of a done ctx wraps ctx's
// error too.
func storeError(ctx context.Context, doing string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("sqlstore: %s: %w: %w: %w", doing, server.ErrStoreUnavailable, cerr, err)
	}
	return fmt.Errorf("sqlstore: %s: %w: %w", doing, server.ErrStoreUnavailable, err)
}

// storable reports whether s can be a key in both dialects: PostgreSQL's
// text holds neither NUL nor bytes that are not UTF-8. A key that cannot
// be stored is unknown.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// ms returns t in Unix milliseconds, the stores' unit of time.
func ms(t time.Time) int64 { return t.UnixMilli() }

// q rewrites query, written with PostgreSQL's $n placeholders and
// "LIMIT ALL", for d.
func (d dialect) q(query string) string {
	if d == sqlite {
		return strings.ReplaceAll(query, "LIMIT ALL", "LIMIT -1")
	}
	return query
}
