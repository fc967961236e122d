package server

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMemoryNonceStore(t *testing.T) {
	var m MemoryNonceStore
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(5 * time.Minute)
	n := Nonce{ConsumerKey: "ck", Token: "tok", Value: "abc", Timestamp: 1e9}
	use := func(n Nonce, now time.Time, want bool) {
		t.Helper()
		if got, err := m.Use(ctx, n, now, exp); got != want || err != nil {
			t.Errorf("Use(%+v, t0+%v) = %v, %v, want %v", n, now.Sub(t0), got, err, want)
		}
	}
	use(n, t0, true)
	use(n, t0.Add(time.Second), false)
	use(n, exp.Add(-1), false)
	// Every field is part of the key, and ("ab","c") is not ("a","bc").
	use(Nonce{"ck", "tok", "abd", 1e9}, t0, true)
	use(Nonce{"ck", "tok", "abc", 1e9 + 1}, t0, true)
	use(Nonce{"ck", "", "abc", 1e9}, t0, true)
	use(Nonce{"ck2", "tok", "abc", 1e9}, t0, true)
	use(Nonce{"ckt", "ok", "abc", 1e9}, t0, true)
	if got := m.size(); got != 6 {
		t.Errorf("Len() = %d, want 6", got)
	}
	// Once expired, a nonce is forgotten. (How many expired ones Len still
	// counts afterwards depends on which shards the seeded hash chose.)
	use(n, exp, true)
}

// TestMemoryNonceStoreFlood fills a small store and checks that it stays
// within MaxNonces, refuses rather than forgets, and recovers once the
// nonces expire.
func TestMemoryNonceStoreFlood(t *testing.T) {
	const max = 64 * nonceShards
	m := &MemoryNonceStore{MaxNonces: max}
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(time.Minute)
	accepted, full := 0, 0
	for i := range 10 * max {
		ok, err := m.Use(ctx, Nonce{ConsumerKey: "flood", Value: fmt.Sprint(i), Timestamp: 1e9}, t0, exp)
		switch {
		case errors.Is(err, ErrStoreFull):
			full++
		case err != nil || !ok:
			t.Fatalf("Use(nonce %d) = %v, %v", i, ok, err)
		default:
			accepted++
		}
	}
	if n := m.size(); n != max || accepted != max || full != 9*max {
		t.Errorf("after a flood of %d: Len() = %d, accepted %d, refused %d; want %d, %[4]d, %d", 10*max, n, accepted, full, max, 9*max)
	}
	// Every accepted nonce is still refused as a replay: nothing was evicted.
	for i := range 10 * max {
		ok, err := m.Use(ctx, Nonce{ConsumerKey: "flood", Value: fmt.Sprint(i), Timestamp: 1e9}, t0, exp)
		if ok {
			t.Fatalf("Use(nonce %d) after the flood = %v, %v: a nonce was replaced", i, ok, err)
		}
	}
	// After expiry the store takes new nonces again and shrinks.
	later := exp.Add(time.Second)
	for i := range max / 2 {
		if ok, err := m.Use(ctx, Nonce{ConsumerKey: "later", Value: fmt.Sprint(i)}, later, later.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("Use(new nonce %d) after expiry = %v, %v", i, ok, err)
		}
	}
	if n := m.size(); n > max/2+nonceShards*2 {
		t.Errorf("Len() after expiry = %d, want about %d", n, max/2)
	}
	for i := range m.shards {
		if s := &m.shards[i]; len(s.order)-s.head > 2*len(s.seen)+2 {
			t.Errorf("shard %d: order holds %d entries for %d nonces", i, len(s.order)-s.head, len(s.seen))
		}
	}
}

func TestMemoryNonceStoreConcurrent(t *testing.T) {
	var m MemoryNonceStore
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	const workers, nonces = 8, 2000
	var mu sync.Mutex
	fresh := make(map[int]int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range nonces {
				ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Value: fmt.Sprint(i), Timestamp: 1e9}, t0, t0.Add(time.Minute))
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					fresh[i]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for i := range nonces {
		if fresh[i] != 1 {
			t.Errorf("nonce %d was fresh %d times, want once", i, fresh[i])
		}
	}
}

// TestMemoryNonceStoreBytes checks the documented memory cost per nonce.
func TestMemoryNonceStoreBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates about 10 MB")
	}
	const n = 100_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := new(MemoryNonceStore)
	t0 := time.Unix(1e9, 0)
	for i := range n {
		m.Use(context.Background(), Nonce{ConsumerKey: "c", Value: fmt.Sprint(i), Timestamp: 1e9}, t0, t0.Add(time.Minute))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perNonce := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%.0f bytes per nonce", perNonce)
	if perNonce > 100 {
		t.Errorf("MemoryNonceStore holds %.0f bytes per nonce, documented about 60", perNonce)
	}
	runtime.KeepAlive(m)
}

