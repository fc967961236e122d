package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/internal/yearsim"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestSimulatedYear is the year of a multi-tenant provider that
// redisstore's TestSimulatedYear runs in memory and on Redis (package
// internal/yearsim says what it does and what fails it: an honest request
// refused, a replay or a revoked token accepted, an approval lost), on
// SQLite and on PostgreSQL. Each tenant's nonce, temporary and token
// stores are in one database under the tenant's name, in a pool of 16
// connections; sqlstore.Expire runs as an operator runs it, apart from the
// requests: on a goroutine of its own each time the simulated clock passes
// into a new minute, and once between days (see expirer); on PostgreSQL,
// VACUUM runs between days, as autovacuum would have in a real day. It
// runs only when COUNTERSIGN_YEAR=1 (.ci/run sets it, with
// COUNTERSIGN_REQUIRE_POSTGRES=1):
//
//	cd sqlstore && COUNTERSIGN_YEAR=1 go test -count 1 -timeout 30m -run '^TestSimulatedYear$' -v .
//
// (COUNTERSIGN_YEAR_DAYS=n runs the year's first n days, for a quick
// look.) Each store costs more a request than memory or Redis, so the
// year is scaled to fit CI: a quarter of the users and of the daily API
// calls on SQLite, an eighth on PostgreSQL (Backend.Scale; the launches,
// revocations and big's heavy user as in the whole year), and a flood of
// 16,384 requests a flooding client on SQLite, 4,096 on PostgreSQL.
//
// Measured (2026-12, 2 cores shared with other work, load 2 to 18, four
// or five runs): SQLite 212,806 requests in 74 to 171 s, 43 to 60
// CPU-seconds (about 250 µs a request); PostgreSQL 104,961 requests in 94
// to 193 s, 30 to 39 CPU-seconds in the process and 95 to 117 in postgres
// (1.3 ms a request, much of it Expire's partition DDL, which a year
// compressed into minutes runs 100,000 times as often, for its traffic,
// as a real year does); no refusal, replay or lost approval on either.
//
// The database's size is measured every 30 days and after the year:
// SQLite's file and its write-ahead log after a checkpoint (TRUNCATE),
// PostgreSQL's pg_database_size; past yearSQLiteBound or yearPostgresBound
// it fails the run. SQLite's file keeps its largest size (freed pages are
// reused, not returned): 5.7 MiB, from day 180's flood (49,152 nonces in
// one window) and 28,478 token credentials. PostgreSQL's is 7.5 MiB of
// catalogs in an empty database, the token credentials (3.0 MiB for
// 14,754, with their indexes) and a window's nonces: 11.9 MiB after the
// year, 12.4 and 13.9 at most. SQLite's write-ahead log is bounded
// apart, by yearSQLiteLogBound, measured before each checkpoint.
func TestSimulatedYear(t *testing.T) {
	if os.Getenv("COUNTERSIGN_YEAR") != "1" {
		t.Skip("a simulated year of a provider on SQLite and on PostgreSQL: set COUNTERSIGN_YEAR=1 to run it (.ci/run does)")
	}
	days, _ := strconv.Atoi(os.Getenv("COUNTERSIGN_YEAR_DAYS"))
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "year.db")
		db := open(t, path, true)
		sqlYear(t, db, yearsim.Backend{
			Name:      "SQLite",
			Scale:     yearSQLiteScale,
			Flood:     yearSQLiteFlood,
			Days:      days,
			Size:      func() int64 { return sqliteSize(t, db, path) },
			SizeName:  "database file and log",
			SizeBound: yearSQLiteBound,
		}, false)
		var pages, free, pageSize int64
		db.QueryRow(`PRAGMA page_count`).Scan(&pages)
		db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
		db.QueryRow(`PRAGMA freelist_count`).Scan(&free)
		t.Logf("SQLite: %d pages, %d of them free (reused as the tables grow); the log's file at most %.1f MiB before a checkpoint",
			pages, free, float64(sqliteLog)/(1<<20))
		if sqliteLog > yearSQLiteLogBound {
			t.Errorf("SQLite's write-ahead log grew to %.1f MiB (bound %d MiB) for a database of %.1f MiB: under load without a pause some connection always reads from the log, so it is never reset; a wal_checkpoint(TRUNCATE) after each Expire kept it under 6 MiB",
				float64(sqliteLog)/(1<<20), yearSQLiteLogBound>>20, float64(pages*pageSize)/(1<<20))
		}
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		db := openPostgres(t, true)
		pid := postmaster(t, db)
		defer postgresSpace(t, db)
		sqlYear(t, db, yearsim.Backend{
			Name:       "PostgreSQL",
			Scale:      yearPostgresScale,
			Flood:      yearPostgresFlood,
			Days:       days,
			Size:       func() int64 { return postgresSize(t, db) },
			SizeName:   "pg_database_size",
			SizeBound:  yearPostgresBound,
			ServerCPU:  func() time.Duration { return serverCPU(pid) },
			ServerName: "postgres",
		}, true)
	})
}

