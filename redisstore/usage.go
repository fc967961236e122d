package redisstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/sunset"
)

// Usage keeps the counts of [sunset.Usage] in Redis, summed over the
// instances of a service: each instance counts its requests in memory, at
// no cost to Redis, and adds them here from time to time with
// [sunset.Usage.Flush]:
//
//	shared := redisstore.NewUsage(rdb, "myapp:oauth:")
//	go func() {
//		for range time.Tick(time.Minute) {
//			if err := usage.Flush(ctx, shared.Add); err != nil {
//				log.Print(err) // the counts wait for the next Flush
//			}
//		}
//	}()
//	...
//	clients, err := shared.Clients(ctx) // who still uses OAuth 1.0a
//
// The counts are one hash, under the prefix and "usage", that no command
// but this store's touches: each call is a command or a script on that
// one key, so it works on a Redis Cluster. Usage holds at most MaxClients
// consumer keys, and keeps them until the hash is deleted. It is safe for
// concurrent use.
type Usage struct {
	// MaxClients is the most consumer keys kept; the counts of further
	// keys are dropped. Zero means 10,000, the default of a
	// [sunset.Usage]; a minor release may raise it, never lower it.
	MaxClients int

	client  redis.UniversalClient
	key     string
	honours bool // client bounds calls by their context's deadline
}

// defaultMaxClients is the bound of a Usage whose MaxClients is zero, that
// of a sunset.Usage: change both together. Not exported, so that it may
// be raised.
const defaultMaxClients = 10000

// NewUsage returns a Usage that keeps its counts in client under the key
// prefix+"usage" (prefix such as "myapp:oauth:").
func NewUsage(client redis.UniversalClient, prefix string) *Usage {
	return &Usage{client: client, key: prefix + "usage", honours: honoursDeadlines(client)}
}

// addUsage adds to the hash KEYS[1], for each quadruple of ARGV after the
// first (consumer key, requests, exchanges, last seen in Unix
// milliseconds), the requests to the field "n:" and the key, the
// exchanges to "x:" and the key (three fields a key, even at zero, so that
// HLEN counts keys), and sets "t:" and the key to the later of
// its time and the one it holds; a key not yet in the hash is left out
// once it holds ARGV[1] keys. It returns how many keys it left out.
var addUsage = redis.NewScript(`
local max = tonumber(ARGV[1])
local dropped = 0
for i = 2, #ARGV, 4 do
	local n, x, t = 'n:' .. ARGV[i], 'x:' .. ARGV[i], 't:' .. ARGV[i]
	if redis.call('HEXISTS', KEYS[1], t) == 1 or redis.call('HLEN', KEYS[1]) < 3 * max then
		redis.call('HINCRBY', KEYS[1], n, ARGV[i+1])
		redis.call('HINCRBY', KEYS[1], x, ARGV[i+2])
		local last = tonumber(redis.call('HGET', KEYS[1], t) or '0')
		if tonumber(ARGV[i+3]) > last then
			redis.call('HSET', KEYS[1], t, ARGV[i+3])
		end
	else
		dropped = dropped + 1
	end
end
return dropped
`)

// usageBatch is the most clients one script adds, so that no script holds
// Redis for long.
const usageBatch = 256

// Add adds the requests and exchanges of cs to the counts, and moves each client's last
// seen time forward to its LastSeen, never back. It is the add of
// [sunset.Usage.Flush]. Clients with an empty key, no requests and no exchanges are
// skipped; those beyond MaxClients are dropped without an error. A failed
// Add may have added some of cs (those of its first batches of 256).
func (u *Usage) Add(ctx context.Context, cs []sunset.Client) error {
	limit := u.MaxClients
	if limit <= 0 {
		limit = defaultMaxClients
	}
	args := make([]any, 0, 1+4*min(len(cs), usageBatch))
	for len(cs) > 0 {
		n := min(len(cs), usageBatch)
		args = append(args[:0], limit)
		for _, c := range cs[:n] {
			if c.ConsumerKey == "" || (c.Requests <= 0 && c.Exchanges <= 0) {
				continue
			}
			args = append(args, c.ConsumerKey, max(c.Requests, 0), max(c.Exchanges, 0), c.LastSeen.UnixMilli())
		}
		cs = cs[n:]
		if len(args) == 1 {
			continue
		}
		if _, err := bounded(ctx, u.honours, func(ctx context.Context) (int64, error) {
			return addUsage.Run(ctx, u.client, []string{u.key}, args...).Int64()
		}); err != nil {
			return storeError("adding usage counts", err)
		}
	}
	return nil
}

// Clients returns the counts of every client, the clients with the most
// requests first, then by consumer key, as [sunset.Usage.Clients] does.
func (u *Usage) Clients(ctx context.Context) ([]sunset.Client, error) {
	h, err := bounded(ctx, u.honours, func(ctx context.Context) (map[string]string, error) {
		return u.client.HGetAll(ctx, u.key).Result()
	})
	if err != nil {
		return nil, storeError("reading usage counts", err)
	}
	byKey := make(map[string]*sunset.Client, len(h)/2)
	get := func(k string) *sunset.Client {
		c := byKey[k]
		if c == nil {
			c = &sunset.Client{ConsumerKey: k}
			byKey[k] = c
		}
		return c
	}
	for f, v := range h {
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			return nil, storeError("reading usage counts", errors.New("field "+strconv.Quote(f)+" is not an integer"))
		case strings.HasPrefix(f, "n:"):
			get(f[2:]).Requests = n
		case strings.HasPrefix(f, "x:"):
			get(f[2:]).Exchanges = n
		case strings.HasPrefix(f, "t:"):
			get(f[2:]).LastSeen = time.UnixMilli(n).UTC()
		default:
			return nil, storeError("reading usage counts", errors.New("unexpected field "+strconv.Quote(f)))
		}
	}
	cs := make([]sunset.Client, 0, len(byKey))
	for _, c := range byKey {
		cs = append(cs, *c)
	}
	slices.SortFunc(cs, func(a, b sunset.Client) int {
		if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
			return c
		}
		return strings.Compare(a.ConsumerKey, b.ConsumerKey)
	})
	return cs, nil
}
