package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
)

// TemporaryStore is a [server.TemporaryStore] kept in Redis, shared by
// every [server.Provider] that uses the same Redis and prefix: temporary
// credentials issued by one instance are approved on any other, and
// exchanged once whichever instances the attempts reach. It is safe for
// concurrent use.
//
// Each record is a hash under one key, the prefix, "temp:" and the hex
// SHA-256 of the token (so that a client's token cannot make a large
// key). The steps that read and then write (PutTemporary, Authorize,
// TakeTemporary) are Lua scripts, which Redis runs atomically. Expiry is
// decided on the now each call is passed, the Provider's clock; Redis also
// drops a record once Expires − now, measured when it was stored, has
// passed on its own clock, so that the Provider's and Redis's clocks need
// not agree.
//
// Every reply is checked for its shape, and every record read for all its
// fields and its token: a short or malformed reply (from a proxy, say) or
// a record that something else wrote under the prefix is an error, never
// credentials with a field missing.
type TemporaryStore struct {
	// MaxTemporary bounds the unexpired temporary credentials kept in
	// all, exchanged ones included until they expire; zero means 1<<17
	// (131,072), that of a server.MemoryTemporaryStore: with a Provider's
	// default ten-minute TemporaryTTL, a sustained 200 flows a second,
	// and at most about 400 MB of Redis when every callback is as long as
	// a Provider allows. A minor release may raise that default. Set it
	// before the store is first used.
	MaxTemporary int

	// MaxTemporaryPerClient bounds the unexpired temporary credentials
	// kept for one client (consumer key), exchanged ones included until
	// they expire; zero means 1024, the same as a
	// server.MemoryTemporaryStore: with a Provider's default ten-minute
	// TemporaryTTL, a sustained 1.7 flows a second per client, and at
	// most about 3 MB of Redis per client when every callback is as long
	// as a Provider allows. A minor release may raise that default, as
	// traffic grows. Set it before the store is first used.
	MaxTemporaryPerClient int

	client  redis.UniversalClient
	prefix  string
	honours bool // client bounds calls by their context's deadline
}

var _ server.TemporaryStore = (*TemporaryStore)(nil)

// The defaults of MaxTemporaryPerClient and MaxTemporary (see there),
// those of server.MemoryTemporaryStore: change them together. Not
// exported, so that a minor release may raise them: an exported
// constant's value is a promise.
const (
	defaultMaxTemporaryPerClient = 1024
	defaultMaxTemporary          = 1 << 17
)

// NewTemporaryStore returns a TemporaryStore that keeps its records in
// client under keys that start with prefix (such as "myapp:oauth:").
func NewTemporaryStore(client redis.UniversalClient, prefix string) *TemporaryStore {
	return &TemporaryStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

// The fields of a temporary record: t token, s secret, c consumer key, cb
// callback, e expiry (Unix milliseconds, on the Provider's clock), u user,
// v verification code, sc scope, a present once authorized, x present once
// exchanged (TakeTemporary then drops everything but t and e), r present
// once revoked by RevokeGrant (which drops s, cb, v and sc). A record
// without sc, which versions before the scope wrote, has the empty scope.

var putTemporary = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 't', ARGV[1], 's', ARGV[2], 'c', ARGV[3], 'cb', ARGV[4], 'e', ARGV[5], 'u', ARGV[6], 'v', ARGV[7], 'sc', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
return 1
`)

// authorize and takeTemporary get now (Unix milliseconds) last: a record
// whose e is not after it is unknown.
var authorize = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'e', 'x', 'a')
if not f[1] then return 'notfound' end
local e = tonumber(f[1])
if not e then return 'malformed' end
if e <= tonumber(ARGV[3]) then return 'notfound' end
if redis.call('HEXISTS', KEYS[1], 'r') == 1 then return 'revoked' end
if f[2] or f[3] then return 'used' end
redis.call('HSET', KEYS[1], 'u', ARGV[1], 'v', ARGV[2], 'sc', ARGV[4], 'a', '1')
return 'ok'
`)

