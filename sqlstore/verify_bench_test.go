package sqlstore_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
	"github.com/countersign/countersign/sqlstore"
)

// BenchmarkVerify measures server.Verifier.Verify with each nonce store,
// in one run, as a provider serves: 64 clients verifying at once (64
// goroutines, each with requests signed before the timer starts). It
// reports verifications a second, the CPU time of this process a check
// (cpu-µs/op: signing excluded, Verify's HMAC, parsing and the store's
// client included; SQLite's whole cost, since it runs in the process),
// that of the store's server (server-cpu-µs/op: redis-server, or every
// PostgreSQL process), their sum, and how many of the honest requests
// were refused (an error of the store: 503 Service Unavailable):
//
//	cd sqlstore && go test -run '^$' -bench '^BenchmarkVerify$' -benchtime 20000x -count 3 .
//
// The stores: memory (package server's MemoryNonceStore, the baseline);
// Redis (redisstore, on a redis-server of its own, without persistence);
// SQLite as Open sets it (WAL, synchronous=NORMAL) and with
// synchronous=FULL; PostgreSQL (the tests' server, with fsync and
// full_page_writes turned on for the benchmark) with synchronous_commit on,
// its default, and off for the benchmark's sessions (sqlstore sets no
// synchronous_commit of its own: a session setting, given in the DSN, is
// how an operator would set it for the nonce store's connections alone).
// Each SQL pool keeps 64 connections (TestOpenKeepsConnections); SQLite's
// also one (conns=1), which queues the writers in database/sql rather than
// in SQLite's busy handler.
func BenchmarkVerify(b *testing.B) {
	var pgOnce sync.Once
	var pgURL string
	durable := func() string {
		pgOnce.Do(func() { pgURL = durablePostgres(b) })
		return pgURL
	}
	for _, bs := range []struct {
		name   string
		nonces func(b *testing.B) (server.NonceStore, func() time.Duration)
	}{
		{"store=memory", func(*testing.B) (server.NonceStore, func() time.Duration) {
			return new(server.MemoryNonceStore), nil
		}},
		{"store=redis", benchRedis},
		{"store=sqlite/synchronous=NORMAL", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchSQL(b, filepath.Join(b.TempDir(), "bench.db"), benchClients), nil
		}},
		{"store=sqlite/synchronous=NORMAL/conns=1", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchSQL(b, filepath.Join(b.TempDir(), "bench.db"), 1), nil
		}},
		{"store=sqlite/synchronous=FULL", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchSQL(b, "file:"+filepath.Join(b.TempDir(), "bench.db")+"?_pragma=synchronous(FULL)", benchClients), nil
		}},
		{"store=sqlite/synchronous=FULL/conns=1", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchSQL(b, "file:"+filepath.Join(b.TempDir(), "bench.db")+"?_pragma=synchronous(FULL)", 1), nil
		}},
		{"store=postgres/synchronous_commit=on", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchPostgres(b, durable(), "")
		}},
		{"store=postgres/synchronous_commit=off", func(b *testing.B) (server.NonceStore, func() time.Duration) {
			return benchPostgres(b, durable(), "&synchronous_commit=off")
		}},
	} {
		b.Run(bs.name, func(b *testing.B) {
			nonces, serverCPU := bs.nonces(b)
			if serverCPU == nil {
				serverCPU = func() time.Duration { return 0 }
			}
			benchVerify(b, nonces, serverCPU)
		})
	}
}

// benchClients is how many clients verify at once.
const benchClients = 64

