package server

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A Nonce identifies one signed request for replay protection: RFC 5849
// §3.3 makes the nonce unique per timestamp, client credentials and token
// combination. All fields are decoded values. The Verifier refuses, before
// the store sees it, a nonce longer than 256 bytes, with a control
// character or not UTF-8, as it refuses such a consumer key or token.
type Nonce struct {
	ConsumerKey string
	Token       string // empty for requests without a token
	Value       string // oauth_nonce
	Timestamp   int64  // oauth_timestamp, seconds since 1970
}

// A NonceStore remembers the nonces of verified requests, so that a
// [Verifier] can refuse a replay. Use records n and reports whether it was
// fresh (not recorded before, or recorded but already expired); it must keep
// n at least until expires, after which the Verifier's timestamp window
// refuses the request anyway. now is the Verifier's clock. A store backed by
// a database implements Use as one atomic insert-if-absent that keeps n for
// expires − now (for example Redis SET NX PX; an absolute PXAT expires
// would trust the database's clock to agree with now, which a fixed test
// clock does not). Use must be safe for concurrent use.
//
// An error from Use fails the verification: a store that cannot be reached
// returns one wrapping [ErrStoreUnavailable], which [Verifier.Middleware]
// answers with 503 Service Unavailable. A store that cannot tell whether a
// nonce is fresh must return an error, never true. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestNonceStore, for implementations.
type NonceStore interface {
	Use(ctx context.Context, n Nonce, now, expires time.Time) (fresh bool, err error)
}

// errNonceStoreFull, wrapping [ErrStoreFull], is returned by
// [MemoryNonceStore.Use] when the store holds its maximum number of
// unexpired nonces. The store then refuses new requests rather than
// forgetting nonces that could be replayed.
var errNonceStoreFull = fmt.Errorf("%w: nonces", ErrStoreFull)

// defaultMaxNonces is the capacity of a [MemoryNonceStore] whose MaxNonces
// is zero: about 60 MB when full (57 bytes per nonce measured with a million
// nonces, BenchmarkMemoryNonceStore1M in bench/).
const defaultMaxNonces = 1 << 20

// consumerShareDivisor sets the share of a consumer key in a
// MemoryNonceStore whose MaxNoncesPerConsumer is zero: an eighth of
// MaxNonces, so that it takes eight consumers flooding together to fill the
// store.
const consumerShareDivisor = 8

const nonceShards = 32

// MemoryNonceStore is an in-memory [NonceStore] for a single process. The
// zero value is ready to use and safe for concurrent use; a MemoryNonceStore
// must not be copied after first use.
//
// It keeps a 64-bit keyed hash of each nonce (with a per-store random seed,
// so that nobody can construct colliding nonces; an accidental collision,
// about one in 10^13 per request at a million stored nonces, makes a fresh
// request look like a replay, never the reverse), and drops nonces once they
// expire. Memory is bounded: at most MaxNonces nonces are kept, at most
// MaxNoncesPerConsumer of them for one consumer key, and when that many are
// unexpired, Use fails with [ErrStoreFull] instead of evicting any.
// Since the Verifier records a nonce only after the signature checks out,
// only holders of valid credentials can fill the store, and each only its
// own share: a client that floods it with valid requests is refused with
// ErrStoreFull (503 from the Middleware) while the others are served.
//
// # Sizing
//
// A nonce costs about 57 bytes, and each consumer key with unexpired
// nonces about 250 more and its length. The Verifier keeps a nonce until
// its timestamp leaves the window: Window plus a second after the
// timestamp, so about five minutes for a client whose clock is right and
// up to ten for one that dates its requests five minutes ahead (the
// default Window). A consumer key whose share is S nonces can thus sustain
// S/301 verified requests a second with the right time, S/601 at worst. With the
// defaults, MaxNonces 1<<20 (about 60 MB when full) and a share of
// 131,072 (about 7.5 MB), that is 435 requests a second for each client,
// 218 at worst, and no fewer than eight registered clients flooding at
// once can fill the store. A store that serves one client, or a few busy
// ones, raises MaxNoncesPerConsumer, up to MaxNonces.
type MemoryNonceStore struct {
	// MaxNonces is the number of nonces the store holds at most; zero
	// means 1<<20 (about 60 MB when full). Exactly MaxNonces distinct unexpired nonces
	// are accepted; the next is refused with ErrStoreFull, after the
	// store has dropped every expired nonce to make room.
	MaxNonces int

	// MaxNoncesPerConsumer is the number of nonces the store holds at
	// most for one consumer key, its share of MaxNonces; zero means an
	// eighth of MaxNonces, at least one. Exactly that many distinct
	// unexpired nonces of one consumer key are accepted; the next is
	// refused with ErrStoreFull, and the other consumer keys are not
	// affected. A value over MaxNonces means MaxNonces.
	MaxNoncesPerConsumer int

	once sync.Once
	seed maphash.Seed
	// count is the number of nonces in all shards, reserved before a
	// nonce is added so that concurrent Uses in different shards never
	// take the store past MaxNonces.
	count atomic.Int64
	// A consumer key's nonces are all in the shard its hash selects, so
	// that its share is counted under one lock.
	shards [nonceShards]nonceShard
}