var takeTemporary = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'e', 'x', 't', 's', 'c', 'cb', 'u', 'v', 'sc')
if not f[1] then return {'notfound'} end
local e = tonumber(f[1])
if not e then return {'malformed'} end
if e <= tonumber(ARGV[1]) then return {'notfound'} end
if f[2] then return {'used'} end
if redis.call('HEXISTS', KEYS[1], 'r') == 1 then return {'revoked'} end
redis.call('HDEL', KEYS[1], 's', 'c', 'cb', 'u', 'v', 'sc', 'a')
redis.call('HSET', KEYS[1], 'x', '1')
return {'ok', f[3], f[4], f[5], f[6], f[1], f[7], f[8], f[9]}
`)

// reserve counts temporary credentials against their client's quota:
// KEYS[1] is the client's sorted set of the hashes of its tokens, scored
// by their expiry on Redis's clock (Unix milliseconds); ARGV[1] is the new
// token's hash, ARGV[2] its time to live in milliseconds and ARGV[3] the
// quota. It drops the expired members, then adds the new one unless the
// quota is reached, and keeps the set until its last member expires. It
// returns 1 once added, 2 if the token was there already, and 0 when the
// quota is reached. Each call costs O(log n) in the set's size, plus the
// members it drops, each once.
var reserve = redis.NewScript(`
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
`)

// revokeTemporary revokes the record KEYS[1] if it is approved by ARGV[2]
// for the client ARGV[1], unexpired at ARGV[3] (Unix milliseconds) and
// neither exchanged nor revoked: it drops the secret, the callback and
// the verification code, marks it r, and returns 1; else 0.
var revokeTemporary = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'c', 'u', 'a', 'x', 'r', 'e')
if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] or not f[3] or f[4] or f[5] then return 0 end
local e = tonumber(f[6])
if not e or e <= tonumber(ARGV[3]) then return 0 end
redis.call('HDEL', KEYS[1], 's', 'cb', 'v', 'sc')
redis.call('HSET', KEYS[1], 'r', '1')
return 1
`)

// errTemporaryRevoked is the error for temporary credentials revoked by
// RevokeGrant.
var errTemporaryRevoked = fmt.Errorf("redisstore: temporary credentials: %w: %w", server.ErrNotFound, server.ErrTokenRevoked)

// approvedKey returns the key of the sorted set of the hashes of the
// temporary tokens user approved for consumerKey: the length prefix keeps
// ("ab", "c") and ("a", "bc") apart.
func (s *TemporaryStore) approvedKey(consumerKey, user string) string {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(consumerKey)))
	return s.prefix + "approved:" + hash(string(n[:])+consumerKey+user)
}

func (s *TemporaryStore) key(token string) string {
	return s.prefix + "temp:" + hash(token)
}

// PutTemporary stores t until t.Expires. It fails if t.Token is empty, if
// t.Expires is zero, or if the token is already stored; and with an error
// wrapping [server.ErrStoreFull] when the store already holds
// MaxTemporary unexpired temporary credentials, or t.ConsumerKey
// MaxTemporaryPerClient (the error then names the client).
//
// The bounds are kept in sorted sets of the tokens' hashes scored by
// expiry: one for the store under the prefix and "quota-all", one per
// client under the prefix, "quota:" and the hex SHA-256 of the consumer
// key. A Lua script drops a set's expired members, counts and adds,
// atomically; the store's set first, then the client's, each one key, so
// that the store works on a Redis Cluster; a place taken in the first and
// refused in the second is given back. Credentials that cannot be stored
// after all (Redis failed in between, or the token is already stored) may
// count until they would have expired.
func (s *TemporaryStore) PutTemporary(ctx context.Context, t server.TemporaryCredentials, now time.Time) error {
	if t.Token == "" || t.Expires.IsZero() {
		return errors.New("redisstore: PutTemporary: empty token or zero Expires")
	}
	ms := t.Expires.UnixMilli()
	if ms <= 0 {
		return errors.New("redisstore: PutTemporary: Expires is not after 1970")
	}
	ttl := max(t.Expires.Sub(now).Milliseconds(), 1) // PX 0 is an error in Redis
	quota := s.MaxTemporaryPerClient
	if quota <= 0 {
		quota = defaultMaxTemporaryPerClient
	}
	limit := s.MaxTemporary
	if limit <= 0 {
		limit = defaultMaxTemporary
	}
	allKey, quotaKey, member := s.prefix+"quota-all", s.prefix+"quota:"+hash(t.ConsumerKey), hash(t.Token)
	// giveBack removes member from the set key, if Redis answers.
	giveBack := func(key string) {
		bounded(ctx, s.honours, func(ctx context.Context) (int64, error) {
			return s.client.ZRem(ctx, key, member).Result()
		})
	}
	g, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return reserve.Run(ctx, s.client, []string{allKey}, member, ttl, limit).Int()
	})
	switch {
	case err != nil:
		return storeError("counting temporary credentials", err)
	case g == 0:
		return fmt.Errorf("redisstore: the store has %d unexpired temporary credentials, its bound: %w", limit, server.ErrStoreFull)
	case g != 1 && g != 2:
		return fmt.Errorf("redisstore: PutTemporary: unexpected reply %d", g)
	}
	r, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return reserve.Run(ctx, s.client, []string{quotaKey}, member, ttl, quota).Int()
	})
	if (err != nil || r == 0) && g == 1 {
		giveBack(allKey)
	}
	switch {
	case err != nil:
		return storeError("counting temporary credentials", err)
	case r == 0:
		return fmt.Errorf("redisstore: client %q has %d unexpired temporary credentials, its quota: %w",
			t.ConsumerKey, quota, server.ErrStoreFull)
	case r != 1 && r != 2:
		return fmt.Errorf("redisstore: PutTemporary: unexpected reply %d", r)
	}

	key := s.key(t.Token)
	n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return putTemporary.Run(ctx, s.client, []string{key},
			t.Token, t.Secret, t.ConsumerKey, t.Callback, ms, t.User, t.VerificationCode, ttl, t.Scope).Int()
	})
	if n != 1 && err == nil {
		// Not stored after all: give the places back.
		if r == 1 {
			giveBack(quotaKey)
		}
		if g == 1 {
			giveBack(allKey)
		}
	}
	if err != nil {
		return storeError("storing temporary credentials", err)
	}
	switch n {
	case 1:
		return nil
	case 0:
		return errors.New("redisstore: PutTemporary: the token is already stored")
	}
	return fmt.Errorf("redisstore: PutTemporary: unexpected reply %d", n)
}

