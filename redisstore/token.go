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

// TokenStore is a [server.TokenStore] kept in Redis, shared by every
// [server.Provider] that uses the same Redis and prefix: credentials issued
// by one instance are known to all, and a revocation on one holds on all
// from the moment it returns. It is safe for concurrent use.
//
// Each record is a hash under one key, the prefix, "token:" and the hex
// SHA-256 of the token; token credentials do not expire. Revoking a token
// replaces its record, under the same key, with a tombstone that expires in
// Redis after 24 hours: until then Token reports the token revoked
// ([server.ErrTokenRevoked]), and afterwards unknown. A tombstone is
// smaller than the record it replaces, so revoking never grows Redis, and
// it goes away by itself; one evicted early leaves an unknown token,
// refused all the same (token_rejected). The tokens of a grant (a client
// and a user) are listed, by the hashes of their tokens, in a set under the
// prefix, "grant:" and the hex SHA-256 of the consumer key and user, for
// RevokeGrant. Each command and script touches one key, so that the store
// works on a Redis Cluster: RevokeGrant removes the tokens of the set one
// at a time, each only if its record still names the grant.
//
// At most MaxTokens token credentials are kept, and MaxTokensPerClient for
// one client: past either, PutToken fails with [server.ErrStoreFull] (a
// Provider answers the token request 503) and the tokens kept go on
// working. The count is kept by a Lua script over two kinds of key in one
// Cluster slot, by the hash tag {tokens}: a counter under the prefix and
// "count:{tokens}", and a set of the hashes of each client's tokens under
// the prefix, "count:{tokens}:" and the hex SHA-256 of the consumer key. A
// prefix with a hash tag of its own (such as "{myapp}:") puts every key
// in its slot instead, which works as well; a prefix holding "{}" does
// not. Tokens stored by a version of this package without the bounds are
// not counted. A revocation interrupted by a Redis failure may leave its
// token counted: the count errs on the full side, never the other.
//
// A revocation is only as durable as Redis: one lost with Redis state (a
// restore from a snapshot taken before it, a failover to a replica that had
// not received it) re-enables the token. See "Durability" in the package
// documentation for what to do after a restore or failover.
type TokenStore struct {
	// MaxTokens bounds the token credentials kept; zero means
	// DefaultMaxTokens. MaxTokensPerClient bounds those of one client;
	// zero means DefaultMaxTokensPerClient and a negative value no bound
	// but MaxTokens. Set them before the store is first used.
	MaxTokens, MaxTokensPerClient int

	client  redis.UniversalClient
	prefix  string
	honours bool // client bounds calls by their context's deadline
}

var _ server.TokenStore = (*TokenStore)(nil)

// Bounds of a TokenStore whose MaxTokens and MaxTokensPerClient are zero:
// about 600 MB of Redis when full (about 600 B a token, consumer keys and
// users of a few dozen bytes, one token a user), and 1/16 of the store for
// one client, so that a client that collects tokens (with a user account
// that approves its flows) fills only its share.
const (
	DefaultMaxTokens          = 1 << 20
	DefaultMaxTokensPerClient = 1 << 16
)

// NewTokenStore returns a TokenStore that keeps its records in client under
// keys that start with prefix (such as "myapp:oauth:").
func NewTokenStore(client redis.UniversalClient, prefix string) *TokenStore {
	return &TokenStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

// A token record has t token, s secret, c consumer key, u user and sc
// scope; a tombstone, r alone. A record without sc, which versions before
// the scope wrote, has the empty scope.

var putToken = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 't', ARGV[1], 's', ARGV[2], 'c', ARGV[3], 'u', ARGV[4], 'sc', ARGV[5])
return 1
`)

// revoke replaces the record KEYS[1] with a tombstone that expires in
// ARGV[1] milliseconds, and returns its t, c and u, 'revoked' for a
// tombstone or 'notfound'.
var revoke = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 't', 'c', 'u', 'r')
if f[4] then return {'revoked'} end
if not f[1] then return {'notfound'} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'r', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return {'ok', f[1], f[2], f[3]}
`)

