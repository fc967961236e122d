package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// A master of a Redis Cluster dies while verifiers use it. Nothing may be
// accepted that should not: a nonce used before the loss is refused or its
// check fails, never accepted again; a fresh nonce whose slot the dead
// master held fails (and a verifier answers 503), while one on a live
// master may be recorded and served, its replay refused; and each call
// ends within its deadline. The test starts a cluster of its own, since it
// kills one of its nodes.
func TestClusterMasterLost(t *testing.T) {
	var c *redisCluster
	var err error
	for range 3 { // ports found free can be taken before they are bound
		if c, err = startCluster(); err == nil || errors.Is(err, errNoStart) {
			break
		}
	}
	if err != nil {
		noRedis(t, fmt.Errorf("cannot start a Redis Cluster: %w", err))
	}
	defer c.close()
	rc := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: c.addrs, ContextTimeoutEnabled: true})
	defer rc.Close()
	store := redisstore.NewNonceStore(rc, testPrefix(t))

	now := time.Now()
	const n = 60
	nonce := func(i int) server.Nonce {
		// A consumer key's nonces are in one key, so one slot: n consumer
		// keys spread the nonces over the three masters.
		return server.Nonce{ConsumerKey: consumerKey + strconv.Itoa(i%n), Token: token, Value: "n" + strconv.Itoa(i), Timestamp: now.Unix()}
	}
	use := func(i int, d time.Duration) (bool, time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		start := time.Now()
		ok, err := store.Use(ctx, nonce(i), now, now.Add(5*time.Minute))
		return ok, time.Since(start), err
	}
	for i := range n {
		if ok, _, err := use(i, 5*time.Second); !ok || err != nil {
			t.Fatalf("nonce %d before the loss: ok=%v, err=%v", i, ok, err)
		}
	}

	if err := c.nodes[0].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.done[0]

	// While the cluster notices (node timeout 2 s) and after, replays and
	// fresh nonces alike.
	const deadline = 500 * time.Millisecond
	var mu sync.Mutex
	failed := 0
	for round := range 2 {
		var wg sync.WaitGroup
		for i := range 2 * n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, took, err := use(i, deadline)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case ok && i < n:
					t.Errorf("round %d: replayed nonce %d accepted after a master was lost", round, i)
				case ok && err != nil:
					t.Errorf("round %d: nonce %d: accepted with an error: %v", round, i, err)
				case err != nil:
					failed++
				}
				if took > deadline+time.Second {
					t.Errorf("round %d: nonce %d: took %v, past its deadline of %v", round, i, took, deadline)
				}
			}()
		}
		wg.Wait()
		if round == 0 {
			time.Sleep(2500 * time.Millisecond) // past the node timeout
		}
	}
	if failed == 0 {
		t.Error("no call failed with a master lost: the test did not exercise the loss")
	}

	// Through the middleware: a fresh request is served only when its nonce
	// was recorded on a live master, and its replay is then refused; one
	// whose nonce could not be checked gets 503.
	v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: store}}
	for i := range 20 {
		auth := signedHeader(t, time.Now(), fmt.Sprint("fresh-after-loss-", i))
		rec, served := serve(v, auth)
		switch {
		case served:
			if rec, served := serve(v, auth); served {
				t.Errorf("request %d: replay served with a master lost: %d", i, rec.Code)
			}
		case rec.Code != http.StatusServiceUnavailable:
			t.Errorf("request %d: status %d, want 503 (the nonce could not be checked)", i, rec.Code)
		}
	}
}
