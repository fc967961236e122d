package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
)

// NonceStore is an [server.NonceStore] kept in Redis, shared by every
// Verifier that uses the same Redis and prefix. It is safe for concurrent
// use.
//
// Each consumer key has a bounded share of the store, MaxNoncesPerConsumer
// unexpired nonces, so that a registered client flooding it with valid
// requests fills its own share, not Redis: its requests are then refused
// with an error wrapping [server.ErrStoreFull] (503 with Retry-After
// from the Middleware), and the other clients' are served.
//
// # Fair refusal
//
// On a Redis with a maxmemory, a client that holds 256 unexpired nonces or
// more is refused, with ErrStoreFull, also while its nonces take, at 150
// bytes each, at least the memory that the node holding them has free
// below three quarters of its maxmemory (maxmemory × 3/4 − used_memory,
// read with INFO memory): it may take no more than it leaves. INFO is read
// once in 100 ms at most for each such client, not on each request: in
// between, the nonces it added since are counted against the free memory
// read then. Clients
// that flood, however many, are refused before Redis is full, and the last
// quarter of its memory is kept for the clients that hold fewer than 256
// nonces, which are refused only by a Redis that is full. A client alone
// on a node may thus hold no more than half of the memory free below three
// quarters of maxmemory: for the busiest client to reach its share, give
// Redis a maxmemory of three times the share's memory (150 bytes a nonce)
// over what the rest of its data takes.
//
// # Tenants
//
// A NonceStore is told the consumer key of a nonce, not the registration
// it was verified with: two tenants whose clients both registered "acme"
// and share one store share acme's nonces and its share. Give each tenant
// a NonceStore with a prefix of its own (NewNonceStore(rdb,
// "myapp:tenant-a:")), as its own Verifier's Nonces: its keys are then
// apart from every other tenant's, and fair refusal keeps one tenant's
// flood from filling Redis for the others.
//
// # Sizing
//
// The nonces of a consumer key are kept in one sorted set, under the
// prefix, "nonces:" and the hex SHA-256 of the consumer key, whose members
// are 16-byte hashes of the token, nonce and timestamp, scored by their
// expiry on Redis's clock: about 150 bytes of Redis memory a nonce
// (measured by TestNonceStoreBytes with Redis 7). The Verifier keeps a
// nonce until its timestamp leaves the window: Window plus a second after
// the timestamp, so about five minutes for a client whose clock is right
// and up to ten for one that dates its requests five minutes ahead (the
// default Window). A share of S nonces thus sustains S/301 verified
// requests a second for one client with the right time, S/601 at worst,
// across all the instances that share the store. The default share,
// 131,072 nonces, is 435 requests a second (218 at worst) and at most
// about 20 MB of Redis for each client that floods; size maxmemory for the
// number of clients that might (see Memory and eviction in the package
// documentation), or lower the share. A client that is busier raises it.
//
// All of a consumer key's nonces are in one key, hence on one node of a
// Cluster, and each Use is one script on that key: one client's requests
// are not spread across the Cluster's nodes.
type NonceStore struct {
	// MaxNoncesPerConsumer is the number of unexpired nonces kept at most
	// for one consumer key; zero means 131,072. Exactly that many distinct
	// unexpired nonces of one consumer key are accepted; the next is
	// refused with an error wrapping [server.ErrStoreFull] until some
	// expire. Set it before the store is first used.
	MaxNoncesPerConsumer int

	client  redis.UniversalClient
	prefix  string
	honours bool // client bounds calls by their context's deadline
}

// defaultMaxNoncesPerConsumer is the share of a NonceStore whose
// MaxNoncesPerConsumer is zero, the same as the default share of a
// server.MemoryNonceStore.
const defaultMaxNoncesPerConsumer = 1 << 17

var _ server.NonceStore = (*NonceStore)(nil)