// Temporary returns the temporary credentials for token.
func (s *TemporaryStore) Temporary(ctx context.Context, token string, now time.Time) (server.TemporaryCredentials, error) {
	key := s.key(token)
	f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return s.client.HMGet(ctx, key, "e", "x", "t", "s", "c", "cb", "u", "v", "r", "sc").Result()
	})
	if err != nil {
		return server.TemporaryCredentials{}, storeError("reading temporary credentials", err)
	}
	if len(f) != 10 {
		return server.TemporaryCredentials{}, errMalformedTemporary
	}
	if f[0] == nil {
		return server.TemporaryCredentials{}, fmt.Errorf("redisstore: temporary credentials: %w", server.ErrNotFound)
	}
	expires, err := expiry(f[0])
	switch {
	case err != nil:
		return server.TemporaryCredentials{}, err
	case !now.Before(expires):
		return server.TemporaryCredentials{}, fmt.Errorf("redisstore: temporary credentials expired: %w", server.ErrNotFound)
	case f[1] != nil:
		return server.TemporaryCredentials{}, fmt.Errorf("redisstore: temporary credentials were exchanged: %w", server.ErrTokenUsed)
	case f[8] != nil:
		return server.TemporaryCredentials{}, errTemporaryRevoked
	}
	return temporary(token, f[0], f[2:8], f[9])
}

// errMalformedTemporary and errMalformedToken report a reply of the wrong
// shape (a short array, a value of the wrong type: from a proxy, say) or a
// record with fields missing or of another token (written by something
// other than this package): the store fails closed rather than return
// credentials with, say, an empty secret.
var (
	errMalformedTemporary = errors.New("redisstore: malformed reply or record of temporary credentials")
	errMalformedToken     = errors.New("redisstore: malformed reply or record of token credentials")
)

// strs returns vals as strings, or false if any is not a string (a missing
// field is nil).
func strs(vals []any) ([]string, bool) {
	out := make([]string, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

// expiry parses the e field of a temporary record.
func expiry(e any) (time.Time, error) {
	es, ok := e.(string)
	if !ok {
		return time.Time{}, errMalformedTemporary
	}
	ms, err := strconv.ParseInt(es, 10, 64)
	if err != nil || ms <= 0 {
		return time.Time{}, errMalformedTemporary
	}
	return time.UnixMilli(ms), nil
}

// temporary makes the record of token from the values of e and of t, s, c,
// cb, u, v, which must all be present, with t equal to token, and of sc,
// which may be missing.
func temporary(token string, e any, f []any, sc any) (server.TemporaryCredentials, error) {
	expires, err := expiry(e)
	v, ok := strs(f)
	scope, okScope := optional(sc)
	if err != nil || !ok || !okScope || len(v) != 6 || v[0] != token {
		return server.TemporaryCredentials{}, errMalformedTemporary
	}
	return server.TemporaryCredentials{
		Token: v[0], Secret: v[1], ConsumerKey: v[2], Callback: v[3],
		Expires: expires, User: v[4], VerificationCode: v[5], Scope: scope,
	}, nil
}

// optional returns the value of a field that a record written by an
// earlier version may lack: missing is empty; anything but a string, not
// ok.
func optional(v any) (string, bool) {
	if v == nil {
		return "", true
	}
	s, ok := v.(string)
	return s, ok
}

// Authorize records a.User, a.VerificationCode and a.Scope for a.Token,
// once. The token is first listed, by its hash, in a sorted set of the grant's
// approved tokens (under the prefix, "approved:" and the hex SHA-256 of the
// consumer key and user) scored by expiry, so that a RevokeGrant that
// runs after Authorize returned finds it.
func (s *TemporaryStore) Authorize(ctx context.Context, a server.TemporaryCredentials, now time.Time) error {
	token, user, code := a.Token, a.User, a.VerificationCode
	if code == "" {
		return errors.New("redisstore: Authorize: empty verification code")
	}
	key := s.key(token)
	f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return s.client.HMGet(ctx, key, "c", "e").Result()
	})
	if err != nil {
		return storeError("reading temporary credentials", err)
	}
	if len(f) != 2 {
		return errMalformedTemporary
	}
	if c, ok := f[0].(string); ok {
		// Unexpired, approved or not: the script below decides.
		if expires, err := expiry(f[1]); err == nil && now.Before(expires) {
			ttl := max(expires.Sub(now).Milliseconds(), 1)
			if _, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
				return reserve.Run(ctx, s.client, []string{s.approvedKey(c, user)}, hash(token), ttl, math.MaxInt32).Int()
			}); err != nil {
				return storeError("listing approved temporary credentials", err)
			}
		}
	}
	res, err := bounded(ctx, s.honours, func(ctx context.Context) (string, error) {
		return authorize.Run(ctx, s.client, []string{key}, user, code, now.UnixMilli(), a.Scope).Text()
	})
	if err != nil {
		return storeError("authorizing temporary credentials", err)
	}
	switch res {
	case "ok":
		return nil
	case "notfound":
		return fmt.Errorf("redisstore: temporary credentials: %w", server.ErrNotFound)
	case "used":
		return fmt.Errorf("redisstore: temporary credentials already authorized or exchanged: %w", server.ErrTokenUsed)
	case "revoked":
		return errTemporaryRevoked
	case "malformed":
		return errMalformedTemporary
	}
	return fmt.Errorf("redisstore: Authorize: unexpected reply %q", res)
}

