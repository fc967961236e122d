package oauth1test

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// TestNonceStore checks that the stores newStore returns keep the
// [server.NonceStore] contract: a nonce is fresh once, and a replay is
// refused until expires, on the now each call is passed (a test clock in
// 2011: a store that keeps a nonce until an absolute expires on a clock of
// its own forgets it at once); nonces that differ in any field, or whose
// fields run together alike, are apart; of 64 concurrent uses of one nonce
// exactly one is fresh; and a nonce is forgotten once expires has passed
// on the real clock. Every subtest uses fresh random nonces, so newStore
// may return the same shared store each time. It takes about half a
// second, waiting for a nonce to expire.
func TestNonceStore(t *testing.T, newStore func() server.NonceStore) {
	ctx := context.Background()
	now := storeEpoch
	nonce := func() server.Nonce {
		return server.Nonce{ConsumerKey: "consumer-" + rand.Text()[:6], Token: rand.Text(), Value: rand.Text(), Timestamp: now.Unix()}
	}
	use := func(t *testing.T, s server.NonceStore, n server.Nonce, now, expires time.Time, want bool) {
		t.Helper()
		fresh, err := s.Use(ctx, n, now, expires)
		if err != nil || fresh != want {
			t.Errorf("Use(%+v, %v, %v) = %v, %v; want %v, nil", n, now, expires, fresh, err, want)
		}
	}

	t.Run("Once", func(t *testing.T) {
		s := newStore()
		n := nonce()
		expires := now.Add(10 * time.Minute)
		use(t, s, n, now, expires, true)
		use(t, s, n, now, expires, false)
		// Still a replay a millisecond before expires.
		use(t, s, n, expires.Add(-time.Millisecond), expires, false)
	})

	t.Run("Apart", func(t *testing.T) {
		s := newStore()
		n := nonce()
		n.Token = "ab" + n.Token
		expires := now.Add(10 * time.Minute)
		use(t, s, n, now, expires, true)
		others := []server.Nonce{n, n, n, n, n, n, n}
		others[0].ConsumerKey += "x"
		others[1].Token += "x"
		others[2].Value += "x"
		others[3].Timestamp++
		others[4].Token = ""
		// The fields run together alike.
		others[5].ConsumerKey, others[5].Token = n.ConsumerKey+"ab", n.Token[2:]
		others[6].Token, others[6].Value = n.Token[:len(n.Token)-1], n.Token[len(n.Token)-1:]+n.Value
		for _, o := range others {
			use(t, s, o, now, expires, true)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		s := newStore()
		n := nonce()
		var fresh, replays int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				ok, err := s.Use(ctx, n, now, now.Add(10*time.Minute))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("Use: %v", err)
				case ok:
					fresh++
				default:
					replays++
				}
			})
		}
		wg.Wait()
		if fresh != 1 || replays != 63 {
			t.Errorf("64 concurrent uses of one nonce: %d fresh and %d replays, want 1 and 63", fresh, replays)
		}
	})

	t.Run("Forgotten", func(t *testing.T) {
		s := newStore()
		n := nonce()
		start := time.Now()
		expires := start.Add(200 * time.Millisecond)
		use(t, s, n, start, expires, true)
		time.Sleep(time.Until(expires) + 150*time.Millisecond)
		later := time.Now()
		use(t, s, n, later, later.Add(time.Minute), true)
	})
}
