package sunset

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// DefaultMaxClients is how many consumer keys a Usage counts when its
// MaxClients is zero.
const DefaultMaxClients = 10000

// A Usage counts the OAuth 1.0a requests of each client: how many, and
// when it was last seen. Set its Observe as the Observe of a
// [server.Verifier] or a [server.Provider] (or call it from theirs):
//
//	var usage sunset.Usage
//	p := &server.Provider{..., Observe: usage.Observe}
//
// It counts only requests whose signature was verified, so only clients
// the provider registered, and at most MaxClients of them: a flood of
// requests with unknown keys or bad signatures does not grow it. Counting
// a client already seen takes no lock.
//
// The zero value is ready to use. A Usage is safe for concurrent use, and
// must not be copied after first use.
type Usage struct {
	// MaxClients is the most consumer keys counted; the requests of
	// further keys are not counted. Zero means DefaultMaxClients.
	MaxClients int

	// Now is the clock of Observe; nil means time.Now.
	Now func() time.Time

	clients sync.Map // consumer key → *counter
	n       atomic.Int64
	flush   sync.Mutex // one Flush at a time
}

type counter struct {
	requests atomic.Int64
	flushed  atomic.Int64 // requests already handed to a Flush
	last     atomic.Int64 // Unix nanoseconds
}

// A Client is what a [Usage] counted for one consumer key.
type Client struct {
	ConsumerKey string
	Requests    int64
	LastSeen    time.Time
}

// Observe counts the request r if v, what the Verifier found, is not nil,
// whatever err says (the Provider refuses some requests after it verified
// them, a wrong verification code, say), at the time of u.Now. Its
// signature is that of the Observe of a Verifier and a Provider.
func (u *Usage) Observe(r *http.Request, v *server.Verification, err error) {
	if v == nil {
		return
	}
	now := time.Now
	if u.Now != nil {
		now = u.Now
	}
	u.Record(v.ConsumerKey, now())
}

// Record counts a request of the client consumerKey at time t. It is
// Observe without a request, for a provider that verifies requests its
// own way; it must be called only for requests whose signature was
// verified. An empty key is not counted.
func (u *Usage) Record(consumerKey string, t time.Time) {
	if consumerKey == "" {
		return
	}
	c, ok := u.clients.Load(consumerKey)
	if !ok {
		if c, ok = u.add(consumerKey); !ok {
			return
		}
	}
	cn := c.(*counter)
	cn.requests.Add(1)
	ns := t.UnixNano()
	for {
		last := cn.last.Load()
		if ns <= last || cn.last.CompareAndSwap(last, ns) {
			return
		}
	}
}

// add makes the counter of a key not yet counted, if there is room.
func (u *Usage) add(consumerKey string) (any, bool) {
	limit := int64(u.MaxClients)
	if limit <= 0 {
		limit = DefaultMaxClients
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
// first, then by consumer key.
func (u *Usage) Clients() []Client {
	var cs []Client
	u.clients.Range(func(k, v any) bool {
		c := v.(*counter)
		cs = append(cs, Client{ConsumerKey: k.(string), Requests: c.requests.Load(), LastSeen: unixNano(c.last.Load())})
		return true
	})
	sortClients(cs)
	return cs
}

// Flush calls add with the requests counted since the last Flush that
// succeeded, for each client that made any, as [Usage.Clients] orders
// them: add is meant to add them to a store that the instances of a
// service share, such as the Usage of package
// [github.com/countersign/countersign/redisstore], whose Add it can be:
//
//	for range time.Tick(time.Minute) {
//		err := usage.Flush(ctx, shared.Add)
//		...
//	}
//
// When add returns an error, Flush returns it and the requests are
// handed to the next Flush again. Flush does not call add when there is
// nothing to add. Flushes run one at a time; Observe and Record go on
// meanwhile.
func (u *Usage) Flush(ctx context.Context, add func(context.Context, []Client) error) error {
	u.flush.Lock()
	defer u.flush.Unlock()
	var cs []Client
	var ns []*counter
	u.clients.Range(func(k, v any) bool {
		c := v.(*counter)
		if d := c.requests.Load() - c.flushed.Load(); d > 0 {
			cs = append(cs, Client{ConsumerKey: k.(string), Requests: d, LastSeen: unixNano(c.last.Load())})
			ns = append(ns, c)
		}
		return true
	})
	if len(cs) == 0 {
		return nil
	}
	deltas := make(map[*counter]int64, len(cs))
	for i, c := range ns {
		deltas[c] = cs[i].Requests
	}
	sortClients(cs)
	if err := add(ctx, cs); err != nil {
		return err
	}
	for c, d := range deltas {
		c.flushed.Add(d)
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