const (
	yearSQLiteScale   = 4
	yearPostgresScale = 8
	// yearConns is the connections each run's pool keeps.
	yearConns = 16
	// The bounds on the databases' size, at the scales above: about
	// twice what the year measured past an empty database.
	yearSQLiteBound   = 16 << 20
	yearPostgresBound = 24 << 20
	// yearSQLiteLogBound is the most disk SQLite's write-ahead log may
	// take between the measures (the log's file keeps its largest size
	// until a checkpoint truncates it): 503 MiB measured when nothing
	// checkpoints it but SQLite's own automatic checkpoints, 5.2 MiB with
	// a wal_checkpoint(TRUNCATE) after each Expire.
	yearSQLiteLogBound = 64 << 20
	// yearSQLiteFlood and yearPostgresFlood are each flooding client's
	// requests: a NonceStore bounds no client's share, so a flood only
	// checks that it disturbs no one.
	yearSQLiteFlood   = 1 << 14
	yearPostgresFlood = 1 << 12
)

// sqlYear runs the year on db, with be's measures, and Expire beside it;
// postgres has it VACUUM between days too.
func sqlYear(t *testing.T, db *sql.DB, be yearsim.Backend, postgres bool) {
	// As an operator sets the pool: Open leaves database/sql's 2 idle
	// connections (TestOpenKeepsConnections).
	db.SetMaxOpenConns(yearConns)
	db.SetMaxIdleConns(yearConns)
	be.Stores = func(tenant string) (server.TemporaryStore, server.TokenStore, server.NonceStore) {
		return sqlstore.NewTemporaryStore(db, tenant), sqlstore.NewTokenStore(db, tenant), sqlstore.NewNonceStore(db, tenant)
	}
	ex := &expirer{t: t, db: db, postgres: postgres}
	be.Start = ex.start
	be.NewDay = ex.newDay
	// Measured with no Expire under way: a checkpoint of SQLite's log
	// cannot finish while another connection reads from it.
	size := be.Size
	be.Size = func() int64 {
		ex.mu.Lock()
		defer ex.mu.Unlock()
		return size()
	}
	yearsim.Run(t, be)
	st := db.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "Expire: %d calls beside the requests and %d between days, %.1f s in all, the longest %.0f ms",
		ex.beside, ex.daily, ex.total.Seconds(), float64(ex.longest.Microseconds())/1000)
	if postgres {
		fmt.Fprintf(&b, "; VACUUM between days: %.1f s in all; nonces found in the default partition at a day's end: %d in all, on %d days",
			ex.vacuumed.Seconds(), ex.inDefault, ex.defaultDays)
	}
	fmt.Fprintf(&b, "\n%s after the year: %.1f MiB; connections: %d open, %d closed idle past the pool's bound, %d waits for one",
		be.SizeName, float64(be.Size())/(1<<20), st.OpenConnections, st.MaxIdleClosed, st.WaitCount)
	t.Log(b.String())
}

