package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// ExchangeStore is a [tokenexchange.Store] kept in Redis, shared by every
// tokenexchange.Handler that uses the same Redis and prefix: a grant is
// exchanged once whichever instances its exchanges reach. It is safe for
// concurrent use.
//
// The record of a grant is a hash under the prefix, "exchange:{", the hex
// SHA-256 of the grant's 1.0a token and "}"; the sealed answer of its
// exchange is a string under the same key and ":a". Claim, Complete and
// Release are Lua scripts over those two keys, which Redis runs
// atomically: of the Claims racing for a grant, one wins. The hash tag
// puts both keys in one Cluster slot; a prefix with a hash tag of its own
// (such as "{myapp}:") puts every key in its slot, which works as well, and
// a prefix holding "{}" does not.
//
// Leases, windows and keeps expire on Redis's clock (PEXPIRE, SET PX):
// the answer, which holds an OAuth 2.0 token sealed with a key that Redis
// never sees, is gone from Redis when its window ends, whether or not it
// is asked for again, and the record, which holds the owner of a claim or
// the time of the exchange (the Handler's clock, in milliseconds), when
// its keep does. Every reply is checked for its shape.
type ExchangeStore struct {
	client  redis.UniversalClient
	prefix  string
	honours bool
}

var _ tokenexchange.Store = (*ExchangeStore)(nil)

// NewExchangeStore returns an ExchangeStore that keeps its records in
// client under keys that start with prefix (such as "myapp:oauth:").
func NewExchangeStore(client redis.UniversalClient, prefix string) *ExchangeStore {
	return &ExchangeStore{client: client, prefix: prefix, honours: honoursDeadlines(client)}
}

func (s *ExchangeStore) keys(grant string) []string {
	k := s.prefix + "exchange:{" + hash(grant) + "}"
	return []string{k, k + ":a"}
}

// The record KEYS[1] has o, the owner of a claim, or t, when the grant
// was exchanged (Unix milliseconds); KEYS[2] is the sealed answer.
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

// completeExchange: ARGV[1] owner, ARGV[2] answer, ARGV[3] window and
// ARGV[4] keep in milliseconds, ARGV[5] the time of the exchange.
var completeExchange = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'o', 't')
if f[2] or f[1] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 't', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`)

var releaseExchange = redis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'o', 't')
if f[2] or f[1] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// millis is d in whole milliseconds, at least 1 (PX 0 is an error).
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// Claim begins owner's exchange of grant, unless one began before.
func (s *ExchangeStore) Claim(ctx context.Context, grant, owner string, lease time.Duration, _ time.Time) (tokenexchange.Claim, error) {
	reply, err := bounded(ctx, s.honours, func(ctx context.Context) ([]any, error) {
		return claimExchange.Run(ctx, s.client, s.keys(grant), owner, millis(lease)).Slice()
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

// Complete records owner's exchange of grant as done.
func (s *ExchangeStore) Complete(ctx context.Context, grant, owner string, answer []byte, window, keep time.Duration, now time.Time) error {
	n, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return completeExchange.Run(ctx, s.client, s.keys(grant), owner, answer, millis(window), millis(keep), now.UnixMilli()).Int()
	})
	if err != nil {
		return storeError("completing an exchange", err)
	}
	if n != 1 {
		return errors.New("redisstore: completing an exchange: the claim was lost (its lease expired)")
	}
	return nil
}

// Release drops owner's claim of grant.
func (s *ExchangeStore) Release(ctx context.Context, grant, owner string, _ time.Time) error {
	_, err := bounded(ctx, s.honours, func(ctx context.Context) (int, error) {
		return releaseExchange.Run(ctx, s.client, s.keys(grant), owner).Int()
	})
	if err != nil {
		return storeError("releasing an exchange", err)
	}
	return nil
}
