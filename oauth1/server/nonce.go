package server

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
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

// maxNonceLen bounds the nonces the Verifier passes on to a NonceStore:
// clients send nonces of a few dozen bytes.
const maxNonceLen = 256

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
//
// n.ConsumerKey is the consumer key as the request sent it; a store is
// told nothing of the registration it was verified with. A store shared by
// the Verifiers of several tenants, whose clients may have chosen the same
// consumer key, keeps the tenants apart itself: a store for each tenant,
// or for redisstore, a key prefix for each. Only a [MemoryNonceStore]
// (the default) is told the registration too, by the Verifier.
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

// Fair refusal: a client that holds at least a 1024th of MaxNonces (its
// floor) may store a nonce only while the store holds less than three
// quarters of MaxNonces, less what the client holds, unless no other
// client holds any; the last quarter is kept for clients under their floor.
const (
	fairFloorDivisor = 1024
	fairPoolQuarters = 3
)

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
// # Tenants
//
// A client, to the store, is a consumer key and the registration that a
// [Verifier] verified its requests with: the consumer secret for HMAC and
// PLAINTEXT, the public key for RSA. Two tenants of one process whose
// clients both registered "acme", with other secrets, are two clients: a
// nonce one used is fresh at the other, and each has its own share. Copies
// of a Verifier, and tenants that gave one client the same credentials,
// verify with the same registration, and refuse each other's replays. The
// store keeps a keyed 64-bit hash of the secret or key, never the secret.
// Nonces recorded by calling Use directly are the consumer key's alone.
//
// A client's nonces are charged, against its share and floor, to its
// consumer key at its tenant, which for the store is the Verifier's Store
// (the same map, pointer or comparable value; a Provider for all of its
// endpoints): a client that rotates its secret, its nonces under the old
// secret still unexpired, holds one share and one floor however many
// times it rotates, while a client of another tenant with the same key
// has a share of its own. (A Store that is a func, or a value that cannot
// be compared, makes each registration a tenant of its own.)
//
// # Fair refusal
//
// A client's floor is a 1024th of MaxNonces (1,024 nonces by default).
// A client that holds fewer unexpired nonces than its floor is refused
// only when the store is full or the client holds its share. A client
// that holds its floor or more is refused, too, when it holds at least as
// many as the store has room for below three quarters of MaxNonces: it
// may take no more than it leaves. So the last quarter is kept for the
// clients under their floor, and however many clients flood the store,
// with valid requests, one after another or all at once, they are refused
// first, and a client under its floor is served until clients under theirs
// have filled the last quarter, which takes 256 clients or more. A client
// alone in the store is refused only by its share and MaxNonces (a share
// over three quarters of MaxNonces lets it take the last quarter too).
//
// # Sizing
//
// A nonce costs about 57 bytes, and each consumer key with unexpired
// nonces about 400 more and its length. The Verifier keeps a nonce until
// its timestamp leaves the window: Window plus a second after the
// timestamp, so about five minutes for a client whose clock is right and
// up to ten for one that dates its requests five minutes ahead (the
// default Window). A consumer key whose share is S nonces can thus sustain
// S/301 verified requests a second with the right time, S/601 at worst. With the
// defaults, MaxNonces 1<<20 (about 60 MB when full) and a share of
// 131,072 (about 7.5 MB), that is 435 requests a second for each client,
// 218 at worst. Clients that flood hold three quarters of the store, and
// each its floor, at most; while they do, a client busier than its floor
// is served while it holds less than they leave. A store that serves one
// client, or a few busy ones, raises MaxNoncesPerConsumer, up to MaxNonces.
type MemoryNonceStore struct {
	// MaxNonces is the number of nonces the store holds at most; zero
	// means 1<<20 (about 60 MB when full). Exactly MaxNonces distinct unexpired nonces
	// are accepted (three quarters of it from clients over their floor:
	// see Fair refusal); the next is refused with ErrStoreFull, after the
	// store has dropped every expired nonce to make room.
	MaxNonces int

	// MaxNoncesPerConsumer is the number of nonces the store holds at
	// most for one consumer key at one tenant (see Tenants), its share of MaxNonces; zero
	// means an eighth of MaxNonces, at least one. Exactly that many
	// distinct unexpired nonces of one client are accepted, while the
	// store has room; the next is refused with ErrStoreFull, and the other
	// clients are not affected. A value over MaxNonces means MaxNonces.
	MaxNoncesPerConsumer int

	once sync.Once
	seed maphash.Seed
	// count is the number of nonces in all shards, reserved before a
	// nonce is added so that concurrent Uses in different shards never
	// take the store past MaxNonces.
	count atomic.Int64
	// clients is the number of holdings in all shards: of the holders
	// whose clients hold nonces, expired or not.
	clients atomic.Int64
	// nextSweep is no later than the earliest expiry of any nonce, once a
	// sweep has set it: until then a sweep would free nothing.
	nextSweep atomic.Int64
	// A client's nonces are all in the shard its hash selects, so that its
	// share is counted under one lock.
	shards [nonceShards]nonceShard
}