// NewNonceStore returns a NonceStore that keeps its nonces in client under
// keys that start with prefix (such as "myapp:oauth:"); Verifiers that must
// refuse each other's replays share a prefix, and tenants whose consumer
// keys may be alike each have their own.
func NewNonceStore(client redis.UniversalClient, prefix string) *NonceStore {
	return &NonceStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

// Fair refusal in Redis: a client that holds at least fairFloor unexpired
// nonces is refused while they take, at nonceBytes each, at least the
// memory the node that holds them has free below three quarters of its
// maxmemory, read at most once every freeInterval for each client.
const (
	fairFloor    = 256
	nonceBytes   = 150                    // Redis memory a nonce takes, measured by TestNonceStoreBytes
	freeInterval = 100 * time.Millisecond // how long a client's reading of INFO memory is used
)

// useNonce records a nonce: KEYS[1] is its client's sorted set of nonce
// hashes scored by expiry on Redis's clock (Unix milliseconds); ARGV[1] is
// the nonce's hash, ARGV[2] its time to live in milliseconds, ARGV[3] the
// share, ARGV[4] the floor, ARGV[5] the bytes of a nonce and ARGV[6] how
// long, in milliseconds, a reading of free memory is used. It adds the
// nonce unless it is there unexpired (a replay), the share is reached, or
// the client holds at least its floor and as many bytes of nonces as the
// node has free below three quarters of its maxmemory (if it has one);
// then drops the expired members and keeps the set until its last member
// expires. It returns 1 once added, 0 for a replay, 2 when the share is
// reached and 3 for a client over its fair share. Each call costs O(log n)
// in the set's size, plus the members it drops, each once, and for a
// client over its floor, once in ARGV[6] milliseconds, an INFO memory.
//
// The reading is kept in the set itself, so that it is on the node whose
// memory it measures and under the client's key (no other key, no other
// Cluster slot): one member "free <bytes free> <nonces held>" (or "free
// none" without a maxmemory), scored by minus the time of the reading, below
// every nonce (scored by their expiry, positive), so that counting and
// dropping nonces skips it (ZREMRANGEBYSCORE from 0) and the set's last
// member is always a nonce. Until it is ARGV[6] milliseconds old, the
// memory free is the reading less the bytes of the nonces added since.
//
// ZADD is its first write: Redis refuses a script's first write with OOM
// when it is over maxmemory, and lets the writes after it through. The
// reading is written with pcall, so that OOM refuses only the nonce, with
// the same error as before; the stale reading is dropped after, so that
// the first write is still a ZADD.
var useNonce = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local e = redis.call('ZSCORE', KEYS[1], ARGV[1])
if e and tonumber(e) > now then return 0 end
local held = redis.call('ZCOUNT', KEYS[1], string.format('(%.0f', now), '+inf')
if held >= tonumber(ARGV[3]) then return 2 end
if held >= tonumber(ARGV[4]) then
	local nb = tonumber(ARGV[5])
	local free, cached
	local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(0', 'WITHSCORES', 'LIMIT', 0, 1)
	if r[1] and -tonumber(r[2]) > now - tonumber(ARGV[6]) and -tonumber(r[2]) <= now then
		if r[1] == 'free none' then
			cached = true
		else
			local f, h = string.match(r[1], '^free (%-?%d+) (%d+)$')
			if f then
				free = tonumber(f) - (held - tonumber(h)) * nb
				cached = true
			end
		end
	end
	if not cached then
		local info = redis.call('INFO', 'memory')
		local max = tonumber(string.match(info, '\nmaxmemory:(%d+)'))
		local used = tonumber(string.match(info, '\nused_memory:(%d+)'))
		local m = 'free none'
		if max and used and max > 0 then
			free = math.floor(max / 4 * 3 - used)
			m = string.format('free %.0f %.0f', free, held)
		end
		local ok = redis.pcall('ZADD', KEYS[1], -now, m)
		if type(ok) == 'number' then
			redis.call('ZREMRANGEBYSCORE', KEYS[1], string.format('(%.0f', -now), '(0')
		end
	end
	if free and held * nb >= free then return 3 end
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now)
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
`)

// Use records n until expires and reports whether it was fresh, with one
// Lua script on the set of n's consumer key: of any number of concurrent
// calls for the same nonce, from any number of processes, exactly one
// reports true. When the consumer key holds MaxNoncesPerConsumer unexpired
// nonces, a new one is refused with an error wrapping
// [server.ErrStoreFull]. An error from Redis is returned wrapped, with
// [server.ErrStoreUnavailable] when Redis could not answer; the Verifier
// then refuses the request, with 503.
//
// The time to live is expires − now, measured from the moment Redis runs
// the script, on Redis's clock. An absolute expiry would trust the
// Verifier's clock to agree with Redis's: a Verifier whose clock runs
// behind Redis's, or a test with a fixed clock, would see its nonces
// expire at once and accept replays.
func (s *NonceStore) Use(ctx context.Context, n server.Nonce, now, expires time.Time) (bool, error) {
	ttl := max(expires.Sub(now).Milliseconds(), 1)
	share := s.MaxNoncesPerConsumer
	if share <= 0 {
		share = defaultMaxNoncesPerConsumer
	}
	key, member := s.key(n)
	r, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return useNonce.Run(ctx, s.client, []string{key}, member, ttl, share, fairFloor, nonceBytes, freeInterval.Milliseconds()).Int()
	})
	switch {
	case err != nil:
		return false, storeError("recording a nonce", err)
	case r == 1:
		return true, nil
	case r == 0:
		return false, nil // a replay
	case r == 2:
		return false, fmt.Errorf("redisstore: client %.64q holds its share of the nonce store, %d unexpired nonces: %w",
			n.ConsumerKey, share, server.ErrStoreFull)
	case r == 3:
		return false, fmt.Errorf("redisstore: client %.64q holds more than its fair share of Redis's free memory: %w",
			n.ConsumerKey, server.ErrStoreFull)
	}
	return false, fmt.Errorf("redisstore: recording a nonce: unexpected reply %d", r)
}

// key returns the Redis key of the set of n's consumer key, and n's member
// there: the first 16 bytes of the SHA-256 of the length-prefixed fields,
// so that a member is short whatever the client sent, and ("ab", "c") and
// ("a", "bc") stay apart. The consumer key is hashed into both, so that a
// member never matches another client's nonce.
func (s *NonceStore) key(n server.Nonce) (key, member string) {
	h := sha256.New()
	var num [8]byte
	for _, f := range [...]string{n.ConsumerKey, n.Token, n.Value} {
		binary.BigEndian.PutUint64(num[:], uint64(len(f)))
		h.Write(num[:])
		h.Write([]byte(f))
	}
	binary.BigEndian.PutUint64(num[:], uint64(n.Timestamp))
	h.Write(num[:])
	var sum [sha256.Size]byte
	return s.prefix + "nonces:" + hash(n.ConsumerKey), string(h.Sum(sum[:0])[:16])
}