// TakeTemporary removes and returns the temporary credentials for token.
// Their token and expiry stay until then, to answer [server.ErrTokenUsed].
func (s *TemporaryStore) TakeTemporary(ctx context.Context, token string, now time.Time) (server.TemporaryCredentials, error) {
	key := s.key(token)
	f, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return takeTemporary.Run(ctx, s.client, []string{key}, now.UnixMilli()).Slice()
	})
	if err != nil {
		return server.TemporaryCredentials{}, storeError("taking temporary credentials", err)
	}
	switch {
	case len(f) == 1 && f[0] == "notfound":
		return server.TemporaryCredentials{}, fmt.Errorf("redisstore: temporary credentials: %w", server.ErrNotFound)
	case len(f) == 1 && f[0] == "used":
		return server.TemporaryCredentials{}, fmt.Errorf("redisstore: temporary credentials were exchanged: %w", server.ErrTokenUsed)
	case len(f) == 1 && f[0] == "revoked":
		return server.TemporaryCredentials{}, errTemporaryRevoked
	case len(f) == 9 && f[0] == "ok":
		// t, s, c, cb, then e, then u, v, then sc
		return temporary(token, f[5], []any{f[1], f[2], f[3], f[4], f[6], f[7]}, f[8])
	}
	return server.TemporaryCredentials{}, errMalformedTemporary
}

// RevokeGrant revokes the temporary credentials user approved for the
// client consumerKey and that are not yet exchanged, listed in the grant's
// set, and returns how many it revoked; none is an error wrapping
// [server.ErrNotFound]. Each record is revoked by a script
// that checks it still names the grant, one key at a time, so that it
// works on a Redis Cluster; revoked records keep their token, client, user
// and expiry until they expire, to answer [server.ErrTokenRevoked].
func (s *TemporaryStore) RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error) {
	approved := s.approvedKey(consumerKey, user)
	members, err := bounded(ctx, s.honours, func(ctx context.Context) ([]string, error) {
		return s.client.ZRange(ctx, approved, 0, -1).Result()
	})
	if err != nil {
		return 0, storeError("listing approved temporary credentials", err)
	}
	revoked := 0
	for _, m := range members {
		n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
			return revokeTemporary.Run(ctx, s.client, []string{s.prefix + "temp:" + m}, consumerKey, user, now.UnixMilli()).Int()
		})
		if err != nil {
			return revoked, storeError("revoking temporary credentials", err)
		}
		if n != 0 && n != 1 {
			return revoked, fmt.Errorf("redisstore: RevokeGrant: unexpected reply %d", n)
		}
		revoked += n
		if _, err := bounded(ctx, s.honours, func(ctx context.Context) (int64, error) {
			return s.client.ZRem(ctx, approved, m).Result()
		}); err != nil {
			return revoked, storeError("revoking temporary credentials", err)
		}
	}
	if revoked == 0 {
		return 0, fmt.Errorf("redisstore: no approved temporary credentials of the grant: %w", server.ErrNotFound)
	}
	return revoked, nil
}
