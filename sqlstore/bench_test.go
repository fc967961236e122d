package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// BenchmarkNonceUse measures one fresh nonce check, from one goroutine,
// on SQLite with synchronous=NORMAL (Open's default) and FULL, and on
// PostgreSQL (the tests' server, which runs with fsync off). It reports
// the CPU time of the test process a check (cpu-µs/op): the database's
// own, for SQLite, which runs in the process; the client's only, for
// PostgreSQL.
func BenchmarkNonceUse(b *testing.B) {
	b.Run("SQLite-NORMAL", func(b *testing.B) {
		benchUse(b, open(b, filepath.Join(b.TempDir(), "bench.db"), true))
	})
	b.Run("SQLite-FULL", func(b *testing.B) {
		benchUse(b, open(b, "file:"+filepath.Join(b.TempDir(), "bench.db")+"?_pragma=synchronous(FULL)", true))
	})
	b.Run("PostgreSQL", func(b *testing.B) {
		benchUse(b, openPostgres(b, true))
	})
}

func benchUse(b *testing.B, db *sql.DB) {
	s := sqlstore.NewNonceStore(db, "bench")
	ctx := context.Background()
	now := time.Now()
	n := server.Nonce{ConsumerKey: "bench-client", Token: "bench-token", Timestamp: now.Unix()}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		n.Value = strconv.Itoa(i)
		fresh, err := s.Use(ctx, n, now, now.Add(5*time.Minute))
		if err != nil || !fresh {
			b.Fatal(fresh, err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
