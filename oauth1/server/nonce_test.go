package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// sets returns the sets of m's consumer keys; m must not be in use.
func (m *MemoryNonceStore) sets() map[*nonceSet]bool {
	sets := make(map[*nonceSet]bool)
	for i := range m.shards {
		for _, s := range m.shards[i].consumers {
			sets[s] = true
		}
	}
	return sets
}

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
	m := &MemoryNonceStore{MaxNonces: max, MaxNoncesPerConsumer: max}
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(time.Minute)
	accepted, full := 0, 0
	for i := range 10 * max {
		ok, err := m.Use(ctx, Nonce{ConsumerKey: "flood", Value: fmt.Sprint(i), Timestamp: 1e9}, t0, exp)
		switch {
		case errors.Is(err, errNonceStoreFull):
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
	for s := range m.sets() {
		if len(s.order)-s.head > 2*len(s.seen)+2 {
			t.Errorf("order holds %d entries for %d nonces", len(s.order)-s.head, len(s.seen))
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

	// A consumer key of 21 bytes with a nonce: its set, documented about
	// 400 bytes and the key (its set, and what its key holds at the
	// tenant).
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("consumer-key-%08d", i)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	m = new(MemoryNonceStore)
	for i := range n {
		m.Use(context.Background(), Nonce{ConsumerKey: keys[i], Value: "x", Timestamp: 1e9}, t0, t0.Add(time.Minute))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perConsumer := float64(after.HeapAlloc-before.HeapAlloc)/n - perNonce
	t.Logf("%.0f bytes per consumer key", perConsumer)
	if perConsumer > 550 {
		t.Errorf("MemoryNonceStore holds %.0f bytes per consumer key, documented about 400 and the key", perConsumer)
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
	m = &MemoryNonceStore{MaxNonces: limit, MaxNoncesPerConsumer: limit}
	use("1", 0, 600, true, nil) // ten minutes: a timestamp five minutes ahead
	use("2", 0, 300, true, nil)
	use("3", 0, 300, true, nil)
	use("4", 0, 300, true, nil)
	use("5", 100, 400, false, errNonceStoreFull) // four live nonces: full
	use("6", 200, 500, false, errNonceStoreFull) // still full; the sweep at 100 freed nothing
	use("5", 301, 601, true, nil)                // 2, 3 and 4 have expired behind 1
	use("6", 301, 601, true, nil)
	use("7", 301, 601, true, nil)
	use("8", 301, 601, false, errNonceStoreFull)
	use("1", 301, 601, false, nil) // a replay
	use("5", 302, 602, false, nil)
	if n := m.size(); n != limit {
		t.Errorf("Len() = %d, want %d", n, limit)
	}
	for s := range m.sets() {
		if len(s.order)-s.head != len(s.seen) {
			t.Errorf("%d nonces, %d in order", len(s.seen), len(s.order)-s.head)
		}
	}

	// A nonce with an old timestamp expires before the earliest expiry
	// the last sweep saw, and behind a live one.
	m = &MemoryNonceStore{MaxNonces: limit, MaxNoncesPerConsumer: limit}
	use("1", 0, 600, true, nil)
	use("2", 0, 500, true, nil)
	use("3", 0, 500, true, nil)
	use("4", 0, 500, true, nil)
	use("5", 10, 510, false, errNonceStoreFull)
	use("5", 501, 801, true, nil) // swept 2, 3 and 4; 1 expires next, at 600
	use("6", 502, 520, true, nil) // expires first
	use("7", 503, 803, true, nil)
	use("8", 504, 804, false, errNonceStoreFull)
	use("8", 521, 821, true, nil) // 6 expired behind 1
}

// TestMemoryNonceStoreExactBound checks that MaxNonces is the exact bound:
// that many distinct unexpired nonces are accepted, whatever shards their
// hashes fall in, the next one gets errNonceStoreFull, and once they have
// expired there is room for as many again. Each client holds one nonce,
// under its floor, so that fair refusal refuses none before the bound.
func TestMemoryNonceStoreExactBound(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	exp := t0.Add(time.Minute)
	for _, max := range []int{1, 2, 31, 64, 1000} {
		m := &MemoryNonceStore{MaxNonces: max, MaxNoncesPerConsumer: max}
		fill := func(prefix string, now time.Time) {
			t.Helper()
			for i := range max {
				// A consumer key for each, within its share and floor: the
				// store's bound, not a share, refuses the next.
				ok, err := m.Use(ctx, Nonce{ConsumerKey: fmt.Sprint("c", i), Value: prefix + fmt.Sprint(i)}, now, now.Add(time.Minute))
				if !ok || err != nil {
					t.Fatalf("MaxNonces %d: Use(nonce %d of %d) = %v, %v, want true, nil", max, i+1, max, ok, err)
				}
			}
			for i := range 3 {
				ok, err := m.Use(ctx, Nonce{ConsumerKey: fmt.Sprint("d", i), Value: prefix + "over" + fmt.Sprint(i)}, now, now.Add(time.Minute))
				if ok || err != errNonceStoreFull {
					t.Fatalf("MaxNonces %d: Use(nonce %d) = %v, %v, want false, errNonceStoreFull", max, max+1+i, ok, err)
				}
			}
			// A replay is still a replay, not a full store.
			if ok, err := m.Use(ctx, Nonce{ConsumerKey: "c0", Value: prefix + "0"}, now, now.Add(time.Minute)); ok || err != nil {
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
// store, each nonce from a client of its own (under its floor): exactly
// MaxNonces nonces are accepted, never more.
func TestMemoryNonceStoreConcurrentBound(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1e9, 0)
	for _, max := range []int{1, 64, 1000} {
		m := &MemoryNonceStore{MaxNonces: max, MaxNoncesPerConsumer: max}
		const workers = 8
		var accepted, full atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range max/2 + 10 {
					ok, err := m.Use(ctx, Nonce{ConsumerKey: fmt.Sprint("c", w, "-", i), Value: "n"}, t0, t0.Add(time.Minute))
					switch {
					case ok && err == nil:
						accepted.Add(1)
					case errors.Is(err, errNonceStoreFull):
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

// TestMemoryNonceStoreConsumerShare floods a store of the default size from
// one consumer key, with valid nonces dated five minutes ahead, until it is
// refused: the flood takes its share, an eighth of the store's 1<<20 nonces
// as documented, and no more; other consumer keys are still served, and the
// flood's own replays are still replays.
func TestMemoryNonceStoreConsumerShare(t *testing.T) {
	var m MemoryNonceStore
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	ahead := now.Add(5 * time.Minute)
	exp := ahead.Add(5*time.Minute + time.Second) // the Verifier's expiry for a timestamp five minutes ahead
	const share = (1 << 20) / 8
	flood := func(i int) Nonce { return Nonce{ConsumerKey: "flood", Value: strconv.Itoa(i), Timestamp: ahead.Unix()} }
	accepted := 0
	var err error
	for i := 0; err == nil; i++ {
		var ok bool
		if ok, err = m.Use(ctx, flood(i), now, exp); ok {
			accepted++
		}
		if i > 1<<20 {
			t.Fatalf("the store took %d nonces of one consumer key without refusing one", i)
		}
	}
	if accepted != share || !errors.Is(err, errNonceStoreFull) {
		t.Fatalf("a flood from one consumer key: %d accepted, then %v; want %d, then ErrStoreFull", accepted, err, share)
	}
	if !strings.Contains(err.Error(), `consumer key "flood"`) {
		t.Errorf("the refusal %q does not name the consumer key, for the operator's log", err)
	}
	for _, c := range []string{"honest", "other"} {
		for i := range 3 {
			if ok, err := m.Use(ctx, Nonce{ConsumerKey: c, Value: strconv.Itoa(i), Timestamp: now.Unix()}, now, now.Add(5*time.Minute)); !ok || err != nil {
				t.Errorf("after the flood, Use(consumer %q, nonce %d) = %v, %v; want true, nil", c, i, ok, err)
			}
		}
	}
	if ok, err := m.Use(ctx, flood(0), now, exp); ok || err != nil {
		t.Errorf("a replay of the flood's first nonce = %v, %v; want false, nil", ok, err)
	}
	if ok, err := m.Use(ctx, flood(share+1), now.Add(time.Minute), exp); ok || !errors.Is(err, errNonceStoreFull) {
		t.Errorf("the flood a minute later = %v, %v; want errNonceStoreFull", ok, err)
	}
	// Once its nonces expire, the consumer key has its share again.
	if ok, err := m.Use(ctx, flood(share+1), exp, exp.Add(time.Minute)); !ok || err != nil {
		t.Errorf("the flooding consumer after expiry = %v, %v; want true, nil", ok, err)
	}
}

// TestMemoryNonceStoreShares checks the bounds a store's settings give:
// each consumer key gets exactly its share, and all of them together
// exactly MaxNonces.
func TestMemoryNonceStoreShares(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1e9, 0)
	tests := []struct {
		maxNonces, perConsumer int
		wantShare              int
	}{
		{64, 0, 8},    // an eighth
		{7, 0, 1},     // at least one
		{64, 10, 10},  // as set
		{64, 100, 64}, // no more than the store
	}
	for _, tt := range tests {
		m := &MemoryNonceStore{MaxNonces: tt.maxNonces, MaxNoncesPerConsumer: tt.perConsumer}
		accepted := map[string]int{}
		var lastErr error
		for c := range tt.maxNonces + 1 {
			key := fmt.Sprint("consumer", c)
			for i := range tt.wantShare + 1 {
				ok, err := m.Use(ctx, Nonce{ConsumerKey: key, Value: strconv.Itoa(i)}, now, now.Add(time.Minute))
				if ok {
					accepted[key]++
				} else if !errors.Is(err, errNonceStoreFull) {
					t.Fatalf("%+v: Use(%s, %d) = %v, %v", tt, key, i, ok, err)
				} else {
					lastErr = err
				}
			}
		}
		total := 0
		for key, n := range accepted {
			total += n
			if n > tt.wantShare {
				t.Errorf("%+v: consumer %s got %d nonces, share %d", tt, key, n, tt.wantShare)
			}
		}
		if total != tt.maxNonces || accepted["consumer0"] != tt.wantShare || lastErr != errNonceStoreFull {
			t.Errorf("%+v: %d accepted in all, %d for the first consumer, last refusal %v; want %d, %d, errNonceStoreFull",
				tt, total, accepted["consumer0"], lastErr, tt.maxNonces, tt.wantShare)
		}
	}
}

// TestVerifierFloodingConsumer has one registered client flood a Verifier
// with valid requests: once the client holds its share of the nonce store
// (an eighth of MaxNonces by default), its requests are answered 503, and
// another client's are still served.
func TestVerifierFloodingConsumer(t *testing.T) {
	v := xVerifier()
	v.Nonces = &MemoryNonceStore{MaxNonces: 64}
	h := v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	serve := func(r *http.Request) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	codes := map[int]int{}
	for i := range 64 {
		codes[serve(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", fmt.Sprint("flood", i)))]++
	}
	if codes[http.StatusOK] != 64/8 || codes[http.StatusServiceUnavailable] != 64-64/8 {
		t.Errorf("a flood of 64 requests in a store of 64 nonces was answered %v; want 8 × 200 (its share), 56 × 503", codes)
	}
	other := &oauth1.Config{ConsumerKey: "plain", ConsumerSecret: "plain secret"}
	for i := range 3 {
		r, err := http.NewRequest("GET", "https://api.example.com/r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := other.SignAt(r, nil, time.Unix(xTimestamp, 0), fmt.Sprint("other", i)); err != nil {
			t.Fatal(err)
		}
		if code := serve(received(t, r)); code != http.StatusOK {
			t.Errorf("another client's request %d during the flood = %d, want 200", i, code)
		}
	}
}