type nonceShard struct {
	mu        sync.Mutex
	consumers map[string]*nonceSet // consumer key → its nonces; no empty set is kept
}

// A nonceSet holds the nonces of one consumer key.
type nonceSet struct {
	seen map[uint64]int64 // hash → expiry, Unix nanoseconds
	// order holds the hashes in insertion order, for purging. Expiries are
	// nearly, not strictly, increasing: a nonce behind an unexpired one waits
	// for it, and Use treats it as absent meanwhile; a full set is swept
	// for such nonces before it refuses one.
	order []nonceEntry
	head  int
	// nextSweep is no later than the earliest expiry in order, once a sweep
	// has set it; before, it is zero.
	nextSweep int64
}

type nonceEntry struct {
	h       uint64
	expires int64
}

var _ NonceStore = (*MemoryNonceStore)(nil)

func (m *MemoryNonceStore) init() {
	m.seed = maphash.MakeSeed()
	for i := range m.shards {
		m.shards[i].consumers = make(map[string]*nonceSet)
	}
}

// limits returns the store's capacity and a consumer key's share.
func (m *MemoryNonceStore) limits() (limit, share int64) {
	limit = int64(m.MaxNonces)
	if limit <= 0 {
		limit = defaultMaxNonces
	}
	share = int64(m.MaxNoncesPerConsumer)
	if share <= 0 {
		share = max(limit/consumerShareDivisor, 1)
	}
	return limit, min(share, limit)
}

// size returns the number of nonces the store holds, expired or not.
func (m *MemoryNonceStore) size() int {
	m.once.Do(m.init)
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		for _, set := range s.consumers {
			n += len(set.seen)
		}
		s.mu.Unlock()
	}
	return n
}

// Use records n until expires and reports whether n was fresh.
func (m *MemoryNonceStore) Use(_ context.Context, n Nonce, now, expires time.Time) (bool, error) {
	m.once.Do(m.init)
	var h maphash.Hash
	h.SetSeed(m.seed)
	// Length prefixes keep ("ab", "c") and ("a", "bc") apart.
	var num [20]byte
	for _, s := range [...]string{n.ConsumerKey, n.Token, n.Value} {
		h.Write(strconv.AppendInt(num[:0], int64(len(s)), 10))
		h.WriteByte(':')
		h.WriteString(s)
	}
	h.Write(strconv.AppendInt(num[:0], n.Timestamp, 10))
	sum := h.Sum64()

	limit, share := m.limits()
	s := &m.shards[maphash.String(m.seed, n.ConsumerKey)%nonceShards]
	t, exp := now.UnixNano(), expires.UnixNano()
	s.mu.Lock()
	fresh, err := s.use(&m.count, limit, share, n.ConsumerKey, sum, t, exp)
	s.mu.Unlock()
	if err != errNonceStoreFull { // not full, or full for this consumer key only
		return fresh, err
	}
	// Each set drops the expired nonces at the front of its insertion
	// order as it goes; those behind a live one (sent with a clock minutes
	// fast) and those of idle consumers wait for this sweep.
	m.sweep(t)
	s.mu.Lock()
	fresh, err = s.use(&m.count, limit, share, n.ConsumerKey, sum, t, exp)
	s.mu.Unlock()
	return fresh, err
}

// sweep drops the expired nonces of every shard, one shard at a time.
func (m *MemoryNonceStore) sweep(now int64) {
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		for key, set := range s.consumers {
			if now >= set.nextSweep {
				set.sweep(now, &m.count)
			}
			if len(set.seen) == 0 {
				delete(s.consumers, key)
			}
		}
		s.mu.Unlock()
	}
}