// expirer runs sqlstore.Expire as an operator's ticker does, once each
// simulated minute, apart from the requests: on a goroutine of its own
// each time the simulated clock passes into a new minute while requests
// run, and between days, when the ticker of a real day would have run
// hundreds of times, once more, waited for. On PostgreSQL it also runs
// VACUUM between days, as autovacuum would have, every minute or so, in a
// real day (without it, the catalog rows of the partitions made and
// dropped each hour pile up in a year that passes in a minute).
type expirer struct {
	t        *testing.T
	db       *sql.DB
	now      func() time.Time
	postgres bool

	mu             sync.Mutex // one Expire at a time; guards the counts
	beside, daily  int
	total, longest time.Duration
	vacuumed       time.Duration
	// inDefault counts the nonces found in PostgreSQL's default partition
	// at a day's end (a partition Expire could not make in time), on
	// defaultDays days.
	inDefault, defaultDays int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (e *expirer) expire(ctx context.Context, count *int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t0 := time.Now()
	if err := sqlstore.Expire(ctx, e.db, e.now()); err != nil && ctx.Err() == nil {
		e.t.Errorf("Expire: %v", err)
	}
	d := time.Since(t0)
	*count++
	e.total += d
	e.longest = max(e.longest, d)
}

// start runs Expire now, so that PostgreSQL's first partitions are made
// before the first request, and then beside the requests until the
// returned stop is called.
func (e *expirer) start(now func() time.Time) (stop func()) {
	e.now = now
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.expire(ctx, &e.daily)
	e.wg.Go(func() {
		last := now().Truncate(time.Minute)
		for ctx.Err() == nil {
			time.Sleep(time.Millisecond)
			if m := now().Truncate(time.Minute); m.After(last) {
				last = m
				e.expire(ctx, &e.beside)
			}
		}
	})
	return func() {
		cancel()
		e.wg.Wait()
	}
}

// newDay runs Expire between days, and on PostgreSQL VACUUM.
func (e *expirer) newDay() {
	ctx := context.Background()
	if e.postgres {
		var n int64
		if err := e.db.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_nonces_default`).Scan(&n); err != nil {
			e.t.Errorf("counting the default partition's nonces: %v", err)
		}
		if n > 0 {
			e.inDefault += n
			e.defaultDays++
		}
	}
	e.expire(ctx, &e.daily)
	if e.postgres {
		t0 := time.Now()
		if _, err := e.db.ExecContext(ctx, `VACUUM`); err != nil {
			e.t.Errorf("VACUUM: %v", err)
		}
		e.vacuumed += time.Since(t0)
	}
}

// sqliteLog is the largest the write-ahead log's file was found, before
// the checkpoints of sqliteSize.
var sqliteLog int64

// sqliteSize checkpoints the write-ahead log into the database file,
// truncating the log (again while a reader keeps the checkpoint from
// finishing, for up to a second), and returns the size of the file and of
// what is left of the log.
func sqliteSize(t *testing.T, db *sql.DB, path string) int64 {
	t.Helper()
	if fi, err := os.Stat(path + "-wal"); err == nil {
		sqliteLog = max(sqliteLog, fi.Size())
	}
	for range 50 {
		var busy, logPages, done int
		if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done); err != nil {
			t.Errorf("checkpoint: %v", err)
		}
		if busy == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	var size int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil && !os.IsNotExist(err) {
			t.Errorf("size of the database: %v", err)
			continue
		}
		if err == nil {
			size += fi.Size()
		}
	}
	return size
}

// postgresSize returns pg_database_size of db's database.
func postgresSize(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(`SELECT pg_database_size(current_database())`).Scan(&n); err != nil {
		t.Errorf("pg_database_size: %v", err)
	}
	return n
}

// postgresSpace logs where db's space is: its largest relations, with
// their indexes and TOAST, and its nonce partitions.
func postgresSpace(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`SELECT n.nspname || '.' || c.relname, pg_total_relation_size(c.oid), c.reltuples::bigint
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'm') ORDER BY 2 DESC LIMIT 12`)
	if err != nil {
		t.Errorf("relation sizes: %v", err)
		return
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name string
		var size, tuples int64
		if err := rows.Scan(&name, &size, &tuples); err != nil {
			t.Errorf("relation sizes: %v", err)
			return
		}
		fmt.Fprintf(&b, "  %8.1f MiB  %s (%d rows estimated)\n", float64(size)/(1<<20), name, tuples)
	}
	var parts, nonces, inDefault int64
	db.QueryRow(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'oauth1_nonces'::regclass`).Scan(&parts)
	db.QueryRow(`SELECT count(*) FROM oauth1_nonces`).Scan(&nonces)
	db.QueryRow(`SELECT count(*) FROM oauth1_nonces_default`).Scan(&inDefault)
	t.Logf("PostgreSQL's largest relations:\n%s%d nonce partitions, %d nonces, %d of them in the default partition",
		b.String(), parts, nonces, inDefault)
}

// postmaster returns the process id of the tests' PostgreSQL, the parent
// of db's backend.
func postmaster(t testing.TB, db *sql.DB) int {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var backend int
	if err := conn.QueryRowContext(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		t.Fatal(err)
	}
	return parentOf(backend)
}