// TestMemoryNonceStoreExpiredBehindLive fills a store with nonces that
// expire behind one that lives longer, as a nonce with a clock minutes fast
// does. Once they expire the store takes new nonces, though the first is
// still live; replays of it stay refused.
func TestMemoryNonceStoreExpiredBehindLive(t *testing.T) {
	var m *MemoryNonceStore
	use := func(nonce string, now, exp int64, want bool, wantErr error) {
		t.Helper()
		got, err := m.Use(context.Background(), Nonce{ConsumerKey: "c", Value: nonce}, time.Unix(now, 0), time.Unix(exp, 0))
		if got != want || !errors.Is(err, wantErr) {
			t.Errorf("Use(%s, %d, %d) = %v, %v; want %v, %v", nonce, now, exp, got, err, want, wantErr)
		}
	}
	const limit = 4
	m = &MemoryNonceStore{MaxNonces: limit}
	use("1", 0, 600, true, nil) // ten minutes: a timestamp five minutes ahead
	use("2", 0, 300, true, nil)
	use("3", 0, 300, true, nil)
	use("4", 0, 300, true, nil)
	use("5", 100, 400, false, ErrStoreFull) // four live nonces: full
	use("6", 200, 500, false, ErrStoreFull) // still full; the sweep at 100 freed nothing
	use("5", 301, 601, true, nil)           // 2, 3 and 4 have expired behind 1
	use("6", 301, 601, true, nil)
	use("7", 301, 601, true, nil)
	use("8", 301, 601, false, ErrStoreFull)
	use("1", 301, 601, false, nil) // a replay
	use("5", 302, 602, false, nil)
	if n := m.size(); n != limit {
		t.Errorf("Len() = %d, want %d", n, limit)
	}
	for i := range m.shards {
		if s := &m.shards[i]; len(s.order)-s.head != len(s.seen) {
			t.Errorf("shard %d: %d nonces, %d in order", i, len(s.seen), len(s.order)-s.head)
		}
	}

	// A nonce with an old timestamp expires before the earliest expiry
	// the last sweep saw, and behind a live one.
	m = &MemoryNonceStore{MaxNonces: limit}
	use("1", 0, 600, true, nil)
	use("2", 0, 500, true, nil)
	use("3", 0, 500, true, nil)
	use("4", 0, 500, true, nil)
	use("5", 10, 510, false, ErrStoreFull)
	use("5", 501, 801, true, nil) // swept 2, 3 and 4; 1 expires next, at 600
	use("6", 502, 520, true, nil) // expires first
	use("7", 503, 803, true, nil)
	use("8", 504, 804, false, ErrStoreFull)
	use("8", 521, 821, true, nil) // 6 expired behind 1
}

// TestMemoryNonceStoreExactBound checks that MaxNonces is the exact bound:
// that many distinct unexpired nonces are accepted, whatever shards their
// hashes fall in, the next one gets ErrStoreFull, and once they have
// expired there is room for as many again.
func TestMemoryNonceStoreExactBound(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(time.Minute)
	for _, max := range []int{1, 2, 31, 64, 1000} {
		m := &MemoryNonceStore{MaxNonces: max}
		fill := func(prefix string, now time.Time) {
			t.Helper()
			for i := range max {
				ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Value: prefix + fmt.Sprint(i)}, now, now.Add(time.Minute))
				if !ok || err != nil {
					t.Fatalf("MaxNonces %d: Use(nonce %d of %d) = %v, %v, want true, nil", max, i+1, max, ok, err)
				}
			}
			for i := range 3 {
				ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Value: prefix + "over" + fmt.Sprint(i)}, now, now.Add(time.Minute))
				if ok || !errors.Is(err, ErrStoreFull) {
					t.Fatalf("MaxNonces %d: Use(nonce %d) = %v, %v, want false, ErrStoreFull", max, max+1+i, ok, err)
				}
			}
			// A replay is still a replay, not a full store.
			if ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Value: prefix + "0"}, now, now.Add(time.Minute)); ok || err != nil {
				t.Fatalf("MaxNonces %d: replay of nonce 1 = %v, %v, want false, nil", max, ok, err)
			}
			if n := m.size(); n != max {
				t.Fatalf("MaxNonces %d: Len() = %d", max, n)
			}
		}
		fill("a", t0)
		fill("b", exp) // every "a" nonce has expired
	}
}

// TestMemoryNonceStoreConcurrentBound has goroutines race to fill a small
// store: exactly MaxNonces nonces are accepted, never more.
func TestMemoryNonceStoreConcurrentBound(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	for _, max := range []int{1, 64, 1000} {
		m := &MemoryNonceStore{MaxNonces: max}
		const workers = 8
		var accepted, full atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range max/2 + 10 {
					ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Value: fmt.Sprint(w, "-", i)}, t0, t0.Add(time.Minute))
					switch {
					case ok && err == nil:
						accepted.Add(1)
					case errors.Is(err, ErrStoreFull):
						full.Add(1)
					default:
						t.Errorf("Use = %v, %v", ok, err)
					}
					if n := m.size(); n > max {
						t.Errorf("MaxNonces %d: Len() = %d during the race", max, n)
					}
				}
			})
		}
		wg.Wait()
		if a := accepted.Load(); a != int64(max) {
			t.Errorf("MaxNonces %d: %d goroutines accepted %d nonces (refused %d), want exactly %d", max, workers, a, full.Load(), max)
		}
		if n := m.size(); n != max {
			t.Errorf("MaxNonces %d: Len() = %d", max, n)
		}
	}
}
