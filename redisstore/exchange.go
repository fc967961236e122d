package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// ExchangeStore is a [tokenexchange.Store] kept in Redis, shared by every
// tokenexchange.Handler that uses the same Redis and prefix: a grant is
// exchanged once whichever instances its exchanges reach, and its 1.0a
// token is revoked when due by whichever instance looks first, however
// many stop. It is safe for concurrent use.
//
// Handlers that share an ExchangeStore must share their nonce store too
// (Settings.Nonces, such as a [NonceStore] on the same Redis): a signed
// exchange replayed to another instance would pass a nonce store of that
// instance's own and get the answer kept for repeats, a live OAuth 2.0
// token. A Handler whose Store is shared and whose nonce store is
// per-process refuses signed exchanges with server_error.
//
// The record of a grant is a hash under the prefix, "exchange:{", the hex
// SHA-256 of the grant's 1.0a token and "}"; the sealed answer of its
// exchange is a string under the same key and ":a". Claim, Complete,
// Release and Revoked are Lua scripts over those two keys, which Redis
// runs atomically: of the Claims racing for a grant, one wins. The hash
// tag puts both keys in one Cluster slot; a prefix with a hash tag of its
// own (such as "{myapp}:") puts every key in its slot, which works as
// well, and a prefix holding "{}" does not.
//
// The revocations due are a sorted set under the prefix and
// "exchange:{due}" of the 1.0a tokens exchanged, by the time each is due
// (the Handler's clock, in Unix milliseconds); each grant (consumer key
// and user) has a list of its tokens not yet revoked, under
// "exchange:{due}:grant:" and a hex SHA-256 of the grant, which the hash
// "exchange:{due}:grant" names for each token. The hash tag {due} puts
// them in one slot. Complete lists the token before it records the
// exchange, so that no exchange recorded goes unrevoked; past 16 tokens
// of one grant, the oldest are due at once, so that a client that
// authorizes and exchanges again and again holds no more. Revoked drops
// the token from the lists, and its record after keep.
//
// Leases, windows and keeps expire on Redis's clock (PEXPIRE, SET PX):
// the answer, which holds an OAuth 2.0 token sealed with a key that Redis
// never sees, is gone from Redis when its window ends, whether or not it
// is asked for again, and the record of an exchange, which holds the time
// of the exchange (the Handler's clock, in milliseconds), the consumer
// key and the user, is kept until its token is revoked and keep after.
// Every reply is checked for its shape.
type ExchangeStore struct {
	client  redis.UniversalClient
	prefix  string
	honours bool
}

var _ tokenexchange.Store = (*ExchangeStore)(nil)

// maxExchangesPerGrant is how many tokens of one grant an ExchangeStore
// keeps unrevoked, as tokenexchange.MemoryStore does and as many as
// TokenStore keeps live tokens of one grant.
const maxExchangesPerGrant = maxTokensPerGrant

// NewExchangeStore returns an ExchangeStore that keeps its records in
// client under keys that start with prefix (such as "myapp:oauth:").
func NewExchangeStore(client redis.UniversalClient, prefix string) *ExchangeStore {
	return &ExchangeStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

func (s *ExchangeStore) keys(token string) []string {
	k := s.prefix + "exchange:{" + hash(token) + "}"
	return []string{k, k + ":a"}
}

// dueKeys are the sorted set of the revocations due, the hash of each
// token's grant, and the list of the grant of consumerKey and user.
func (s *ExchangeStore) dueKeys(consumerKey, user string) []string {
	k := s.prefix + "exchange:{due}"
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(consumerKey)))
	return []string{k, k + ":grant", k + ":grant:" + hash(string(n[:])+consumerKey+user)}
}

// The record KEYS[1] has o, the owner of a claim, or t, when the grant
// was exchanged (Unix milliseconds), c and u, its consumer key and user,
// and x once its token was revoked; KEYS[2] is the sealed answer.
var claimExchange = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'o', 't')
if f[2] then
  local a = redis.call('GET', KEYS[2])
  if a then return {'answered', f[2], a} end
  return {'spent', f[2]}
end
if f[1] then return {'busy'} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'o', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {'claimed'}
`)

// completeExchange: ARGV[1] owner, ARGV[2] answer, ARGV[3] window in
// milliseconds, ARGV[4] the time of the exchange, ARGV[5] and ARGV[6] the
// consumer key and user. The record is kept until Revoked.
var completeExchange = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'o', 't')
if f[2] or f[1] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 't', ARGV[4], 'c', ARGV[5], 'u', ARGV[6])
redis.call('PERSIST', KEYS[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`)

