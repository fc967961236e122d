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
// refused all the same (token_rejected).
//
// Each grant (a client and a user) keeps its 16 newest token credentials:
// PutToken of a 17th revokes the oldest, which is then refused as revoked,
// so that a user who authorizes a client again and again holds at most 16
// and is never refused. At most MaxTokens are kept in all, and, if
// MaxTokensPerClient is set, at most that many for one client: past
// either, PutToken for a grant that holds a token revokes the grant's
// oldest to make room, and PutToken for a new grant fails with
// [server.ErrStoreFull] (a Provider answers the token request 503, and the
// approval stays usable for a retry); the tokens kept go on working.
//
// The counts are kept by Lua scripts over keys in one Cluster slot, by the
// hash tag {tokens}: a counter of all tokens under the prefix and
// "count:{tokens}", a counter of each client's under the prefix,
// "count:{tokens}:client:" and the hex SHA-256 of the consumer key, and
// the list of each grant's tokens, oldest first, by the hashes of their
// tokens, under the prefix, "count:{tokens}:grant:" and the hex SHA-256 of
// the consumer key and user, which RevokeGrant reads. A prefix with a hash
// tag of its own (such as "{myapp}:") puts every key in its slot instead,
// which works as well; a prefix holding "{}" does not. Every other command
// and script touches one key, so that the store works on a Redis Cluster:
// a token is revoked (its record made a tombstone, if it still names its
// grant) before it leaves its grant's list, so that a failure between the
// two leaves it revoked and counted, and the count errs on the full side,
// never the other. Tokens stored by a version of this package before
// v1.0.0 are not counted.
//
// A revocation is only as durable as Redis: one lost with Redis state (a
// restore from a snapshot taken before it, a failover to a replica that had
// not received it) re-enables the token. See "Durability" in the package
// documentation for what to do after a restore or failover.
type TokenStore struct {
	// MaxTokens bounds the token credentials kept; zero means 1<<20
	// (1,048,576): about 700 MB of Redis when full (680 B a token measured
	// on Redis 7.0, record, grant list and counters, with consumer keys
	// and users of a few dozen bytes), room for a million grants of one
	// token, or 65,536 users who each keep 16. A minor release may raise
	// that default. MaxTokensPerClient, if positive, bounds those of
	// one client, so that one client's grants cannot take the whole
	// store; zero or negative means no bound but MaxTokens. Set them
	// before the store is first used.
	MaxTokens, MaxTokensPerClient int

	client  redis.UniversalClient
	prefix  string
	honours bool // client bounds calls by their context's deadline
}

var _ server.TokenStore = (*TokenStore)(nil)

// defaultMaxTokens is the bound of a TokenStore whose MaxTokens is zero
// (see there). Not exported, so that a minor release may raise it: an
// exported constant's value is a promise.
const defaultMaxTokens = 1 << 20

// maxTokensPerGrant is how many token credentials one grant keeps, the
// newest; server.MemoryTokenStore keeps as many: change both together,
// within the 16 to 256 that server.TokenStore promises.
const maxTokensPerGrant = 16

// maxEvictions bounds the grant's oldest tokens one PutToken revokes to
// make room, against concurrent PutTokens of the same grant.
const maxEvictions = 64

// NewTokenStore returns a TokenStore that keeps its records in client under
// keys that start with prefix (such as "myapp:oauth:").
func NewTokenStore(client redis.UniversalClient, prefix string) *TokenStore {
	return &TokenStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

// A token record has t token, s secret, c consumer key, u user and sc
// scope; a tombstone, r alone. A record without sc, which versions before
// the scope wrote, has the empty scope.

// putToken writes a token record at KEYS[1] unless one is there, and
// returns 1 if it did, 0 if a record is there and 2 if a tombstone is.
var putToken = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], 'r') == 1 then return 2 end
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
// client's, KEYS[3] the list of the grant's tokens, ARGV[1] the token's
// hash, ARGV[2] MaxTokens, ARGV[3] MaxTokensPerClient (not positive: none)
// and ARGV[4] the grant's bound. ARGV[5], if not empty, is a token of the
// grant the caller has revoked, which leaves the list and the counts
// first. It returns {'ok'} once counted, {'counted'} if counted already,
// {'evict', hash} for the grant's oldest token, which the caller must
// revoke before it calls again with it, and {'full'} or {'share'} for a
// grant that holds no token when the store or the client's share is full.
var countToken = redis.NewScript(`
if ARGV[5] ~= '' and redis.call('LREM', KEYS[3], 1, ARGV[5]) == 1 then
  redis.call('DECR', KEYS[1])
  if redis.call('DECR', KEYS[2]) <= 0 then redis.call('DEL', KEYS[2]) end
end
if redis.call('LPOS', KEYS[3], ARGV[1]) then return {'counted'} end
local n = redis.call('LLEN', KEYS[3])
local status
local share = tonumber(ARGV[3])
if n >= tonumber(ARGV[4]) then
  status = 'evict'
elseif tonumber(redis.call('GET', KEYS[1]) or '0') >= tonumber(ARGV[2]) then
  status = 'full'
elseif share > 0 and tonumber(redis.call('GET', KEYS[2]) or '0') >= share then
  status = 'share'
end
if status then
  if n > 0 then return {'evict', redis.call('LINDEX', KEYS[3], 0)} end
  return {status}
end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[1])
redis.call('INCR', KEYS[2])
return {'ok'}
`)

