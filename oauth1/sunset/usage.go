package sunset

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// defaultMaxClients is how many consumer keys a Usage counts when its
// MaxClients is zero (see there). It is not exported, so that a minor
// release may raise it: an exported constant's value is a promise.
const defaultMaxClients = 10000

// A Usage counts the OAuth 1.0a requests of each client: how many, and
// when it was last seen, and its exchanges of OAuth 1.0a credentials for
// OAuth 2.0 tokens. Call [Usage.Record] from the Observe hook of a
// server.Verifier or a server.Provider, for every request whose signature
// was verified (a non-nil Verification, whatever the error: a Provider
// refuses some requests after it verified them, a wrong verification
// code, say):
//
//	var usage sunset.Usage
//	p := &server.Provider{...,
//		Observe: func(r *http.Request, v *server.Verification, err error) {
//			if v != nil {
//				usage.Record(v.ConsumerKey, time.Now())
//			}
//		},
//	}
//
// (Package sunset does not import package server, so that a client that
// reads notices with it links no provider code.)
//
// It counts only what it is given, so only clients the provider
// registered, and at most MaxClients of them: a flood of requests with
// unknown keys or bad signatures does not grow it, and the requests of
// keys past MaxClients are counted in [Usage.Dropped], not dropped
// silently. Counting a client already seen takes no lock.
//
// The zero value is ready to use. A Usage is safe for concurrent use, and
// must not be copied after first use.
type Usage struct {
	// MaxClients is the most consumer keys counted; the requests and
	// exchanges of further keys are counted in Dropped only. Zero means
	// 10,000: a bound on memory (about 200 bytes a key) that no
	// provider's list of registered clients reaches by accident. A minor
	// release may raise that default, never lower it; a provider that
	// needs a bound of its own sets MaxClients.
	MaxClients int

	clients sync.Map // consumer key → *counter
	n       atomic.Int64
	dropped atomic.Int64
	flush   sync.Mutex // one Flush at a time
}

type counter struct {
	requests, exchanges atomic.Int64
	flushed, flushedEx  atomic.Int64 // what was already handed to a Flush
	last                atomic.Int64 // Unix nanoseconds
}

// A Client is what a [Usage] counted for one consumer key.
type Client struct {
	ConsumerKey string
	Requests    int64
	// Exchanges counts the client's exchanges of OAuth 1.0a credentials
	// for OAuth 2.0 tokens ([Usage.RecordExchange]).
	Exchanges int64
	LastSeen  time.Time
}

// Record counts a request of the client consumerKey at time t. Call it
// only for requests whose signature was verified, from the Observe of a
// server.Verifier or a server.Provider (see [Usage]) or from a provider's
// own verification. An empty key is not counted.
func (u *Usage) Record(consumerKey string, t time.Time) {
	if cn := u.counter(consumerKey); cn != nil {
		cn.requests.Add(1)
		cn.seen(t)
	}
}

// RecordExchange counts an exchange of the OAuth 1.0a credentials of the
// client consumerKey for an OAuth 2.0 token at time t, within the same
// bounds as Record: a provider calls it when its exchange succeeded, so
// that it sees who has crossed over and who has not. It does not count a
// request: the exchange request, when it is signed with OAuth 1.0a, is
// counted by Record as any other.
func (u *Usage) RecordExchange(consumerKey string, t time.Time) {
	if cn := u.counter(consumerKey); cn != nil {
		cn.exchanges.Add(1)
		cn.seen(t)
	}
}

// Dropped returns how many requests and exchanges Record and
// RecordExchange did not count because u counted MaxClients keys already.
// It is not zero when a provider has more clients still using OAuth 1.0a
// than MaxClients, or a bug passes it keys that were not verified.
func (u *Usage) Dropped() int64 { return u.dropped.Load() }

// counter returns the counter of consumerKey, or nil when the key is empty
// or there is no room for it.
func (u *Usage) counter(consumerKey string) *counter {
	if consumerKey == "" {
		return nil
	}
	c, ok := u.clients.Load(consumerKey)
	if !ok {
		if c, ok = u.add(consumerKey); !ok {
			u.dropped.Add(1)
			return nil
		}
	}
	return c.(*counter)
}

// seen moves the last-seen time of c to t, unless it is later already.
func (c *counter) seen(t time.Time) {
	ns := t.UnixNano()
	for {
		last := c.last.Load()
		if ns <= last || c.last.CompareAndSwap(last, ns) {
			return
		}
	}
}

// add makes the counter of a key not yet counted, if there is room.
func (u *Usage) add(consumerKey string) (any, bool) {
	limit := int64(u.MaxClients)
	if limit <= 0 {
		limit = defaultMaxClients
	}
	for {
		n := u.n.Load()
		if n >= limit {
			// Another goroutine may have added this very key.
			return u.clients.Load(consumerKey)
		}
		if u.n.CompareAndSwap(n, n+1) {
			break
		}
	}
	// The key may come from a buffer that is reused: keep a copy.
	c, loaded := u.clients.LoadOrStore(strings.Clone(consumerKey), new(counter))
	if loaded {
		u.n.Add(-1)
	}
	return c, true
}

// Clients returns what u counted, the clients with the most requests
// first, then by consumer key. What it could not count, past MaxClients,
// is in [Usage.Dropped].
func (u *Usage) Clients() []Client {
	var cs []Client
	u.clients.Range(func(k, v any) bool {
		c := v.(*counter)
		cs = append(cs, Client{ConsumerKey: k.(string), Requests: c.requests.Load(), Exchanges: c.exchanges.Load(), LastSeen: unixNano(c.last.Load())})
		return true
	})
	sortClients(cs)
	return cs
}

// Flush calls add with the requests and exchanges counted since the last
// Flush that succeeded, for each client that made any, as [Usage.Clients]
// orders them: add is meant to add them to a store that the instances of a
// service share, such as the Usage of package
// [github.com/countersign/countersign/redisstore], whose Add it can be:
//
//	for range time.Tick(time.Minute) {
//		err := usage.Flush(ctx, shared.Add)
//		...
//	}
//
// When add returns an error, Flush returns it and the counts are handed
// to the next Flush again. Flush does not call add when there is nothing
// to add. Flushes run one at a time; Record and RecordExchange go on
// meanwhile.
func (u *Usage) Flush(ctx context.Context, add func(context.Context, []Client) error) error {
	u.flush.Lock()
	defer u.flush.Unlock()
	var cs []Client
	var ns []*counter
	u.clients.Range(func(k, v any) bool {
		c := v.(*counter)
		d, dx := c.requests.Load()-c.flushed.Load(), c.exchanges.Load()-c.flushedEx.Load()
		if d > 0 || dx > 0 {
			cs = append(cs, Client{ConsumerKey: k.(string), Requests: d, Exchanges: dx, LastSeen: unixNano(c.last.Load())})
			ns = append(ns, c)
		}
		return true
	})
	if len(cs) == 0 {
		return nil
	}
	type delta struct{ requests, exchanges int64 }
	deltas := make(map[*counter]delta, len(cs))
	for i, c := range ns {
		deltas[c] = delta{cs[i].Requests, cs[i].Exchanges}
	}
	sortClients(cs)
	if err := add(ctx, cs); err != nil {
		return err
	}
	for c, d := range deltas {
		c.flushed.Add(d.requests)
		c.flushedEx.Add(d.exchanges)
	}
	return nil
}

func sortClients(cs []Client) {
	slices.SortFunc(cs, func(a, b Client) int {
		if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
			return c
		}
		return strings.Compare(a.ConsumerKey, b.ConsumerKey)
	})
}

func unixNano(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
