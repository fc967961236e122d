package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
)

// The tests run against a real redis-server: the one at REDIS_ADDR if that
// is set, or else one they start on a free loopback port, from REDIS_SERVER
// or redis-server on PATH. Without either they skip, unless
// COUNTERSIGN_REQUIRE_REDIS=1, as in CI, makes that a failure.

// redisServer is a redis-server process that the tests own: no persistence, on
// 127.0.0.1 only, stopped and restarted on the same port at will.
type redisServer struct {
	bin, dir string
	port     int
	mu       sync.Mutex
	cmd      *exec.Cmd
	log      *bytes.Buffer
	done     chan struct{} // closed when cmd has exited
}

func (s *redisServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// redisBinary returns the redis-server to run, or an error saying why none
// can be.
func redisBinary() (string, error) {
	if bin := os.Getenv("REDIS_SERVER"); bin != "" {
		return bin, nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New("no redis-server on PATH (install the redis-server package, or set REDIS_SERVER or REDIS_ADDR)")
	}
	return bin, nil
}

// startServer starts a redis-server on a free loopback port.
func startServer() (*redisServer, error) {
	bin, err := redisBinary()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "redisstore-test-")
	if err != nil {
		return nil, err
	}
	s := &redisServer{bin: bin, dir: dir}
	// A port found free can be taken before redis-server binds it; try again.
	for range 5 {
		var l net.Listener
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			break
		}
		s.port = l.Addr().(*net.TCPAddr).Port
		l.Close()
		if err = s.start(); err == nil {
			return s, nil
		}
		if errors.Is(err, errNoStart) {
			break // no binary, or not executable: another port will not help
		}
	}
	os.RemoveAll(dir)
	return nil, err
}

var errNoStart = errors.New("cannot run redis-server")

// start runs redis-server on s.port and waits until it answers PING.
func (s *redisServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = new(bytes.Buffer)
	s.cmd = exec.Command(s.bin,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir,
		"--daemonize", "no", "--loglevel", "warning")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	setDeathSignal(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("%w: %w", errNoStart, err)
	}
	s.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		cmd.Wait()
		close(done)
	}(s.cmd, s.done)

	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited: %s", s.log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			s.cmd.Process.Kill()
			<-s.done
			return fmt.Errorf("redis-server did not answer on %s: %v: %s", s.addr(), err, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop kills redis-server, as a crash would, and waits until it has exited.
func (s *redisServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// close stops the server and removes its directory.
func (s *redisServer) close() {
	s.stop()
	os.RemoveAll(s.dir)
}

var shared struct {
	once sync.Once
	addr string
	srv  *redisServer // nil when REDIS_ADDR is used
	err  error
}

// TestMain stops the shared server after the tests. go-redis logs every
// failed dial, which TestFailClosed provokes by the hundred; the tests
// check the errors themselves.
func TestMain(m *testing.M) {
	redis.SetLogger(&logging.VoidLogger{})
	code := m.Run()
	if shared.srv != nil {
		shared.srv.close()
	}
	if sharedCluster.c != nil {
		sharedCluster.c.close()
	}
	os.Exit(code)
}

// noRedis skips t, or fails it when CI requires Redis.
func noRedis(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("COUNTERSIGN_REQUIRE_REDIS") == "1" {
		t.Fatalf("no Redis, and COUNTERSIGN_REQUIRE_REDIS=1: %v", err)
	}
	t.Skipf("skipping: no Redis to test against: %v", err)
}

// sharedAddr returns the address of the Redis the tests share: REDIS_ADDR, or
// a redis-server started for this test binary.
func sharedAddr(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() {
		if a := os.Getenv("REDIS_ADDR"); a != "" {
			shared.addr = a
			return
		}
		shared.srv, shared.err = startServer()
		if shared.err == nil {
			shared.addr = shared.srv.addr()
		}
	})
	if shared.err != nil {
		noRedis(t, shared.err)
	}
	return shared.addr
}

// ownServer starts a redis-server for t alone, which t may stop and
// restart; it is stopped when t ends.
func ownServer(t testing.TB) *redisServer {
	t.Helper()
	s, err := startServer()
	if err != nil {
		noRedis(t, err)
	}
	t.Cleanup(s.close)
	return s
}

// newClient returns a client of the Redis at addr, closed when t ends: one
// per simulated machine.
func newClient(t testing.TB, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { c.Close() })
	return c
}

var prefixSeq atomic.Int64

// testPrefix returns a key prefix of t's own, so that tests sharing a Redis
// (REDIS_ADDR) never see each other's keys; in such a Redis, t's keys are
// deleted when it ends.
func testPrefix(t testing.TB) string {
	p := fmt.Sprintf("countersign-test:%d-%d:", time.Now().UnixNano(), prefixSeq.Add(1))
	if addr := os.Getenv("REDIS_ADDR"); addr != "" {
		t.Cleanup(func() {
			ctx := context.Background()
			c := redis.NewClient(&redis.Options{Addr: addr})
			defer c.Close()
			for it := c.Scan(ctx, 0, p+"*", 1000).Iterator(); it.Next(ctx); {
				c.Del(ctx, it.Val())
			}
		})
	}
	return p
}
