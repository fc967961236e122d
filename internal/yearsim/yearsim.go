// Package yearsim is a year of a real multi-tenant provider on a simulated
// clock, the driver of the simulated years that the store modules run
// (redisstore's and sqlstore's TestSimulatedYear): [Run] it with a
// [Backend], which gives each tenant its stores and measures what they
// hold.
//
// The simulated clock stays deterministic: the day's flows start at one
// simulated second (in batches of yearBatch, each at a second of its own),
// their token requests go a second later, and a token request refused 503
// is retried after the batch, one at a time, after its Retry-After. The
// random draws (the day's plan, the users who call, the revocations) are
// made in order on one goroutine; only the requests run concurrently.
//
// Three tenants in one process, each a server.Provider with its own
// ConsumerStore, serve 100,000 users through the Provider's own handlers,
// called in process, and clients that sign with oauth1.Config:
//
//   - tenant A: "big", a client with 70,000 users, and "acme", an LTI tool;
//   - tenant B: "acme" too (another customer of the same tool, which chose
//     the same key, with another secret) and "lti-b";
//   - tenant C: "crm" and "mail"; its flooding client is a third deployment
//     of the acme tool, registered under "acme" as well.
//
// The acme tool's nonces are a count within the second (unique per
// timestamp, client credentials and token, as RFC 5849 §3.3 asks), so its
// deployments at A and B send the same nonces when they launch at the same
// second, as they do every day at noon.
//
// Every user authorizes once through the whole three-legged flow (the
// temporary credential request and the token request through
// oauth1.Config's RequestToken and AccessToken, the consent page's
// Provider.Pending and Provider.Authorize between them), on a day of the
// year, and calls the API with the new token. One user of big authorizes
// 1,000 times, and one user in ten renews, authorizing again later in the
// year. Every day, users call the API (nonce traffic over the whole year,
// a window at a time), some of those calls are replayed, tokens are revoked
// (Provider.Revoke) and grants withdrawn (Provider.RevokeGrant), and
// revoked tokens, recent and old, are tried again. On day 180 one client of
// each tenant floods the API with valid requests (Backend.Flood each, all
// in one timestamp window), just before the day's traffic. Backend.Scale
// divides every client's users and its daily API calls (not big's heavy
// user's authorizations, nor the launches, revocations and flood), for a
// backend whose every request costs more.
//
// It fails when an honest request is refused, a revoked token or a replay
// is accepted, an approval is lost to a refused token request (a 503 there
// is retried after its Retry-After, on the simulated clock, and must then
// succeed) or memory grows past yearHeapBound (the live heap after a
// collection, measured every 30 days) or the store's size (Backend.Size,
// measured then too) past Backend.SizeBound. It prints what it sent and
// what was refused, by kind, and the CPU it took.
package yearsim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// A Backend is the stores a year runs on, and what measures them.
type Backend struct {
	Name  string // in the summary: "simulated year, <Name> stores"
	Flood int    // requests of each flooding client
	// Scale divides every client's users and its daily API calls; 0 or 1
	// is the whole year.
	Scale int
	// Days, if set, ends the run after the year's first Days days (for a
	// quick look; the plan is the year's).
	Days int
	// Stores returns a tenant's stores; nonces nil means the default.
	Stores func(tenant string) (server.TemporaryStore, server.TokenStore, server.NonceStore)
	// NewDay, if set, is called between simulated days, when every nonce
	// and every temporary credential of the day before has expired.
	NewDay func()
	// Start, if set, is called before the first day with the simulated
	// clock, for work that runs beside the requests (an operator's
	// expiry); the run calls the stop it returns after the last day.
	Start func(now func() time.Time) (stop func())
	// Size, if set, returns what the stores hold, in bytes, measured at
	// each checkpoint: SizeName names it, and past SizeBound it fails the
	// run.
	Size      func() int64
	SizeName  string
	SizeBound int64
	// ServerCPU, if set, returns the CPU time the store's server
	// (ServerName) has used.
	ServerCPU  func() time.Duration
	ServerName string
	// Trips and Commands, if set, return the round trips to Redis and the
	// commands they carried, so far.
	Trips, Commands func() int64
}