type nonceShard struct {
	mu        sync.Mutex
	consumers map[client]*nonceSet // a client → its nonces; no empty set is kept
	holdings  map[holder]*holding  // a holder → what its clients hold; no empty holding is kept
}

// A client is whose nonces a nonceSet holds: a consumer key and the
// fingerprint of the registration that signed for it (see registration),
// zero for nonces recorded by Use.
type client struct {
	key string
	reg uint64
}

// A holder is whom a client's nonces are charged to, against a share and
// a floor: its consumer key at a tenant, the fingerprint of the Verifier's
// Store (see tenantOf), zero for nonces recorded by Use. So a client that
// rotates its secret at one tenant holds one share and one floor,
// whatever the number of its registrations, and tenants stay apart.
type holder struct {
	key    string
	tenant uint64
}

// A holding is what the clients of one holder hold: the sets charged to
// it, all in the shard of its consumer key, and their number of nonces.
// A set is charged to the holder of the first nonce recorded in it (a
// tenant that gave a client the same credentials as another shares that
// client's set, and its holding).
type holding struct {
	who  holder
	held int64     // the nonces of its sets, expired or not
	sets *nonceSet // the first of its sets, linked by next
	// nextSweep is no later than the earliest expiry in its sets, once a
	// sweep of the holding has set it; before, it is zero.
	nextSweep int64
}

// A nonceSet holds the nonces of one client.
type nonceSet struct {
	reg        uint64           // the client's, whose key is hold.who.key
	hold       *holding         // charged with the nonces of the set
	prev, next *nonceSet        // the holding's other sets
	seen       map[uint64]int64 // hash → expiry, Unix nanoseconds
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
		m.shards[i].consumers = make(map[client]*nonceSet)
		m.shards[i].holdings = make(map[holder]*holding)
	}
}

// Use records n until expires and reports whether n was fresh. It keeps
// the nonces of n.ConsumerKey together, whatever registration signed them;
// a [Verifier] keeps those of each registration apart (see Tenants).
func (m *MemoryNonceStore) Use(_ context.Context, n Nonce, now, expires time.Time) (bool, error) {
	m.once.Do(m.init)
	return m.use(n, 0, nil, now, expires)
}

// use is Use for the nonces of the client whose registration's
// fingerprint is reg, charged to its key at the tenant of store (see
// tenant; reg zero and store nil for Use).
func (m *MemoryNonceStore) use(n Nonce, reg uint64, store CredentialStore, now, expires time.Time) (bool, error) {
	// The consumer key is left out: a set holds the nonces of one key.
	// The token's length keeps ("ab", "c") and ("a", "bc") apart, and the
	// timestamp is of fixed length.
	var h maphash.Hash
	h.SetSeed(m.seed)
	var num [8]byte
	binary.LittleEndian.PutUint64(num[:], uint64(len(n.Token)))
	h.Write(num[:])
	h.WriteString(n.Token)
	h.WriteString(n.Value)
	binary.LittleEndian.PutUint64(num[:], uint64(n.Timestamp))
	h.Write(num[:])
	sum := h.Sum64()

	b := m.bounds()
	c := client{n.ConsumerKey, reg}
	// All the sets of a consumer key are in one shard, so that a holder's
	// nonces are counted under one lock.
	s := &m.shards[maphash.String(m.seed, n.ConsumerKey)%nonceShards]
	t, exp := now.UnixNano(), expires.UnixNano()
	s.mu.Lock()
	fresh, err := s.use(m, b, c, store, sum, t, exp)
	s.mu.Unlock()
	if err != errNonceStoreFull && err != errOverFair { // not full, or full for this client only
		return fresh, err
	}
	// Each set drops the expired nonces at the front of its insertion
	// order as it goes; those behind a live one (sent with a clock minutes
	// fast) and those of idle clients wait for this sweep.
	m.sweep(t)
	s.mu.Lock()
	fresh, err = s.use(m, b, c, store, sum, t, exp)
	s.mu.Unlock()
	if err == errOverFair {
		// %q: a key, though registered, is no place for control characters.
		err = fmt.Errorf("oauth1: consumer key %.64q holds more than its fair share of the nonce store: %w", n.ConsumerKey, errNonceStoreFull)
	}
	return fresh, err
}

// nonceBounds are a store's bounds, in nonces: its capacity, a client's
// share, and for fair refusal, a client's floor and the pool that clients
// at or over their floor share.
type nonceBounds struct{ limit, share, floor, pool int64 }