func benchVerify(b *testing.B, nonces server.NonceStore, serverCPU func() time.Duration) {
	v := &server.Verifier{Store: benchCredentials{}, Settings: server.Settings{Nonces: nonces}}
	cfg := &oauth1.Config{ConsumerKey: benchKey, ConsumerSecret: benchSecret}
	tok := &oauth1.Credentials{Token: benchToken, Secret: benchTokenSecret}
	reqs := make([]*http.Request, b.N)
	now, run := time.Now(), time.Now().UnixNano()
	for i := range reqs {
		r := httptest.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
		if err := cfg.SignAt(r, tok, now, fmt.Sprintf("n%d-%d", run, i)); err != nil {
			b.Fatal(err)
		}
		reqs[i] = r
	}
	var next, failed atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	cpu0, server0 := cpuTime(), serverCPU()
	b.ResetTimer()
	for range benchClients {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(reqs)); i = next.Add(1) - 1 {
				if _, err := v.Verify(reqs[i]); err != nil {
					failed.Add(1)
					firstErr.Do(func() { b.Logf("an honest request refused: %v", err) })
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	cpu, srv := cpuTime()-cpu0, serverCPU()-server0
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifications/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(srv.Nanoseconds())/1e3/float64(b.N), "server-cpu-µs/op")
	b.ReportMetric(float64((cpu+srv).Nanoseconds())/1e3/float64(b.N), "total-cpu-µs/op")
	b.ReportMetric(float64(failed.Load()), "refused")
}

// benchSQL opens dsn, migrated, with a pool of conns connections, and
// returns its NonceStore.
func benchSQL(b *testing.B, dsn string, conns int) server.NonceStore {
	db := open(b, dsn, true)
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return sqlstore.NewNonceStore(db, "bench")
}

// benchPostgres returns a NonceStore on the PostgreSQL at url (as the
// superuser, whose database it may use), its URL followed by params, and
// the server's CPU time.
func benchPostgres(b *testing.B, url, params string) (server.NonceStore, func() time.Duration) {
	db := open(b, url+params, true)
	db.SetMaxOpenConns(benchClients)
	db.SetMaxIdleConns(benchClients)
	if _, err := db.Exec(`TRUNCATE oauth1_nonces`); err != nil {
		b.Fatal(err)
	}
	// The hour's partition, as the operator's Expire makes it.
	if err := sqlstore.Expire(context.Background(), db, time.Now()); err != nil {
		b.Fatal(err)
	}
	var sc string
	if err := db.QueryRow(`SELECT 'synchronous_commit ' || current_setting('synchronous_commit') || ', fsync ' || current_setting('fsync')`).Scan(&sc); err != nil {
		b.Fatal(err)
	}
	b.Log(sc)
	pid := postmaster(b, db)
	return sqlstore.NewNonceStore(db, "bench"), func() time.Duration { return serverCPU(pid) }
}

// benchRedis returns redisstore's NonceStore on a redis-server of its own
// (no persistence), and the server's CPU time.
func benchRedis(b *testing.B) (server.NonceStore, func() time.Duration) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		b.Skip("no redis-server on PATH (Debian: apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", b.TempDir(), "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		PoolSize: benchClients, ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	ctx := context.Background()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(ctx).Err() != nil; {
		if time.Now().After(deadline) {
			b.Fatal("redis-server did not answer within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return redisstore.NewNonceStore(c, "bench:"), func() time.Duration { return redisCPU(b, c) }
}

// redisCPU returns the CPU time redis-server has used, from INFO cpu.
func redisCPU(b *testing.B, c *redis.Client) time.Duration {
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for line := range strings.Lines(info) {
		for _, name := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), name); ok {
				f, _ := strconv.ParseFloat(v, 64)
				sum += f
			}
		}
	}
	return time.Duration(sum * float64(time.Second))
}

const (
	benchKey, benchSecret        = "bench-client", "bench client secret"
	benchToken, benchTokenSecret = "bench-token", "bench token secret"
)

// benchCredentials knows one client and one token.
type benchCredentials struct{}

func (benchCredentials) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	if key != benchKey {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: benchSecret}, nil
}

func (benchCredentials) TokenCredentials(_ context.Context, key, tok string, _ time.Time) (server.TokenCredentials, error) {
	if key != benchKey || tok != benchToken {
		return server.TokenCredentials{}, server.ErrNotFound
	}
	return server.TokenCredentials{Token: tok, Secret: benchTokenSecret, ConsumerKey: key}, nil
}