// defaults fills in the functions b leaves nil.
func (b *Backend) defaults() {
	if b.Scale < 1 {
		b.Scale = 1
	}
	if b.Days < 1 || b.Days > yearDays {
		b.Days = yearDays
	}
	if b.NewDay == nil {
		b.NewDay = func() {}
	}
	if b.Size == nil {
		b.Size = func() int64 { return -1 }
	}
	if b.ServerCPU == nil {
		b.ServerCPU = func() time.Duration { return 0 }
	}
	zero := func() int64 { return 0 }
	if b.Trips == nil {
		b.Trips = zero
	}
	if b.Commands == nil {
		b.Commands = zero
	}
}

const (
	yearDays         = 365
	yearUsers        = 100_000
	yearHeavyAuths   = 1_000 // authorizations of big's first user
	yearRenewPercent = 10    // users who authorize again later in the year
	yearDailyCalls   = 60    // API calls of random users, per client and day
	yearAcmeLaunches = 8     // two-legged launches of each acme, per day, at noon
	yearReplayEvery  = 20    // one daily call in this many is replayed
	yearRevokes      = 2     // Provider.Revoke per tenant and day
	yearGrantRevokes = 1     // Provider.RevokeGrant per tenant and day
	yearFloodDay     = 180
	// The day's authorizations run yearBatch at a time (a whole day, but
	// for big's heaviest days), each batch's flows on yearWorkers
	// goroutines at one simulated second, the token requests a second
	// later; so do the API calls of each simulated second.
	yearBatch   = 512
	yearWorkers = 128
	// yearGCPercent is GOGC during the run: the live heap is measured
	// after a forced collection, so a less eager collector changes only
	// the CPU the run spends.
	yearGCPercent = 400
	// MemoryFlood is the flooding client's requests, per tenant, in the
	// memory run: past the 131,072-nonce share that each consumer key had
	// in the default nonce store before issue 35. Where each tenant's
	// nonces are kept apart (Redis under a prefix, SQL under a tenant), a
	// flood cannot reach another tenant's clients, and a smaller one
	// checks that it does not disturb its tenant's other clients.
	MemoryFlood = 1<<17 + 1<<12

	// yearHeapBound is the most live heap a run may hold at a
	// checkpoint (116 MiB measured in memory before issue 35's fixes): the stores (token credentials, about 600 bytes each,
	// for 111,000 authorizations; a full day of temporary credentials; the
	// default nonce store with three floods, 57 bytes a nonce) and the
	// simulation's own table of 100,000 users and their credentials.
	yearHeapBound = 192 << 20
)

// yearClock is the simulated clock, read by the Providers and the clients.
type yearClock struct{ ns atomic.Int64 }

