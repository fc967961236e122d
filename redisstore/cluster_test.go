package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// A Redis Cluster of three masters on loopback, started once for the test
// binary, as the single server is: three redis-server --cluster-enabled in
// directories of their own, joined by redis-cli --cluster create.

type redisCluster struct {
	dir   string
	nodes []*exec.Cmd
	done  []chan struct{}
	addrs []string
}

var sharedCluster struct {
	once sync.Once
	c    *redisCluster
	err  error
}

// clusterAddrs returns the addresses of the test cluster's masters,
// starting it on first use; it skips t, or fails it when CI requires Redis,
// if the cluster cannot be run.
func clusterAddrs(t testing.TB) []string {
	t.Helper()
	sharedCluster.once.Do(func() {
		for range 3 { // ports found free can be taken before they are bound
			sharedCluster.c, sharedCluster.err = startCluster()
			if sharedCluster.err == nil || errors.Is(sharedCluster.err, errNoStart) {
				return
			}
		}
	})
	if sharedCluster.err != nil {
		noRedis(t, fmt.Errorf("cannot start a Redis Cluster: %w", sharedCluster.err))
	}
	return sharedCluster.c.addrs
}

// newClusterClient returns a client of the test cluster, as
// redis.NewUniversalClient makes one for several addresses, closed when t
// ends.
func newClusterClient(t testing.TB) redis.UniversalClient {
	t.Helper()
	c := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: clusterAddrs(t), ContextTimeoutEnabled: true})
	if _, ok := c.(*redis.ClusterClient); !ok {
		t.Fatalf("NewUniversalClient with three addresses made a %T", c)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// freeClusterPort returns a loopback port that is free, as is its cluster
// bus port, 10000 above it.
func freeClusterPort() (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			l.Close()
			continue
		}
		bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000)))
		l.Close()
		if err != nil {
			continue
		}
		bus.Close()
		return port, nil
	}
	return 0, errors.New("no free port pair for a cluster node")
}

func startCluster() (_ *redisCluster, err error) {
	bin, err := redisBinary()
	if err != nil {
		return nil, err
	}
	cli := filepath.Join(filepath.Dir(bin), "redis-cli")
	if _, err := os.Stat(cli); err != nil {
		if cli, err = exec.LookPath("redis-cli"); err != nil {
			return nil, fmt.Errorf("%w: no redis-cli beside %s or on PATH, to create the cluster", errNoStart, bin)
		}
	}
	dir, err := os.MkdirTemp("", "redisstore-cluster-")
	if err != nil {
		return nil, err
	}
	c := &redisCluster{dir: dir}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	var log bytes.Buffer
	var logMu sync.Mutex
	for i := range 3 {
		port, err := freeClusterPort()
		if err != nil {
			return nil, err
		}
		nodeDir := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(nodeDir, 0o700); err != nil {
			return nil, err
		}
		cmd := exec.Command(bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(nodeDir, "nodes.conf"),
			"--cluster-node-timeout", "2000",
			"--save", "", "--appendonly", "no", "--dir", nodeDir,
			"--daemonize", "no", "--loglevel", "warning")
		w := &lockedWriter{mu: &logMu, w: &log}
		cmd.Stdout, cmd.Stderr = w, w
		setDeathSignal(cmd)
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("%w: %w", errNoStart, err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		c.nodes, c.done = append(c.nodes, cmd), append(c.done, done)
		c.addrs = append(c.addrs, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, addr := range c.addrs {
		if err := waitFor(ctx, addr, func(rc *redis.Client) error { return rc.Ping(ctx).Err() }); err != nil {
			logMu.Lock()
			defer logMu.Unlock()
			return nil, fmt.Errorf("cluster node %s: %w: %s", addr, err, log.String())
		}
	}
	create := exec.CommandContext(ctx, cli, append(append([]string{"--cluster", "create"}, c.addrs...),
		"--cluster-replicas", "0", "--cluster-yes")...)
	if out, err := create.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %w: %s", err, out)
	}
	for _, addr := range c.addrs {
		err := waitFor(ctx, addr, func(rc *redis.Client) error {
			info, err := rc.ClusterInfo(ctx).Result()
			if err == nil && !strings.Contains(info, "cluster_state:ok") {
				err = errors.New("cluster_state is not ok")
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cluster node %s: %w", addr, err)
		}
	}
	return c, nil
}

// waitFor calls f with a client of addr until it succeeds or ctx ends.
func waitFor(ctx context.Context, addr string, f func(*redis.Client) error) error {
	rc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	defer rc.Close()
	for {
		err := f(rc)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (c *redisCluster) close() {
	for i, cmd := range c.nodes {
		cmd.Process.Kill()
		<-c.done[i]
	}
	os.RemoveAll(c.dir)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// TestCluster runs the tests of several instances on a Redis Cluster of
// three masters, through the client redis.NewUniversalClient makes for
// several addresses: a replay is accepted once across four Verifiers,
// temporary credentials are exchanged once across four Providers, the
// quota holds across four stores, and the conformance test passes. Every
// script then ran on the cluster, which refuses (CROSSSLOT) a script whose
// keys are in more than one hash slot; and the keys did spread over the
// masters.
func TestCluster(t *testing.T) {
	newClient := func() redis.UniversalClient { return newClusterClient(t) }
	newClient() // start the cluster, or skip
	t.Run("ReplayAcrossVerifiers", func(t *testing.T) { testReplayAcrossVerifiers(t, newClient) })
	t.Run("ExchangeAcrossProviders", func(t *testing.T) { testExchangeAcrossProviders(t, newClient) })
	t.Run("TemporaryQuota", func(t *testing.T) { testTemporaryQuota(t, newClient) })
	t.Run("TemporaryGlobalBound", func(t *testing.T) { testTemporaryGlobalBound(t, newClient) })
	t.Run("TokenBounds", func(t *testing.T) { testTokenBounds(t, newClient) })
	t.Run("RevokeGrantApprovedTemporary", func(t *testing.T) { testRevokeGrantApprovedTemporary(t, newClient) })
	t.Run("UsageAcrossInstances", func(t *testing.T) { testUsageAcrossInstances(t, newClient) })
	t.Run("TokenStore", func(t *testing.T) {
		prefix := testPrefix(t)
		oauth1test.TestTokenStore(t, func() server.TokenStore { return redisstore.NewTokenStore(newClient(), prefix) })
	})
	t.Run("TemporaryStore", func(t *testing.T) {
		prefix := testPrefix(t)
		oauth1test.TestTemporaryStore(t, func() server.TemporaryStore { return redisstore.NewTemporaryStore(newClient(), prefix) })
	})
	t.Run("NonceStore", func(t *testing.T) {
		prefix := testPrefix(t)
		oauth1test.TestNonceStore(t, func() server.NonceStore { return redisstore.NewNonceStore(newClient(), prefix) })
	})
	t.Run("Check", func(t *testing.T) {
		if err := redisstore.Check(context.Background(), newClient()); err != nil {
			t.Error(err)
		}
	})

	// The keys the tests left are on more than one master.
	masters := 0
	cc := newClusterClient(t).(*redis.ClusterClient)
	var mu sync.Mutex
	err := cc.ForEachMaster(context.Background(), func(ctx context.Context, c *redis.Client) error {
		n, err := c.DBSize(ctx).Result()
		if n > 0 {
			mu.Lock()
			masters++
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if masters < 2 {
		t.Errorf("keys on %d of 3 masters; the test did not exercise the cluster", masters)
	}
}
