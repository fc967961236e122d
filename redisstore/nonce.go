package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
)

// NonceStore is an [server.NonceStore] kept in Redis, shared by every
// Verifier that uses the same Redis and prefix. It is safe for concurrent
// use.
type NonceStore struct {
	client  redis.UniversalClient
	prefix  string
	honours bool // client bounds calls by their context's deadline
}

var _ server.NonceStore = (*NonceStore)(nil)

// NewNonceStore returns a NonceStore that keeps its nonces in client under
// keys that start with prefix (such as "myapp:oauth:"); Verifiers that must
// refuse each other's replays share a prefix.
func NewNonceStore(client redis.UniversalClient, prefix string) *NonceStore {
	return &NonceStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

// Use records n until expires and reports whether it was fresh, with one
// SET key 1 NX PX ttl: of any number of concurrent calls for the same nonce,
// from any number of processes, exactly one reports true. An error from
// Redis is returned wrapped, with [server.ErrStoreUnavailable] when Redis
// could not answer; the Verifier then refuses the request, with 503.
//
// The time to live is expires − now, measured from the moment Redis
// executes the SET, on Redis's clock. An absolute PXAT expires would trust
// the Verifier's clock to agree with Redis's: a Verifier whose clock runs
// behind Redis's, or a test with a fixed clock, would see its nonces expire
// at once and accept replays.
func (s *NonceStore) Use(ctx context.Context, n server.Nonce, now, expires time.Time) (bool, error) {
	ttl := max(expires.Sub(now).Milliseconds(), 1) // PX 0 is an error in Redis
	key := s.key(n)
	res, err := bounded(ctx, s.honours, func(ctx context.Context) (any, error) {
		return s.client.Do(ctx, "SET", key, "1", "NX", "PX", ttl).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil // the key exists: a replay
	case err != nil:
		return false, storeError("recording a nonce", err)
	case res != "OK":
		return false, fmt.Errorf("redisstore: recording a nonce: unexpected reply %v", res)
	}
	return true, nil
}

// key returns the Redis key for n: the prefix, "nonce:", and the hex SHA-256
// of the length-prefixed fields, so that a key is short whatever the client
// sent, and ("ab", "c") and ("a", "bc") stay apart.
func (s *NonceStore) key(n server.Nonce) string {
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
	return s.prefix + "nonce:" + hex.EncodeToString(h.Sum(sum[:0]))
}