// revokeIf replaces the record KEYS[1] with a tombstone that expires in
// ARGV[3] milliseconds if its c and u are ARGV[1] and ARGV[2], and returns
// 1 if it did.
var revokeIf = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'c', 'u')
if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'r', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`)

// countToken counts a token: KEYS[1] is the store's counter, KEYS[2] the
// set of the hashes of the client's tokens, ARGV[1] the token's hash,
// ARGV[2] MaxTokens and ARGV[3] MaxTokensPerClient (negative: none). It
// returns 1 once counted, 2 if counted already, 0 when the store is full
// and 3 when the client's share is.
var countToken = redis.NewScript(`
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 2 end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then return 0 end
local share = tonumber(ARGV[3])
if share >= 0 and redis.call('SCARD', KEYS[2]) >= share then return 3 end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[1])
return 1
`)

// uncountToken gives back the place of the token ARGV[1] in the counts
// KEYS[1] and KEYS[2], if it has one.
var uncountToken = redis.NewScript(`
if redis.call('SREM', KEYS[2], ARGV[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 1
`)

// countKeys returns the keys of the store's counter and of the set of
// consumerKey's tokens, in one Cluster slot.
func (s *TokenStore) countKeys(consumerKey string) []string {
	return []string{s.prefix + "count:{tokens}", s.prefix + "count:{tokens}:" + hash(consumerKey)}
}

// uncount gives back the place of the token whose hash is member, if
// Redis answers: a failure leaves it counted.
func (s *TokenStore) uncount(ctx context.Context, consumerKey, member string) {
	bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return uncountToken.Run(ctx, s.client, s.countKeys(consumerKey), member).Int()
	})
}

// revokedTTL is how long a tombstone lasts, in milliseconds.
const revokedTTL = 24 * 60 * 60 * 1000

// errRevoked is the error for a revoked token.
var errRevoked = fmt.Errorf("redisstore: token credentials: %w: %w", server.ErrNotFound, server.ErrTokenRevoked)

// hash returns the hex SHA-256 of s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// grantKey returns the key of the set of the tokens of consumerKey and
// user: the length prefix keeps ("ab", "c") and ("a", "bc") apart.
func (s *TokenStore) grantKey(consumerKey, user string) string {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(consumerKey)))
	return s.prefix + "grant:" + hash(string(n[:])+consumerKey+user)
}

// PutToken stores t. It fails if t.Token is empty, already stored or
// revoked less than 24 hours ago, and with an error wrapping
// [server.ErrStoreFull] when the store holds MaxTokens token credentials
// or t.ConsumerKey MaxTokensPerClient (the error then names the client).
// The token is counted first, then added to its grant's set, so that a
// RevokeGrant that finds the set after PutToken returned finds the token.
func (s *TokenStore) PutToken(ctx context.Context, t server.TokenCredentials, _ time.Time) error {
	if t.Token == "" {
		return errors.New("redisstore: PutToken: empty token")
	}
	member := hash(t.Token)
	limit, share := s.MaxTokens, s.MaxTokensPerClient
	if limit <= 0 {
		limit = DefaultMaxTokens
	}
	if share == 0 {
		share = DefaultMaxTokensPerClient
	}
	c, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return countToken.Run(ctx, s.client, s.countKeys(t.ConsumerKey), member, limit, share).Int()
	})
	switch {
	case err != nil:
		return storeError("counting token credentials", err)
	case c == 0:
		return fmt.Errorf("redisstore: the store has %d token credentials, its bound: %w", limit, server.ErrStoreFull)
	case c == 3:
		return fmt.Errorf("redisstore: client %q has %d token credentials, its share: %w", t.ConsumerKey, share, server.ErrStoreFull)
	case c != 1 && c != 2:
		return fmt.Errorf("redisstore: PutToken: unexpected reply %d", c)
	}
	grant := s.grantKey(t.ConsumerKey, t.User)
	if _, err := bounded(ctx, s.honours, func(ctx context.Context) (int64, error) {
		return s.client.SAdd(ctx, grant, member).Result()
	}); err != nil {
		return storeError("listing token credentials", err)
	}
	key := s.prefix + "token:" + member
	n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return putToken.Run(ctx, s.client, []string{key}, t.Token, t.Secret, t.ConsumerKey, t.User, t.Scope).Int()
	})
	if err != nil {
		return storeError("storing token credentials", err)
	}
	switch n {
	case 1:
		return nil
	case 0:
		// The set may now list a token of another grant: RevokeGrant
		// checks each record before it deletes it. The stored token
		// counts already, unless this call counted it.
		if c == 1 {
			s.uncount(ctx, t.ConsumerKey, member)
		}
		return errors.New("redisstore: PutToken: the token is already stored")
	}
	return fmt.Errorf("redisstore: PutToken: unexpected reply %d", n)
}

// Token returns the token credentials for token.
func (s *TokenStore) Token(ctx context.Context, token string, _ time.Time) (server.TokenCredentials, error) {
	key := s.prefix + "token:" + hash(token)
	f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return s.client.HMGet(ctx, key, "t", "s", "c", "u", "r", "sc").Result()
	})
	if err != nil {
		return server.TokenCredentials{}, storeError("reading token credentials", err)
	}
	if len(f) != 6 {
		return server.TokenCredentials{}, errMalformedToken
	}
	switch {
	case f[0] == nil && f[4] != nil:
		return server.TokenCredentials{}, errRevoked
	case f[0] == nil:
		return server.TokenCredentials{}, fmt.Errorf("redisstore: token credentials: %w", server.ErrNotFound)
	case f[4] != nil:
		return server.TokenCredentials{}, errMalformedToken // a record and a tombstone
	}
	v, ok := strs(f[:4])
	scope, okScope := optional(f[5])
	if !ok || !okScope || v[0] != token {
		return server.TokenCredentials{}, errMalformedToken
	}
	return server.TokenCredentials{Token: v[0], Secret: v[1], ConsumerKey: v[2], User: v[3], Scope: scope}, nil
}

// Revoke removes the token credentials for token, then the token from its
// grant's set.
func (s *TokenStore) Revoke(ctx context.Context, token string, _ time.Time) error {
	member := hash(token)
	f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return revoke.Run(ctx, s.client, []string{s.prefix + "token:" + member}, revokedTTL).Slice()
	})
	if err != nil {
		return storeError("revoking token credentials", err)
	}
	if len(f) == 1 && f[0] == "notfound" {
		return fmt.Errorf("redisstore: token credentials: %w", server.ErrNotFound)
	}
	if len(f) == 1 && f[0] == "revoked" {
		return errRevoked
	}
	v, ok := strs(f)
	if !ok || len(v) != 4 || v[0] != "ok" || v[1] != token {
		return errMalformedToken // the record is gone all the same
	}
	// The token is revoked: a set that still lists it costs a little
	// memory, and a RevokeGrant that finds no record for it.
	bounded(ctx, s.honours, func(ctx context.Context) (int64, error) {
		return s.client.SRem(ctx, s.grantKey(v[2], v[3]), member).Result()
	})
	s.uncount(ctx, v[2], member)
	return nil
}

// RevokeGrant removes the token credentials of user for the client
// consumerKey, listed in the grant's set, and returns how many it removed.
func (s *TokenStore) RevokeGrant(ctx context.Context, consumerKey, user string, _ time.Time) (int, error) {
	grant := s.grantKey(consumerKey, user)
	members, err := bounded(ctx, s.honours, func(ctx context.Context) ([]string, error) {
		return s.client.SMembers(ctx, grant).Result()
	})
	if err != nil {
		return 0, storeError("listing token credentials", err)
	}
	revoked := 0
	for _, m := range members {
		n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
			return revokeIf.Run(ctx, s.client, []string{s.prefix + "token:" + m}, consumerKey, user, revokedTTL).Int()
		})
		if err != nil {
			return revoked, storeError("revoking token credentials", err)
		}
		if n != 0 && n != 1 {
			return revoked, fmt.Errorf("redisstore: RevokeGrant: unexpected reply %d", n)
		}
		revoked += n
		if n == 1 {
			s.uncount(ctx, consumerKey, m)
		}
		// Only the members read: a token added meanwhile stays listed.
		if _, err := bounded(ctx, s.honours, func(ctx context.Context) (int64, error) {
			return s.client.SRem(ctx, grant, m).Result()
		}); err != nil {
			return revoked, storeError("revoking token credentials", err)
		}
	}
	return revoked, nil
}
