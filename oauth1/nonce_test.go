package oauth1

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestMemoryNonceStore(t *testing.T) {
	var m MemoryNonceStore
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(5 * time.Minute)
	n := Nonce{ConsumerKey: "ck", Token: "tok", Nonce: "abc", Timestamp: 1e9}
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
	if got := m.Len(); got != 6 {
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
		ok, err := m.Use(ctx, Nonce{ConsumerKey: "flood", Nonce: fmt.Sprint(i), Timestamp: 1e9}, t0, exp)
		switch {
		case errors.Is(err, ErrNonceStoreFull):
			full++
		case err != nil || !ok:
			t.Fatalf("Use(nonce %d) = %v, %v", i, ok, err)
		default:
			accepted++
		}
	}
	if n := m.Len(); n > max || n != accepted {
		t.Errorf("after a flood of %d: Len() = %d, accepted %d, want both ≤ %d", 10*max, n, accepted, max)
	}
	if accepted < max*3/4 || full == 0 {
		t.Errorf("accepted %d of MaxNonces %d, refused %d", accepted, max, full)
	}
	// Every accepted nonce is still refused as a replay: nothing was evicted.
	for i := range 10 * max {
		ok, err := m.Use(ctx, Nonce{ConsumerKey: "flood", Nonce: fmt.Sprint(i), Timestamp: 1e9}, t0, exp)
		if ok {
			t.Fatalf("Use(nonce %d) after the flood = %v, %v: a nonce was replaced", i, ok, err)
		}
	}
	// After expiry the store takes new nonces again and shrinks.
	later := exp.Add(time.Second)
	for i := range max / 2 {
		if ok, err := m.Use(ctx, Nonce{ConsumerKey: "later", Nonce: fmt.Sprint(i)}, later, later.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("Use(new nonce %d) after expiry = %v, %v", i, ok, err)
		}
	}
	if n := m.Len(); n > max/2+nonceShards*2 {
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
				ok, err := m.Use(ctx, Nonce{ConsumerKey: "c", Nonce: fmt.Sprint(i), Timestamp: 1e9}, t0, t0.Add(time.Minute))
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
		m.Use(context.Background(), Nonce{ConsumerKey: "c", Nonce: fmt.Sprint(i), Timestamp: 1e9}, t0, t0.Add(time.Minute))
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

// TestMemoryNonceStoreExpiredBehindLive fills a shard with nonces that
// expire behind one that lives longer, as a nonce with a clock minutes fast
// does. Once they expire the shard takes new nonces, though the first is
// still live; replays of it stay refused.
func TestMemoryNonceStoreExpiredBehindLive(t *testing.T) {
	s := &nonceShard{seen: make(map[uint64]int64)}
	const limit = 4
	use := func(h uint64, now, exp int64, want bool, wantErr error) {
		t.Helper()
		if got, err := s.use(h, now, exp, limit); got != want || !errors.Is(err, wantErr) {
			t.Errorf("use(%d, %d, %d) = %v, %v; want %v, %v", h, now, exp, got, err, want, wantErr)
		}
	}
	use(1, 0, 600, true, nil) // ten minutes: a timestamp five minutes ahead
	use(2, 0, 300, true, nil)
	use(3, 0, 300, true, nil)
	use(4, 0, 300, true, nil)
	use(5, 100, 400, false, ErrNonceStoreFull) // four live nonces: full
	use(6, 200, 500, false, ErrNonceStoreFull) // still full; the sweep at 100 freed nothing
	use(5, 301, 601, true, nil)                // 2, 3 and 4 have expired behind 1
	use(6, 301, 601, true, nil)
	use(7, 301, 601, true, nil)
	use(8, 301, 601, false, ErrNonceStoreFull)
	use(1, 301, 601, false, nil) // a replay
	use(5, 302, 602, false, nil)
	if len(s.seen) != limit || len(s.order)-s.head != limit {
		t.Errorf("%d nonces, %d in order; want %d", len(s.seen), len(s.order)-s.head, limit)
	}

	// A nonce with an old timestamp expires before the earliest expiry
	// the last sweep saw, and behind a live one.
	s = &nonceShard{seen: make(map[uint64]int64)}
	use(1, 0, 600, true, nil)
	use(2, 0, 500, true, nil)
	use(3, 0, 500, true, nil)
	use(4, 0, 500, true, nil)
	use(5, 10, 510, false, ErrNonceStoreFull)
	use(5, 501, 801, true, nil) // swept 2, 3 and 4; 1 expires next, at 600
	use(6, 502, 520, true, nil) // expires first
	use(7, 503, 803, true, nil)
	use(8, 504, 804, false, ErrNonceStoreFull)
	use(8, 521, 821, true, nil) // 6 expired behind 1
}