// uncountToken takes the token ARGV[1] out of its grant's list KEYS[3],
// and gives back its place in the counters KEYS[1] and KEYS[2], if it is
// listed.
var uncountToken = redis.NewScript(`
if redis.call('LREM', KEYS[3], 1, ARGV[1]) == 1 then
  redis.call('DECR', KEYS[1])
  if redis.call('DECR', KEYS[2]) <= 0 then redis.call('DEL', KEYS[2]) end
end
return 1
`)

// countKeys returns the keys of the store's counter, of consumerKey's and
// of the list of the grant of consumerKey and user, in one Cluster slot.
// The length prefix keeps the grants ("ab", "c") and ("a", "bc") apart.
func (s *TokenStore) countKeys(consumerKey, user string) []string {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(consumerKey)))
	return []string{
		s.prefix + "count:{tokens}",
		s.prefix + "count:{tokens}:client:" + hash(consumerKey),
		s.prefix + "count:{tokens}:grant:" + hash(string(n[:])+consumerKey+user),
	}
}

// uncount takes the token whose hash is member out of its grant's list
// and the counts.
func (s *TokenStore) uncount(ctx context.Context, consumerKey, user, member string) error {
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return uncountToken.Run(ctx, s.client, s.countKeys(consumerKey, user), member).Int()
	})
	return err
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

// PutToken stores t, revoking the oldest tokens of its grant past the
// bounds. It fails if t.Token is empty, already stored or revoked less
// than 24 hours ago, and, for a grant that holds no token, with an error
// wrapping [server.ErrStoreFull] when the store holds MaxTokens token
// credentials or t.ConsumerKey MaxTokensPerClient (the error then names
// the client). The token is counted and listed in its grant first, then
// stored, so that a RevokeGrant that runs after PutToken returned finds
// it.
func (s *TokenStore) PutToken(ctx context.Context, t server.TokenCredentials, _ time.Time) error {
	if t.Token == "" {
		return errors.New("redisstore: PutToken: empty token")
	}
	member := hash(t.Token)
	limit, share := s.MaxTokens, s.MaxTokensPerClient
	if limit <= 0 {
		limit = defaultMaxTokens
	}
	keys := s.countKeys(t.ConsumerKey, t.User)
	counted, drop := false, ""
	for range maxEvictions {
		f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
			return countToken.Run(ctx, s.client, keys, member, limit, share, maxTokensPerGrant, drop).Slice()
		})
		if err != nil {
			return storeError("counting token credentials", err)
		}
		v, ok := strs(f)
		if !ok || len(v) == 0 || (v[0] == "evict") != (len(v) == 2) || len(v) > 2 {
			return errMalformedToken
		}
		switch v[0] {
		case "ok", "counted":
			counted = v[0] == "ok"
			return s.store(ctx, t, member, counted)
		case "full":
			return fmt.Errorf("redisstore: the store has %d token credentials, its bound: %w", limit, server.ErrStoreFull)
		case "share":
			return fmt.Errorf("redisstore: client %q has %d token credentials, its share: %w", t.ConsumerKey, share, server.ErrStoreFull)
		case "evict":
			// The grant's oldest goes: revoked first, so that it never
			// works uncounted; then it leaves the list, as the next
			// countToken is told.
			if _, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
				return revokeIf.Run(ctx, s.client, []string{s.prefix + "token:" + v[1]}, t.ConsumerKey, t.User, revokedTTL).Int()
			}); err != nil {
				return storeError("revoking the grant's oldest token credentials", err)
			}
			drop = v[1]
		default:
			return errMalformedToken
		}
	}
	return fmt.Errorf("redisstore: PutToken: the grant's tokens changed %d times meanwhile: %w", maxEvictions, server.ErrStoreUnavailable)
}

// store writes the record of t, counted; a token already stored gives
// back the place this call counted.
func (s *TokenStore) store(ctx context.Context, t server.TokenCredentials, member string, counted bool) error {
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
		// The record there (written by a concurrent PutToken of the same
		// token, which may have found it counted by this one) keeps the
		// count.
		return errors.New("redisstore: PutToken: the token is already stored")
	case 2:
		// A revoked token left the counts: this call counted it anew.
		if counted {
			s.uncount(ctx, t.ConsumerKey, t.User, member)
		}
		return errors.New("redisstore: PutToken: the token was revoked")
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
	// The token is revoked; should Redis fail now, it stays listed and
	// counted until its grant's bound or RevokeGrant takes it out.
	s.uncount(ctx, v[2], v[3], member)
	return nil
}

// RevokeGrant removes the token credentials of user for the client
// consumerKey, listed in the grant's list, and returns how many it
// removed; none is an error wrapping [server.ErrNotFound]. Each is revoked
// by a script that checks its record still names the grant, then leaves
// the list.
func (s *TokenStore) RevokeGrant(ctx context.Context, consumerKey, user string, _ time.Time) (int, error) {
	keys := s.countKeys(consumerKey, user)
	members, err := bounded(ctx, s.honours, func(ctx context.Context) ([]string, error) {
		return s.client.LRange(ctx, keys[2], 0, -1).Result()
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
		// Only the members read: a token added meanwhile stays listed.
		if err := s.uncount(ctx, consumerKey, user, m); err != nil {
			return revoked, storeError("revoking token credentials", err)
		}
	}
	if revoked == 0 {
		return 0, fmt.Errorf("redisstore: no token credentials of the grant: %w", server.ErrNotFound)
	}
	return revoked, nil
}