func (c *yearClock) now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *yearClock) set(t time.Time)         { c.ns.Store(t.UnixNano()) }
func (c *yearClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

type yearUser struct {
	id    string
	tok   *oauth1.Credentials   // the newest token credentials; nil for none
	toks  []*oauth1.Credentials // every token issued (big's heavy user only)
	auths int
}

type yearClient struct {
	tn     *yearTenant
	key    string
	cfg    *oauth1.Config
	users  []*yearUser
	flood  bool
	auths  int // authorizations started (temporary credential requests)
	issued int // token credentials issued

	// firstRefused is the number of the first authorization that did not
	// end in token credentials, zero for none; issuedBefore how many were
	// issued before it, issuedAfter after it.
	firstRefused, issuedBefore, issuedAfter int
	revoked                                 int // token credentials revoked
}

func (c *yearClient) String() string { return "tenant " + c.tn.name + " " + c.key }

type yearTenant struct {
	name    string
	host    string
	p       *server.Provider
	mux     *http.ServeMux
	clients []*yearClient
}

// yearReq is what one request's answer said beyond its body: what the
// Provider's Observe saw and the Retry-After header. Requests run
// concurrently, so each carries its own, in its context.
type yearReq struct {
	err   error
	retry string
}

type yearReqKey struct{}

func withYearReq(ctx context.Context) (context.Context, *yearReq) {
	ri := new(yearReq)
	return context.WithValue(ctx, yearReqKey{}, ri), ri
}

func yearReqOf(ctx context.Context) *yearReq {
	ri, _ := ctx.Value(yearReqKey{}).(*yearReq)
	return ri
}

type yearFailure struct {
	n     int
	first string
}

type year struct {
	t        *testing.T
	mu       sync.Mutex // guards the counts and tables below, and clients' and users' counts
	be       Backend
	clock    *yearClock
	rng      *rand.Rand
	tenants  []*yearTenant
	ctx      context.Context
	requests map[string]int // by kind
	refusals map[string]int // expected and unexpected, by kind and reason
	failures map[string]*yearFailure
	order    []string
	revoked  []yearRevoked
	day      int

	peakHeap, peakSize int64
	trips, commands    int64
	flood              map[string]int
}

type yearRevoked struct {
	c   *yearClient
	tok *oauth1.Credentials
	how string
}

// Run runs a year on be's stores, under t, and logs its summary; it fails
// t as the package documentation says.
func Run(t *testing.T, be Backend) {
	be.defaults()
	y := &year{
		t: t, be: be, clock: new(yearClock), rng: rand.New(rand.NewPCG(35, 2026)),
		ctx:      context.Background(),
		requests: map[string]int{}, refusals: map[string]int{}, failures: map[string]*yearFailure{},
		flood: map[string]int{}, peakSize: -1,
	}
	start := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	y.clock.set(start)
	defer debug.SetGCPercent(debug.SetGCPercent(yearGCPercent))
	cpu0, serverCPU0 := ProcessCPU(), be.ServerCPU()
	wall0 := time.Now()

	// Tenants, clients and users.
	transport := yearTransport{y: y, tenants: map[string]*yearTenant{}}
	httpClient := &http.Client{Transport: transport}
	type spec struct {
		key   string
		users int
		flood bool
	}
	specs := map[string][]spec{
		"A": {{"big", 70_000, false}, {"acme", 6_000, false}, {"flood-a", 0, true}},
		"B": {{"acme", 6_000, false}, {"lti-b", 6_000, false}, {"flood-b", 0, true}},
		"C": {{"crm", 6_000, false}, {"mail", 6_000, false}, {"acme", 0, true}},
	}
	nusers := 0
	for _, name := range []string{"A", "B", "C"} {
		tn := &yearTenant{name: name, host: strings.ToLower(name) + ".example", mux: http.NewServeMux()}
		consumers := server.Consumers{}
		for _, s := range specs[name] {
			secret := "secret of " + s.key + " at tenant " + name
			consumers[s.key] = server.Registration{Secret: secret}
			c := &yearClient{tn: tn, key: s.key, flood: s.flood}
			c.cfg = &oauth1.Config{
				ConsumerKey: s.key, ConsumerSecret: secret,
				Endpoint: oauth1.Endpoint{
					RequestTokenURL: "http://" + tn.host + "/oauth/request_token",
					AuthorizeURL:    "http://" + tn.host + "/oauth/authorize",
					AccessTokenURL:  "http://" + tn.host + "/oauth/access_token",
				},
				HTTPClient: httpClient,
				Now:        y.clock.now,
				Nonce:      y.nonces(s.key),
			}
			for i := range s.users / be.Scale {
				c.users = append(c.users, &yearUser{id: fmt.Sprintf("%s-%s-user-%d", name, s.key, i)})
			}
			nusers += s.users / be.Scale
			tn.clients = append(tn.clients, c)
		}
		temp, tokens, nonces := be.Stores(name)
		tn.p = &server.Provider{
			Consumers: consumers,
			Temporary: temp,
			Tokens:    tokens,
			Settings:  server.Settings{Now: y.clock.now, Nonces: nonces},
			Observe: func(r *http.Request, v *server.Verification, err error) {
				if ri := yearReqOf(r.Context()); ri != nil {
					ri.err = err
				}
			},
		}
		tn.mux.Handle("POST /oauth/request_token", tn.p.RequestTokenHandler())
		tn.mux.Handle("POST /oauth/access_token", tn.p.AccessTokenHandler())
		tn.mux.Handle("/api/", tn.p.Middleware(http.HandlerFunc(yearAPI)))
		transport.tenants[tn.host] = tn
		y.tenants = append(y.tenants, tn)
	}
	if nusers != yearUsers/be.Scale {
		t.Fatalf("%d users, want %d", nusers, yearUsers/be.Scale)
	}

	// Who authorizes on which day: every user once, one in ten again
	// later, and big's first user 1,000 times.
	type job struct {
		c *yearClient
		u *yearUser
	}
	plan := make([][]job, yearDays)
	for _, tn := range y.tenants {
		for _, c := range tn.clients {
			for i, u := range c.users {
				if c.key == "big" && i == 0 {
					for k := range yearHeavyAuths {
						d := k * yearDays / yearHeavyAuths
						plan[d] = append(plan[d], job{c, u})
					}
					continue
				}
				d := y.rng.IntN(yearDays)
				plan[d] = append(plan[d], job{c, u})
				if y.rng.IntN(100) < yearRenewPercent && d < yearDays-1 {
					d2 := d + 1 + y.rng.IntN(yearDays-1-d)
					plan[d2] = append(plan[d2], job{c, u})
				}
			}
		}
	}
	big := y.tenants[0].clients[0]
	heavy := big.users[0]

	var stop func()
	if be.Start != nil {
		stop = be.Start(y.clock.now)
	}
	for d := range be.Days {
		y.day = d
		dayStart := start.AddDate(0, 0, d)
		// 08:00: the day's authorizations.
		y.clock.set(dayStart.Add(8 * time.Hour))
		jobs := plan[d]
		y.rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		for lo := 0; lo < len(jobs); lo += yearBatch {
			batch := jobs[lo:min(lo+yearBatch, len(jobs))]
			flows := make([]*yearFlow, len(batch))
			y.parallel(len(batch), func(i int) { flows[i] = y.startFlow(batch[i].c, batch[i].u) })
			y.clock.advance(time.Second)
			y.parallel(len(batch), func(i int) {
				if f := flows[i]; f != nil {
					y.finishFlow(f)
				}
			})
			// Token requests refused 503, retried one after another
			// after their Retry-After, on the simulated clock.
			for _, f := range flows {
				for f != nil && f.retryAfter > 0 {
					y.clock.advance(f.retryAfter)
					y.finishFlow(f)
				}
			}
			y.clock.advance(2 * time.Second)
		}
		// 11:59: the flood.
		if d == yearFloodDay {
			y.clock.set(dayStart.Add(11*time.Hour + 59*time.Minute))
			for _, tn := range y.tenants {
				for _, c := range tn.clients {
					if c.flood {
						y.floodAPI(c)
					}
				}
			}
		}
		// 12:00: the acme launches at A and B, at the same second.
		y.clock.set(dayStart.Add(12 * time.Hour))
		var calls []yearCall
		for range yearAcmeLaunches {
			for _, tn := range y.tenants[:2] {
				for _, c := range tn.clients {
					if c.key == "acme" && !c.flood {
						calls = append(calls, yearCall{c, nil, "acme launch", true})
					}
				}
			}
		}
		y.parallel(len(calls), func(i int) { y.do(calls[i]) })
		// 12:00:01 on: users call the API, some calls replayed, ten
		// rounds a second; the users are drawn in order, the calls of a
		// second made concurrently.
		y.clock.advance(time.Second)
		calls = calls[:0]
		dailyCalls := yearDailyCalls / be.Scale
		for k := range dailyCalls {
			for _, tn := range y.tenants {
				for _, c := range tn.clients {
					if u := y.pickUser(c); u != nil {
						calls = append(calls, yearCall{c, u, "api call", k%yearReplayEvery == 0})
					}
				}
			}
			if k%10 == 9 || k == dailyCalls-1 {
				y.parallel(len(calls), func(i int) { y.do(calls[i]) })
				calls = calls[:0]
				y.clock.advance(time.Second)
			}
		}
		// 18:00: revocations, and revoked tokens tried again.
		y.clock.set(dayStart.Add(18 * time.Hour))
		for _, tn := range y.tenants {
			for range yearRevokes {
				y.revoke(tn)
			}
			for range yearGrantRevokes {
				y.revokeGrant(tn.clients[y.rng.IntN(2)], nil)
			}
			y.clock.advance(time.Second)
		}
		if d == 300 {
			y.revokeGrant(big, heavy)
		}
		for range 3 {
			if len(y.revoked) > 0 {
				r := y.revoked[y.rng.IntN(len(y.revoked))]
				y.tryRevoked(r, "revoked earlier ("+r.how+")")
			}
		}
		if d%30 == 29 || d == be.Days-1 {
			y.checkpoint()
		}
		y.be.NewDay()
	}
	if stop != nil {
		stop()
	}
	cpu, serverCPU := ProcessCPU()-cpu0, be.ServerCPU()-serverCPU0
	y.trips, y.commands = be.Trips(), be.Commands()
	y.report(cpu, serverCPU, time.Since(wall0))
}