// use is Use for the shard that holds the nonces of consumer, at time t,
// in a store that holds count nonces and has room for limit, share of
// them the consumer's. It records nothing, and returns errNonceStoreFull, when
// h is not in the set and the store has no room, or another error wrapping
// errNonceStoreFull when the consumer holds its share.
func (s *nonceShard) use(count *atomic.Int64, limit, share int64, consumer string, h uint64, t, exp int64) (bool, error) {
	set := s.consumers[consumer]
	if set == nil {
		set = &nonceSet{seen: make(map[uint64]int64)}
		// A copy: the key may be part of a larger string, such as a header.
		s.consumers[strings.Clone(consumer)] = set
	}
	fresh, err := set.use(count, limit, share, h, t, exp)
	if len(set.seen) == 0 {
		delete(s.consumers, consumer)
	}
	if err == errShareFull {
		// %q: a key, though registered, is no place for control characters.
		err = fmt.Errorf("oauth1: consumer key %.64q holds its share of the nonce store, %d unexpired nonces: %w", consumer, share, errNonceStoreFull)
	}
	return fresh, err
}

// errShareFull is nonceSet.use's refusal of a consumer key that holds its
// share; nonceShard.use names the key.
var errShareFull = errors.New("share full")

// use is nonceShard.use for the consumer's set.
func (set *nonceSet) use(count *atomic.Int64, limit, share int64, h uint64, t, exp int64) (bool, error) {
	e, ok := set.seen[h]
	if ok && e > t {
		return false, nil
	}
	set.purge(t, count)
	if ok {
		_, ok = set.seen[h] // purge may have dropped the expired entry
	}
	if !ok && int64(len(set.seen)) >= share {
		// Expired nonces behind a live one still count; a sweep, at most
		// once per expiry, frees them.
		if t >= set.nextSweep {
			set.sweep(t, count)
		}
		if int64(len(set.seen)) >= share {
			return false, errShareFull
		}
	}
	if !ok && !reserve(count, limit) {
		return false, errNonceStoreFull
	}
	set.seen[h] = exp
	set.order = append(set.order, nonceEntry{h, exp})
	set.nextSweep = min(set.nextSweep, exp) // an old timestamp expires soon
	return true, nil
}

// reserve adds one to count unless that would take it past limit. A
// compare-and-swap, rather than an add undone on overflow, so that a
// reservation that fails never makes another one fail.
func reserve(count *atomic.Int64, limit int64) bool {
	for {
		n := count.Load()
		if n >= limit {
			return false
		}
		if count.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// sweep drops every expired nonce, wherever it is in the insertion order,
// and notes when the next one expires: until then another sweep would free
// nothing, so a store that is full of live nonces does not sweep the shard
// on every refused request.
func (s *nonceSet) sweep(now int64, count *atomic.Int64) {
	next := int64(math.MaxInt64)
	kept := s.order[:0]
	dropped := 0
	for _, e := range s.order[s.head:] {
		if s.seen[e.h] != e.expires {
			continue // superseded: the nonce was recorded again
		}
		if e.expires <= now {
			delete(s.seen, e.h)
			dropped++
			continue
		}
		kept = append(kept, e)
		next = min(next, e.expires)
	}
	clear(s.order[len(kept):])
	s.order, s.head, s.nextSweep = kept, 0, next
	count.Add(-int64(dropped))
}

// purge drops the expired nonces at the front of the insertion order.
func (s *nonceSet) purge(now int64, count *atomic.Int64) {
	dropped := 0
	for s.head < len(s.order) && s.order[s.head].expires <= now {
		e := s.order[s.head]
		// The map may hold a later expiry for the same hash, if the nonce was
		// recorded again after expiring; only the matching entry removes it.
		if s.seen[e.h] == e.expires {
			delete(s.seen, e.h)
			dropped++
		}
		s.head++
	}
	if dropped > 0 {
		count.Add(-int64(dropped))
	}
	// Compact when the dead prefix is half the slice, so that order stays
	// within twice the live count.
	if s.head > 0 && s.head >= len(s.order)/2 {
		n := copy(s.order, s.order[s.head:])
		clear(s.order[n:])
		s.order = s.order[:n]
		s.head = 0
	}
}

// defaultNonces is the NonceStore of every Verifier, and every Provider,
// whose Nonces is nil: one for the process, so that no copy of a Verifier,
// however a program holds it, accepts a request that another accepted.
// Sharing it refuses only true replays, since a nonce is keyed by consumer
// key, token, nonce and timestamp, and each consumer's share keeps one
// client from filling it for the others.
var defaultNonces MemoryNonceStore