var releaseExchange = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'o', 't')
if f[2] or f[1] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// revokedExchange marks the record revoked and keeps it ARGV[1]
// milliseconds more; the answer goes.
var revokedExchange = redis.NewScript(`
if not redis.call('HGET', KEYS[1], 't') then return 0 end
redis.call('HSET', KEYS[1], 'x', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
`)

// listDue lists the token ARGV[1] as due at ARGV[2] in KEYS[1], of the
// grant KEYS[3] (named ARGV[3] in KEYS[2]); past ARGV[5] tokens of the
// grant, the oldest are due at ARGV[4] (now), if not sooner.
var listDue = redis.NewScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if not redis.call('LPOS', KEYS[3], ARGV[1]) then redis.call('RPUSH', KEYS[3], ARGV[1]) end
local over = redis.call('LLEN', KEYS[3]) - tonumber(ARGV[5])
if over > 0 then
  for _, t in ipairs(redis.call('LRANGE', KEYS[3], 0, over - 1)) do
    local at = redis.call('ZSCORE', KEYS[1], t)
    if at and tonumber(at) > tonumber(ARGV[4]) then redis.call('ZADD', KEYS[1], ARGV[4], t) end
  end
end
return 1
`)

// unlistDue drops the token ARGV[1] from the lists of KEYS[1], the
// sorted set, and KEYS[2], the hash naming its grant's list (the prefix
// ARGV[2] and the grant). With ARGV[3], only while it is due at that
// time: a token listed again since stays.
var unlistDue = redis.NewScript(`
if ARGV[3] ~= '' and redis.call('ZSCORE', KEYS[1], ARGV[1]) ~= ARGV[3] then return 0 end
local g = redis.call('HGET', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if g then redis.call('LREM', ARGV[2] .. g, 1, ARGV[1]) end
return 1
`)

// millis is d in whole milliseconds, at least 1 (PX 0 is an error).
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// Claim begins owner's exchange of the grant of token, unless one began
// before.
func (s *ExchangeStore) Claim(ctx context.Context, token, owner string, lease time.Duration, _ time.Time) (tokenexchange.Claim, error) {
	reply, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return claimExchange.Run(ctx, s.client, s.keys(token), owner, millis(lease)).Slice()
	})
	if err != nil {
		return tokenexchange.Claim{}, storeError("claiming an exchange", err)
	}
	bad := fmt.Errorf("redisstore: claiming an exchange: a reply of %d elements", len(reply))
	if len(reply) == 0 {
		return tokenexchange.Claim{}, bad
	}
	state, _ := reply[0].(string)
	var c tokenexchange.Claim
	switch {
	case state == "claimed" && len(reply) == 1:
		c.State = tokenexchange.Claimed
	case state == "busy" && len(reply) == 1:
		c.State = tokenexchange.Busy
	case state == "answered" && len(reply) == 3:
		a, ok := reply[2].(string)
		if !ok {
			return tokenexchange.Claim{}, bad
		}
		c.State, c.Answer = tokenexchange.Answered, []byte(a)
	case state == "spent" && len(reply) == 2:
		c.State = tokenexchange.Spent
	default:
		return tokenexchange.Claim{}, bad
	}
	if len(reply) > 1 {
		t, _ := reply[1].(string)
		ms, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return tokenexchange.Claim{}, errors.New("redisstore: claiming an exchange: a record's time is malformed")
		}
		c.Exchanged = time.UnixMilli(ms)
	}
	return c, nil
}

// Complete records owner's exchange of g as done, and its token due for
// revocation at revokeAt. The token is listed as due first, so that no
// exchange recorded goes unrevoked; one listed whose exchange was not
// recorded (its claim lost, or a crash in between) is dropped by Due,
// which finds no exchange, and never revoked.
func (s *ExchangeStore) Complete(ctx context.Context, g tokenexchange.Grant, owner string, answer []byte, window time.Duration, revokeAt, now time.Time) error {
	dk := s.dueKeys(g.ConsumerKey, g.User)
	at := revokeAt.UnixMilli()
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return listDue.Run(ctx, s.client, dk, g.Token, at, dk[2][len(dk[1])+1:], now.UnixMilli(), maxExchangesPerGrant).Int()
	})
	if err != nil {
		return storeError("listing an exchange's revocation", err)
	}
	n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return completeExchange.Run(ctx, s.client, s.keys(g.Token), owner, answer, millis(window), now.UnixMilli(), g.ConsumerKey, g.User).Int()
	})
	if err != nil {
		return storeError("completing an exchange", err)
	}
	if n != 1 {
		return errors.New("redisstore: completing an exchange: the claim was lost (its lease expired)")
	}
	return nil
}

// unlist drops token from the revocations due; with at, only while it is
// due at that time (Unix milliseconds).
func (s *ExchangeStore) unlist(ctx context.Context, token, at string) error {
	dk := s.dueKeys("", "")
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return unlistDue.Run(ctx, s.client, dk[:2], token, dk[1]+":", at).Int()
	})
	return err
}

// Release drops owner's claim of the grant of token.
func (s *ExchangeStore) Release(ctx context.Context, token, owner string, _ time.Time) error {
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return releaseExchange.Run(ctx, s.client, s.keys(token), owner).Int()
	})
	if err != nil {
		return storeError("releasing an exchange", err)
	}
	return nil
}

// Due returns at most limit grants whose revocation is due by now, each
// with the record of its exchange: a token listed whose exchange was not
// recorded (its record gone, or revoked) is unlisted, and one claimed
// again is left for later. It reads the listing a page at a time, for at
// most eight pages.
func (s *ExchangeStore) Due(ctx context.Context, now time.Time, limit int) ([]tokenexchange.Grant, error) {
	var out []tokenexchange.Grant
	skipped := 0 // listed tokens left for later, before the next page
	for page := 0; page < 8 && len(out) < limit; page++ {
		got, left, full, err := s.duePage(ctx, now, skipped, limit-len(out))
		out = append(out, got...)
		if err != nil || !full {
			return out, err
		}
		skipped += left
	}
	return out, nil
}

// duePage reads n listed tokens due by now, past the first skip: the
// grants due, how many it left listed, and whether the page was full.
func (s *ExchangeStore) duePage(ctx context.Context, now time.Time, skip, n int) ([]tokenexchange.Grant, int, bool, error) {
	due := s.dueKeys("", "")[0]
	listed, err := bounded(ctx, s.honours, func(ctx context.Context) ([]redis.Z, error) {
		return s.client.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{Key: due, Start: "-inf", Stop: strconv.FormatInt(now.UnixMilli(), 10),
			ByScore: true, Offset: int64(skip), Count: int64(n)}).Result()
	})
	if err != nil {
		return nil, 0, false, storeError("listing the revocations due", err)
	}
	if len(listed) == 0 {
		return nil, 0, false, nil
	}
	cmds, err := bounded(ctx, s.honours, func(ctx context.Context) ([]redis.Cmder, error) {
		return s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, z := range listed {
				token, _ := z.Member.(string)
				p.HMGet(ctx, s.keys(token)[0], "t", "c", "u", "x", "o")
			}
			return nil
		})
	})
	if err != nil {
		return nil, 0, false, storeError("reading the exchanges due", err)
	}
	var out []tokenexchange.Grant
	left := 0
	for i, z := range listed {
		token, _ := z.Member.(string)
		f, err := cmds[i].(*redis.SliceCmd).Result()
		if err != nil || len(f) != 5 {
			return out, left, false, fmt.Errorf("redisstore: reading an exchange due: a reply of %d fields: %v", len(f), err)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		switch t, c, u, x, o := str(f[0]), str(f[1]), str(f[2]), str(f[3]), str(f[4]); {
		case t != "" && x == "":
			out = append(out, tokenexchange.Grant{ConsumerKey: c, User: u, Token: token})
			left++
		case t == "" && o != "":
			// Claimed again: its Complete lists it anew, or its lease ends.
			left++
		default:
			// Revoked, or never recorded: no longer due.
			if err := s.unlist(ctx, token, strconv.FormatInt(int64(z.Score), 10)); err != nil {
				return out, left, false, storeError("unlisting a revocation", err)
			}
		}
	}
	return out, left, len(listed) == n, nil
}

// Revoked records that the 1.0a token was revoked: no longer due, and its
// record dropped after keep.
func (s *ExchangeStore) Revoked(ctx context.Context, token string, keep time.Duration, _ time.Time) error {
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return revokedExchange.Run(ctx, s.client, s.keys(token), millis(keep)).Int()
	})
	if err != nil {
		return storeError("recording a revocation", err)
	}
	if err := s.unlist(ctx, token, ""); err != nil {
		return storeError("unlisting a revocation", err)
	}
	return nil
}
