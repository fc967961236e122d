package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

// raceRounds is how many rounds TestNonceRace runs: COUNTERSIGN_RACE_ROUNDS,
// or 20; .ci/run runs the full 200.
func raceRounds(t *testing.T) int {
	if s := os.Getenv("COUNTERSIGN_RACE_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("COUNTERSIGN_RACE_ROUNDS=%q: want a positive number", s)
		}
		return n
	}
	return 20
}

// TestNonceRace is the race of issue 41: 4 connection pools (4 sql.DB, as
// 4 instances of a provider) × 64 goroutines use one nonce at once, round
// after round; every round must see exactly one fresh use, 255 replays
// and no error at all (a database error would be answered 503 to an
// honest client). Each pool holds at most 32 connections (SQLite) or 24
// (PostgreSQL, whose server allows 300), so goroutines also queue for
// connections as they would in a service.
func TestNonceRace(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "race.db")
		openSQLiteAt := func() *sql.DB { return open(t, path, false) }
		migrateOnce(t, openSQLiteAt())
		nonceRace(t, openSQLiteAt, 32)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		openPG := func() *sql.DB { return open(t, dsn, false) }
		migrateOnce(t, openPG())
		nonceRace(t, openPG, 24)
	})
}

func migrateOnce(t *testing.T, db *sql.DB) {
	t.Helper()
	if _, err := sqlstore.Migrate(context.Background(), db, false); err != nil {
		t.Fatal(err)
	}
}

func nonceRace(t *testing.T, open func() *sql.DB, conns int) {
	const pools, perPool = 4, 64
	var stores [pools]*sqlstore.NonceStore
	for i := range stores {
		db := open()
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		stores[i] = sqlstore.NewNonceStore(db, "race")
	}
	ctx := context.Background()
	rounds := raceRounds(t)
	start := time.Now()
	var worst time.Duration
	failed := 0
	for round := range rounds {
		now := time.Now()
		n := server.Nonce{ConsumerKey: "race-client", Token: "race-token", Value: rand.Text(), Timestamp: now.Unix()}
		var mu sync.Mutex
		var fresh, replays int
		var errs []error
		go1 := make(chan struct{})
		var wg sync.WaitGroup
		for p := range pools {
			for range perPool {
				wg.Go(func() {
					<-go1
					ok, err := stores[p].Use(ctx, n, now, now.Add(5*time.Minute))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						errs = append(errs, err)
					case ok:
						fresh++
					default:
						replays++
					}
				})
			}
		}
		t0 := time.Now()
		close(go1)
		wg.Wait()
		worst = max(worst, time.Since(t0))
		if fresh != 1 || replays != pools*perPool-1 || len(errs) > 0 {
			failed++
			t.Errorf("round %d: %d fresh, %d replays, %d errors (first: %v); want 1, %d, 0",
				round, fresh, replays, len(errs), first(errs), pools*perPool-1)
		}
	}
	t.Logf("%d rounds of %d pools × %d goroutines on one nonce: %d rounds wrong; %v in all, %v a round on average, %v at worst",
		rounds, pools, perPool, failed, time.Since(start).Round(time.Millisecond),
		(time.Since(start) / time.Duration(rounds)).Round(time.Microsecond), worst.Round(time.Microsecond))
}

func first(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}

// TestTakeTemporaryRace: 4 pools × 64 goroutines exchange one temporary
// token at once (a client retrying its access token request, sent to
// every instance): exactly one gets the credentials, every other
// ErrTokenUsed, and none a database error. And as many Authorize one
// token: exactly one approval.
func TestTakeTemporaryRace(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "race.db")
		openAt := func() *sql.DB { return open(t, path, false) }
		migrateOnce(t, openAt())
		temporaryRace(t, openAt, 32)
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		openPG := func() *sql.DB { return open(t, dsn, false) }
		migrateOnce(t, openPG())
		temporaryRace(t, openPG, 24)
	})
}

func temporaryRace(t *testing.T, open func() *sql.DB, conns int) {
	const pools, perPool = 4, 64
	var stores [pools]*sqlstore.TemporaryStore
	for i := range stores {
		db := open()
		db.SetMaxOpenConns(conns)
		stores[i] = sqlstore.NewTemporaryStore(db, "race")
	}
	ctx := context.Background()
	for round := range max(raceRounds(t)/10, 2) {
		now := time.Now()
		token := rand.Text()
		require := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		require(stores[0].PutTemporary(ctx, server.TemporaryCredentials{Token: token, Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Hour)}, now))
		for _, step := range []string{"Authorize", "TakeTemporary"} {
			var mu sync.Mutex
			var won, used int
			var errs []error
			start := make(chan struct{})
			var wg sync.WaitGroup
			for p := range pools {
				for range perPool {
					wg.Go(func() {
						<-start
						var err error
						if step == "Authorize" {
							err = stores[p].Authorize(ctx, server.TemporaryCredentials{Token: token, User: "u", VerificationCode: "v"}, now)
						} else {
							_, err = stores[p].TakeTemporary(ctx, token, now)
						}
						mu.Lock()
						defer mu.Unlock()
						switch {
						case err == nil:
							won++
						case errors.Is(err, server.ErrTokenUsed):
							used++
						default:
							errs = append(errs, err)
						}
					})
				}
			}
			close(start)
			wg.Wait()
			if won != 1 || used != pools*perPool-1 || len(errs) > 0 {
				t.Errorf("round %d, %s: %d won, %d told ErrTokenUsed, %d errors (first: %v); want 1, %d, 0",
					round, step, won, used, len(errs), first(errs), pools*perPool-1)
			}
		}
	}
}