func (m *MemoryNonceStore) bounds() nonceBounds {
	limit := int64(m.MaxNonces)
	if limit <= 0 {
		limit = defaultMaxNonces
	}
	share := int64(m.MaxNoncesPerConsumer)
	if share <= 0 {
		share = max(limit/consumerShareDivisor, 1)
	}
	return nonceBounds{
		limit: limit,
		share: min(share, limit),
		floor: max(limit/fairFloorDivisor, 1),
		pool:  max(limit/4*fairPoolQuarters+limit%4*fairPoolQuarters/4, 1),
	}
}

// use is Use for the shard that holds the nonces of c, at time t, in store
// m with bounds b, charging them to c's key at the tenant of store when c
// holds none: only then is the tenant worked out.
// It records nothing, and returns errNonceStoreFull, when h is not in the
// set and the store has no room, errOverFair when the store has no room
// for a holder that holds as much as c's, or another error wrapping
// errNonceStoreFull when c's holder holds its share.
func (s *nonceShard) use(m *MemoryNonceStore, b nonceBounds, c client, store CredentialStore, h uint64, t, exp int64) (bool, error) {
	set := s.consumers[c]
	if set == nil {
		var tenant uint64
		if store != nil {
			if tenant = tenantOf(m.seed, store); tenant == 0 {
				tenant = c.reg // no identity: a tenant of its own
			}
		}
		hd := s.holdings[holder{c.key, tenant}]
		if hd == nil {
			// A copy: the key may be part of a larger string, such as a header.
			hd = &holding{who: holder{strings.Clone(c.key), tenant}}
			s.holdings[hd.who] = hd
			m.clients.Add(1)
		}
		set = &nonceSet{reg: c.reg, hold: hd, next: hd.sets, seen: make(map[uint64]int64)}
		if hd.sets != nil {
			hd.sets.prev = set
		}
		hd.sets = set
		s.consumers[client{hd.who.key, c.reg}] = set
	}
	fresh, err := set.use(s, m, b, h, t, exp)
	if len(set.seen) == 0 {
		s.remove(m, set)
	}
	if err == errShareFull {
		// %q: a key, though registered, is no place for control characters.
		err = fmt.Errorf("oauth1: consumer key %.64q holds its share of the nonce store, %d unexpired nonces: %w", c.key, b.share, errNonceStoreFull)
	}
	return fresh, err
}

// use is nonceShard.use for the client's set, in shard s.
func (set *nonceSet) use(s *nonceShard, m *MemoryNonceStore, b nonceBounds, h uint64, t, exp int64) (bool, error) {
	e, ok := set.seen[h]
	if ok && e > t {
		return false, nil
	}
	set.purge(t, &m.count)
	if ok {
		_, ok = set.seen[h] // purge may have dropped the expired entry
	}
	hd := set.hold
	if !ok {
		if hd.held >= b.share || !reserve(&m.count, hd.room(m, b)) {
			// Expired nonces behind a live one, or in the holder's other
			// sets (of a secret rotated away), still count; a sweep, at
			// most once per expiry, frees them.
			if t >= hd.nextSweep {
				hd.sweep(s, m, set, t)
			}
			if hd.held >= b.share {
				return false, errShareFull
			}
			if !reserve(&m.count, hd.room(m, b)) {
				if hd.held >= b.floor && m.clients.Load() > 1 {
					return false, errOverFair
				}
				return false, errNonceStoreFull
			}
		}
		hd.held++
	}
	set.seen[h] = exp
	set.order = append(set.order, nonceEntry{h, exp})
	set.nextSweep = min(set.nextSweep, exp) // an old timestamp expires soon
	hd.nextSweep = min(hd.nextSweep, exp)
	m.lowerNextSweep(exp)
	return true, nil
}

// room returns how many nonces the store may hold, at most, for it to
// take one more of the holder: its capacity for a holder under its floor,
// or alone in the store; for any other, the pool less what the holder
// holds, so that a client may take no more than it leaves.
func (hd *holding) room(m *MemoryNonceStore, b nonceBounds) int64 {
	if hd.held < b.floor || m.clients.Load() <= 1 {
		return b.limit
	}
	return b.pool - hd.held
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

// errShareFull is nonceSet.use's refusal of a client that holds its
// share; nonceShard.use names the key.
var errShareFull = errors.New("share full")

// errOverFair is nonceSet.use's refusal of a client at or over its floor
// when the store has no room for as much as it holds; MemoryNonceStore.use
// names the key, once a sweep of the store has freed nothing.
var errOverFair = errors.New("over its fair share")

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

// defaultNonces is the NonceStore of every Verifier, and every Provider,
// whose Nonces is nil: one for the process, so that no copy of a Verifier,
// however a program holds it, accepts a request that another accepted.
// Sharing it refuses only true replays, since a nonce is keyed by client
// (consumer key and registration), token, nonce and timestamp, and each
// client's share and fair refusal keep one from filling it for the others.
var defaultNonces MemoryNonceStore
