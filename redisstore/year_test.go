package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// TestSimulatedYear is a year of a real multi-tenant provider, on a
// simulated clock, run once with the memory stores and once with the Redis
// stores on a real redis-server. It makes about a million requests in
// memory and 640,000 with Redis (a smaller flood there), so it runs only
// when COUNTERSIGN_YEAR=1 (.ci/run sets it):
//
//	cd redisstore && COUNTERSIGN_YEAR=1 go test -count 1 -timeout 30m -run '^TestSimulatedYear$' -v .
//
// (-run 'TestSimulatedYear/memory' runs one of the two). Both together
// take 56 to 73 CPU-seconds, test process and redis-server (/usr/bin/time
// of the compiled test on 2 cores, the same binary on different days): the
// memory run 15 to 21 in the process, the Redis run 24 to 30 in the
// process and 19 to 22 in redis-server for 2.2 million Redis commands (15
// a three-legged flow); garbage collection is about 3 of them. Sent one a round
// trip, as they were at first, those commands cost 134 CPU-seconds (61 µs
// each in both processes, mostly system calls on loopback); the run now
// makes a day's flows, and each simulated second's API calls, on 128
// goroutines at once, and its Redis clients pipeline the commands issued
// meanwhile (yearTrips): about 26 commands a round trip, 16 µs each. The
// summary prints the figures.
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
// each tenant floods the API with valid requests (yearFlood each, all in
// one timestamp window), just before the day's traffic.
//
// It fails when an honest request is refused, a revoked token or a replay
// is accepted, an approval is lost to a refused token request (a 503 there
// is retried after its Retry-After, on the simulated clock, and must then
// succeed) or memory grows past yearHeapBound (the live heap after a
// collection, measured every 30 days) or yearRedisBound (Redis's
// used_memory). It prints what it sent and what was refused, by kind.
//
// The memory run uses each store's zero value and Nonces nil, so that the
// three tenants share the process's default nonce store, as a program does
// that sets none. The Redis run gives each tenant its stores on one Redis,
// each with its zero-value bounds, under a prefix of the tenant's own,
// which is how tenants sharing a Redis stay apart.
//
// Redis expires nonces and temporary credentials on its own clock, which a
// simulated year cannot move: the Redis run keeps the nonce and temporary
// stores in database 1 of the Redis and empties it (FLUSHDB) between
// simulated days, when all it holds would have expired in a real Redis
// (the day's last flow and request are hours old on the simulated clock).
// Token credentials, which do not expire, stay in database 0 all year;
// used_memory counts both.
//
// Memory measured (2026-12, 2 cores): peak live heap 100 MiB in the
// memory run (three floods in the default nonce store; 116 MiB before
// issue 35's fixes), 26 MiB in the Redis run alone (46 after the memory
// run, whose default nonce store lives on in the process); peak Redis
// used_memory 62 MiB. The bounds, yearHeapBound 192 MiB and yearRedisBound 160 MiB,
// leave room for the Go runtime and Redis versions to differ.

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
	// The day's authorizations run yearBatch at a time, each batch's
	// flows on yearWorkers goroutines at one simulated second (the token
	// requests a second later); so do the API calls of each second.
	// yearAutoPipeline has the Redis run's clients send the commands
	// issued at once in one round trip (see yearTrips).
	yearAutoPipeline = true
	// yearFlood is the flooding client's requests, per tenant, in the
	// memory run: past the 131,072-nonce share that each consumer key had
	// in the default nonce store before issue 35. In Redis, where each
	// tenant's nonces are under a prefix of its own, a flood cannot reach
	// another tenant's clients, and yearRedisFlood, an eighth of a share,
	// checks that it does not disturb its tenant's other clients
	// (TestNonceStoreFloodingClient fills a share); the whole share would
	// cost the run 25 CPU-seconds of Redis round trips.
	yearFlood      = 1<<17 + 1<<12
	yearRedisFlood = 1 << 14

	// yearHeapBound is the most live heap either run may hold at a
	// checkpoint (116 MiB measured in memory before issue 35's fixes): the stores (token credentials, about 600 bytes each,
	// for 111,000 authorizations; a full day of temporary credentials; the
	// default nonce store with three floods, 57 bytes a nonce) and the
	// simulation's own table of 100,000 users and their credentials.
	yearHeapBound = 192 << 20
	// yearRedisBound is the most Redis memory (INFO used_memory) of the
	// Redis run at a checkpoint: the token credentials, about 600 bytes
	// each, and a day of nonces and temporary credentials (70 MiB measured
	// before issue 35's fixes).
	yearRedisBound = 160 << 20
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

// yearBackend makes a tenant's stores.
type yearBackend struct {
	name  string
	flood int // requests of each flooding client
	// stores returns a tenant's stores; nonces nil means the default.
	stores func(tenant string) (server.TemporaryStore, server.TokenStore, server.NonceStore)
	// newDay is called between simulated days, when every nonce and every
	// temporary credential of the day before has expired.
	newDay func()
	// usedMemory returns Redis's used_memory, or -1; serverCPU the CPU
	// time redis-server has used, or 0.
	usedMemory func() int64
	serverCPU  func() time.Duration
	trips      func() int64 // Redis round trips so far
	commands   func() int64 // Redis commands so far
}

type yearFailure struct {
	n     int
	first string
}

type year struct {
	t        *testing.T
	mu       sync.Mutex // guards the counts and tables below, and clients' and users' counts
	be       yearBackend
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

	peakHeap, peakRedis int64
	trips, commands     int64
	flood               map[string]int
}

type yearRevoked struct {
	c   *yearClient
	tok *oauth1.Credentials
	how string
}

func TestSimulatedYear(t *testing.T) {
	if os.Getenv("COUNTERSIGN_YEAR") != "1" {
		t.Skip("a simulated year of a provider, 1.6 million requests and 2.2 million Redis commands, about 60 CPU-seconds: set COUNTERSIGN_YEAR=1 to run it (.ci/run does)")
	}
	t.Run("memory", func(t *testing.T) {
		runYear(t, yearBackend{
			name: "memory",
			stores: func(string) (server.TemporaryStore, server.TokenStore, server.NonceStore) {
				return new(server.MemoryTemporaryStore), new(server.MemoryTokenStore), nil
			},
			flood:      yearFlood,
			newDay:     func() {},
			usedMemory: func() int64 { return -1 },
			serverCPU:  func() time.Duration { return 0 },
			trips:      func() int64 { return 0 },
			commands:   func() int64 { return 0 },
		})
	})
	t.Run("redis", func(t *testing.T) {
		srv := ownServer(t)
		rdb := newClient(t, srv.addr())
		// The day's nonces and temporary credentials in database 1,
		// emptied between days; the token credentials in database 0.
		daily := redis.NewClient(&redis.Options{Addr: srv.addr(), DB: 1})
		t.Cleanup(func() { daily.Close() })
		// The stores' clients count the commands and, with
		// yearAutoPipeline, pass them to a client of their own that
		// sends them in pipelines (a client of its own, so that the
		// commands its new connections send first do not queue behind
		// the pipeline that needs them); its hook counts the round trips.
		var trips, dailyTrips, sent yearTrips
		if yearAutoPipeline {
			trips.pipeline = redis.NewClient(&redis.Options{Addr: srv.addr()})
			dailyTrips.pipeline = redis.NewClient(&redis.Options{Addr: srv.addr(), DB: 1})
			for _, c := range []*redis.Client{trips.pipeline, dailyTrips.pipeline} {
				c.AddHook(&sent)
				t.Cleanup(func() { c.Close() })
			}
		}
		rdb.AddHook(&trips)
		daily.AddHook(&dailyTrips)
		runYear(t, yearBackend{
			name:  "redis",
			flood: yearRedisFlood,
			stores: func(tenant string) (server.TemporaryStore, server.TokenStore, server.NonceStore) {
				prefix := "year:" + tenant + ":"
				return redisstore.NewTemporaryStore(daily, prefix), redisstore.NewTokenStore(rdb, prefix), redisstore.NewNonceStore(daily, prefix)
			},
			newDay: func() {
				if err := daily.FlushDB(context.Background()).Err(); err != nil {
					t.Fatalf("FLUSHDB of the day's database: %v", err)
				}
			},
			usedMemory: func() int64 { return usedMemory(t, rdb) },
			serverCPU:  func() time.Duration { return redisCPU(t, rdb) },
			trips:      func() int64 { return trips.n.Load() + dailyTrips.n.Load() + sent.n.Load() },
			commands:   func() int64 { return trips.cmds.Load() + dailyTrips.cmds.Load() },
		})
	})
}

func runYear(t *testing.T, be yearBackend) {
	y := &year{
		t: t, be: be, clock: new(yearClock), rng: rand.New(rand.NewPCG(35, 2026)),
		ctx:      context.Background(),
		requests: map[string]int{}, refusals: map[string]int{}, failures: map[string]*yearFailure{},
		flood: map[string]int{}, peakRedis: -1,
	}
	start := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	y.clock.set(start)
	defer debug.SetGCPercent(debug.SetGCPercent(yearGCPercent))
	cpu0, serverCPU0 := processCPU(), be.serverCPU()
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
			for i := range s.users {
				c.users = append(c.users, &yearUser{id: fmt.Sprintf("%s-%s-user-%d", name, s.key, i)})
			}
			nusers += s.users
			tn.clients = append(tn.clients, c)
		}
		temp, tokens, nonces := be.stores(name)
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
	if nusers != yearUsers {
		t.Fatalf("%d users, want %d", nusers, yearUsers)
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

	for d := range yearDays {
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
		for k := range yearDailyCalls {
			for _, tn := range y.tenants {
				for _, c := range tn.clients {
					if u := y.pickUser(c); u != nil {
						calls = append(calls, yearCall{c, u, "api call", k%yearReplayEvery == 0})
					}
				}
			}
			if k%10 == 9 {
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
		if d%30 == 29 || d == yearDays-1 {
			y.checkpoint()
		}
		y.be.newDay()
	}
	cpu, serverCPU := processCPU()-cpu0, be.serverCPU()-serverCPU0
	y.trips, y.commands = be.trips(), be.commands()
	y.report(cpu, serverCPU, time.Since(wall0))
}

// nonces returns the oauth_nonce maker of a client: a count within the
// second for the acme tool, which its deployments share; a count over the
// year for the others. Both are safe for concurrent use.
func (y *year) nonces(key string) func() string {
	if key == "acme" {
		var mu sync.Mutex
		var seq, last int64
		return func() string {
			mu.Lock()
			defer mu.Unlock()
			if ts := y.clock.now().Unix(); ts != last {
				last, seq = ts, 0
			}
			seq++
			return strconv.FormatInt(seq, 10)
		}
	}
	var seq atomic.Int64
	return func() string {
		return "n" + strconv.FormatInt(seq.Add(1), 36)
	}
}

// parallel runs f(0) … f(n-1) on up to yearWorkers goroutines and returns
// when all have returned. Many requests in flight at once let Redis and
// Go's netpoller serve several per system call and wake-up.
func (y *year) parallel(n int, f func(i int)) {
	workers := min(n, yearWorkers)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// count adds one to m[key], under y.mu.
func (y *year) count(m map[string]int, key string) {
	y.mu.Lock()
	m[key]++
	y.mu.Unlock()
}

// yearAPI is the tenants' API: it answers the user and client the
// Verification names.
func yearAPI(w http.ResponseWriter, r *http.Request) {
	v, ok := server.FromContext(r.Context())
	if !ok {
		http.Error(w, "no verification", http.StatusInternalServerError)
		return
	}
	io.WriteString(w, v.ConsumerKey+" "+v.User)
}

// yearTransport sends the flow's token requests to the tenants' handlers,
// in process.
type yearTransport struct {
	y       *year
	tenants map[string]*yearTenant
}

func (tr yearTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	tn := tr.tenants[r.URL.Host]
	if tn == nil {
		return nil, fmt.Errorf("no tenant at %s", r.URL.Host)
	}
	sr := r.Clone(r.Context())
	if sr.Body == nil {
		sr.Body = http.NoBody
	}
	sr.RequestURI = r.URL.RequestURI()
	sr.Host = r.URL.Host
	sr.RemoteAddr = "127.0.0.1:40000"
	rec := httptest.NewRecorder()
	tn.mux.ServeHTTP(rec, sr)
	if ri := yearReqOf(r.Context()); ri != nil {
		ri.retry = rec.Header().Get("Retry-After")
	}
	return rec.Result(), nil
}

// fail records a failure of the run: its category, counted, and the first
// example.
func (y *year) fail(category, format string, args ...any) {
	y.mu.Lock()
	defer y.mu.Unlock()
	f := y.failures[category]
	if f == nil {
		f = &yearFailure{first: fmt.Sprintf("day %d: ", y.day+1) + fmt.Sprintf(format, args...)}
		y.failures[category] = f
		y.order = append(y.order, category)
	}
	f.n++
}

// why names a refusal: its status, oauth_problem and, from the Provider's
// Observe, the store that refused.
func (y *year) why(ri *yearReq, status int, body string) string {
	q, _ := url.ParseQuery(body)
	s := strconv.Itoa(status)
	if p := q.Get("oauth_problem"); p != "" {
		s += " " + p
	}
	s += storeReason(ri.err)
	return s
}

// storeReason names the store that refused with err, if one did.
func storeReason(err error) string {
	switch {
	case err == nil:
	case errors.Is(err, server.ErrStoreFull) && strings.Contains(err.Error(), "nonce"):
		return " (nonce store full)"
	case errors.Is(err, server.ErrStoreFull) && strings.Contains(err.Error(), "temporary"):
		return " (temporary store full)"
	case errors.Is(err, server.ErrStoreFull):
		return " (token store full)"
	case errors.Is(err, server.ErrStoreUnavailable):
		return " (store unavailable)"
	}
	return ""
}

// whyErr is why for an error of the flow's requests, and its status.
func (y *year) whyErr(ri *yearReq, err error) (string, int) {
	var re *oauth1.ResponseError
	if !errors.As(err, &re) {
		return "error: " + err.Error(), 0
	}
	s := strconv.Itoa(re.StatusCode)
	if re.Problem != "" {
		s += " " + string(re.Problem)
	}
	s += storeReason(ri.err)
	return s, re.StatusCode
}

func (y *year) observed(ri *yearReq) string {
	if ri.err == nil {
		return ""
	}
	msg := ri.err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return "; the Provider saw: " + msg
}

// yearFlow is one three-legged authorization of u at c, between its
// consent and its token request.
type yearFlow struct {
	c *yearClient
	u *yearUser
	// n is the client's authorization number, and the counts before it,
	// for the failure messages.
	n, uAuths, issued, revoked int
	temp                       *oauth1.Credentials
	code                       string
	attempt                    int
	first                      string        // the first 503's reason
	retryAfter                 time.Duration // positive: refused 503, to retry after this
}

func (f *yearFlow) String() string {
	return fmt.Sprintf("authorization %d of client %s (user %s, her authorization %d; before it %s was issued %d token credentials and %d of them were revoked: it held %d)",
		f.n, f.c.key, f.u.id, f.uAuths, f.c.key, f.issued, f.revoked, f.issued-f.revoked)
}

// refused records that f ended without token credentials.
func (y *year) refused(f *yearFlow) {
	y.mu.Lock()
	if f.c.firstRefused == 0 {
		f.c.firstRefused, f.c.issuedBefore = f.n, f.c.issued
	}
	y.mu.Unlock()
}

// startFlow runs the first half of the three-legged flow for u at c: the
// temporary credential request and the consent (Pending, Authorize). It
// returns nil if one of them failed, which it records.
func (y *year) startFlow(c *yearClient, u *yearUser) *yearFlow {
	tn := c.tn
	y.mu.Lock()
	c.auths++
	u.auths++
	f := &yearFlow{c: c, u: u, n: c.auths, uAuths: u.auths, issued: c.issued, revoked: c.revoked}
	y.requests["temporary credential request"]++
	y.mu.Unlock()
	ctx, ri := withYearReq(y.ctx)
	temp, err := c.cfg.RequestToken(ctx)
	if err != nil {
		why, _ := y.whyErr(ri, err)
		y.count(y.refusals, "temporary credential request: "+why)
		y.fail(fmt.Sprintf("%s: temporary credential request refused %s", c, why), "%s%s", f, y.observed(ri))
		y.refused(f)
		return nil
	}
	y.count(y.requests, "consent (Pending, Authorize)")
	pending, err := tn.p.Pending(y.ctx, temp.Credentials.Token)
	if err != nil || pending.ConsumerKey != c.key {
		y.fail(fmt.Sprintf("%s: Pending", c), "%s: %v, client %q", f, err, pending.ConsumerKey)
		y.refused(f)
		return nil
	}
	_, code, err := tn.p.Authorize(y.ctx, server.Approval{Token: temp.Credentials.Token, User: u.id})
	if err != nil {
		y.fail(fmt.Sprintf("%s: Authorize", c), "%s: %v", f, err)
		y.refused(f)
		return nil
	}
	f.temp, f.code = temp.Credentials, code
	return f
}

// finishFlow sends f's token request and, with the token credentials,
// calls the API. A token request refused with 503 sets f.retryAfter, for
// the caller to advance the simulated clock and call again, twice at most.
func (y *year) finishFlow(f *yearFlow) {
	c, u := f.c, f.u
	f.attempt++
	f.retryAfter = 0
	y.count(y.requests, "token request")
	ctx, ri := withYearReq(y.ctx)
	resp, err := c.cfg.AccessToken(ctx, f.temp, f.code)
	if err == nil {
		y.mu.Lock()
		if f.attempt > 1 {
			y.refusals["token request retried after Retry-After, then issued"]++
		}
		c.issued++
		if c.firstRefused > 0 {
			c.issuedAfter++
		}
		u.tok = resp.Credentials
		if c.key == "big" && u == c.users[0] {
			u.toks = append(u.toks, resp.Credentials)
		}
		y.mu.Unlock()
		y.call(c, u, "api call with new token", false, resp.Credentials)
		return
	}
	why, status := y.whyErr(ri, err)
	y.count(y.refusals, "token request: "+why)
	if status == http.StatusServiceUnavailable && f.attempt < 3 {
		if f.attempt == 1 {
			f.first = why + y.observed(ri)
		}
		secs, perr := strconv.Atoi(ri.retry)
		if perr != nil || secs <= 0 {
			y.fail(fmt.Sprintf("%s: token request refused 503 without a Retry-After", c), "%s: Retry-After %q", f, ri.retry)
			secs = 60
		}
		f.retryAfter = time.Duration(secs) * time.Second
		return
	}
	y.refused(f)
	switch {
	case f.attempt == 1:
		y.fail(fmt.Sprintf("%s: token request refused %s", c, why), "%s%s", f, y.observed(ri))
	case status == http.StatusServiceUnavailable:
		y.fail(fmt.Sprintf("%s: token request refused 503 for good (%d attempts, each after Retry-After)", c, f.attempt),
			"%s: first refusal %s", f, f.first)
	default:
		y.fail(fmt.Sprintf("%s: approval lost: token request refused 503, its retry after Retry-After got %s", c, why),
			"%s: first refusal %s", f, f.first)
	}
}

// pickUser returns a random user of c who holds token credentials, or nil.
func (y *year) pickUser(c *yearClient) *yearUser {
	if len(c.users) == 0 {
		return nil
	}
	for range 8 {
		if u := c.users[y.rng.IntN(len(c.users))]; u.tok != nil {
			return u
		}
	}
	return nil
}

// signed returns a GET of c's API signed for u (nil: two-legged) at the
// simulated time, and its yearReq.
func (y *year) signed(c *yearClient, tok *oauth1.Credentials) (*http.Request, *yearReq) {
	ctx, ri := withYearReq(y.ctx)
	r := httptest.NewRequestWithContext(ctx, "GET", "http://"+c.tn.host+"/api/me", nil)
	if err := c.cfg.Sign(r, tok); err != nil {
		y.t.Errorf("signing for %s: %v", c, err)
	}
	return r, ri
}

func (y *year) serve(tn *yearTenant, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	tn.mux.ServeHTTP(rec, r)
	return rec
}

// yearCall is an API call of the day's traffic.
type yearCall struct {
	c      *yearClient
	u      *yearUser
	kind   string
	replay bool
}

// do makes cl, with its user's newest token.
func (y *year) do(cl yearCall) {
	var tok *oauth1.Credentials
	if cl.u != nil {
		tok = cl.u.tok
	}
	y.call(cl.c, cl.u, cl.kind, cl.replay, tok)
}

// call is an honest API call of u (nil: a two-legged launch) with tok at
// c, which must succeed, for the right user; replay sends it again, which
// must be refused.
func (y *year) call(c *yearClient, u *yearUser, kind string, replay bool, tok *oauth1.Credentials) {
	who := "two-legged"
	if u != nil {
		who = "user " + u.id
	}
	r, ri := y.signed(c, tok)
	y.count(y.requests, kind)
	rec := y.serve(c.tn, r)
	if rec.Code != http.StatusOK {
		why := y.why(ri, rec.Code, rec.Body.String())
		y.count(y.refusals, kind+": "+why)
		y.fail(fmt.Sprintf("%s: %s refused %s", c, kind, why), "%s, oauth_nonce %q at %s%s",
			who, yearNonce(r), y.clock.now().Format(time.TimeOnly), y.observed(ri))
		return
	}
	want := c.key + " "
	if u != nil {
		want += u.id
	}
	if got := rec.Body.String(); got != want {
		y.fail(fmt.Sprintf("%s: %s verified for another grant", c, kind), "%s: verified as %q", who, got)
	}
	if !replay {
		return
	}
	y.count(y.requests, "replay")
	ctx, ri := withYearReq(y.ctx)
	rr := httptest.NewRequestWithContext(ctx, "GET", r.URL.String(), nil)
	rr.Header = r.Header.Clone()
	rec = y.serve(c.tn, rr)
	why := y.why(ri, rec.Code, rec.Body.String())
	y.count(y.refusals, "replay: "+why)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(why, "nonce_used") {
		y.fail(fmt.Sprintf("%s: replay answered %s, not 401 nonce_used", c, why), "%s", who)
	}
}

// floodAPI sends c's flood: y.be.flood two-legged requests in one window,
// concurrently. Each is accepted or refused 503; nothing else.
func (y *year) floodAPI(c *yearClient) {
	var accepted, refused atomic.Int64
	y.parallel(y.be.flood, func(int) {
		r, _ := y.signed(c, nil)
		rec := y.serve(c.tn, r)
		switch rec.Code {
		case http.StatusOK:
			accepted.Add(1)
		case http.StatusServiceUnavailable:
			refused.Add(1)
		default:
			y.fail(fmt.Sprintf("%s: flood answered %d", c, rec.Code), "%s", rec.Body)
		}
	})
	y.requests["flood"] += y.be.flood
	if n := accepted.Load(); n > 0 {
		y.flood[c.String()+" accepted"] += int(n)
	}
	if n := refused.Load(); n > 0 {
		y.flood[c.String()+" refused 503"] += int(n)
	}
}

// revoke revokes the token of a random user of tn, and tries it.
func (y *year) revoke(tn *yearTenant) {
	c := tn.clients[y.rng.IntN(2)]
	u := y.pickUser(c)
	if u == nil {
		return
	}
	y.requests["Provider.Revoke"]++
	if err := tn.p.Revoke(y.ctx, u.tok.Token); err != nil {
		y.fail(fmt.Sprintf("%s: Revoke", c), "user %s: %v", u.id, err)
		return
	}
	c.revoked++
	r := yearRevoked{c, u.tok, "Revoke"}
	u.tok = nil
	y.tryRevoked(r, "just revoked (Revoke)")
	if len(y.revoked) < 4096 {
		y.revoked = append(y.revoked, r)
	}
}

// revokeGrant withdraws the grant of u (nil: a random user of c) and tries
// its tokens.
func (y *year) revokeGrant(c *yearClient, u *yearUser) {
	if u == nil {
		if u = y.pickUser(c); u == nil {
			return
		}
	}
	y.requests["Provider.RevokeGrant"]++
	n, err := c.tn.p.RevokeGrant(y.ctx, c.key, u.id)
	if err != nil || n < 1 {
		y.fail(fmt.Sprintf("%s: RevokeGrant", c), "user %s: %d revoked, %v", u.id, n, err)
		return
	}
	c.revoked += n
	// Every token the grant was issued (the heavy user's) or the newest,
	// each with its secret, so that only a revocation can refuse it.
	toks := []*oauth1.Credentials{u.tok}
	if len(u.toks) > 0 {
		toks, u.toks = u.toks, nil
	}
	for _, tok := range toks {
		r := yearRevoked{c, tok, "RevokeGrant"}
		y.tryRevoked(r, "just revoked (RevokeGrant)")
		if len(y.revoked) < 4096 {
			y.revoked = append(y.revoked, r)
		}
	}
	u.tok = nil
}

// tryRevoked signs a request with a revoked token, which must be refused
// with 401.
func (y *year) tryRevoked(r yearRevoked, kind string) {
	y.requests["revoked token tried"]++
	req, ri := y.signed(r.c, r.tok)
	rec := y.serve(r.c.tn, req)
	why := y.why(ri, rec.Code, rec.Body.String())
	y.refusals["revoked token: "+why]++
	if rec.Code == http.StatusOK {
		y.fail(fmt.Sprintf("%s: a revoked token works (%s)", r.c, kind), "answered %q", rec.Body)
	} else if rec.Code != http.StatusUnauthorized {
		y.fail(fmt.Sprintf("%s: a revoked token answered %s, not 401", r.c, why), "%s", kind)
	}
}

// checkpoint measures the live heap and Redis's memory.
func (y *year) checkpoint() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap := int64(ms.HeapAlloc)
	y.peakHeap = max(y.peakHeap, heap)
	used := y.be.usedMemory()
	y.peakRedis = max(y.peakRedis, used)
	tokens := 0
	for _, tn := range y.tenants {
		for _, c := range tn.clients {
			tokens += c.issued
		}
	}
	redisMem := ""
	if used >= 0 {
		redisMem = fmt.Sprintf(", Redis used_memory %6.1f MiB", float64(used)/(1<<20))
	}
	y.t.Logf("day %3d: live heap %6.1f MiB%s, token credentials issued %d",
		y.day+1, float64(heap)/(1<<20), redisMem, tokens)
	if heap > yearHeapBound {
		y.fail("memory: live heap past yearHeapBound", "%d MiB, bound %d MiB", heap>>20, yearHeapBound>>20)
	}
	if used > yearRedisBound {
		y.fail("redis: used_memory past yearRedisBound", "%d MiB, bound %d MiB", used>>20, yearRedisBound>>20)
	}
}

func (y *year) report(cpu, serverCPU, wall time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "simulated year, %s stores: %d users, %d days\n", y.be.name, yearUsers, yearDays)
	writeCounts := func(title string, m map[string]int) {
		fmt.Fprintf(&b, "%s:\n", title)
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		total := 0
		for _, k := range keys {
			fmt.Fprintf(&b, "  %9d  %s\n", m[k], k)
			total += m[k]
		}
		fmt.Fprintf(&b, "  %9d  in all\n", total)
	}
	writeCounts("requests by kind", y.requests)
	writeCounts("refusals by kind and reason (replays and revoked tokens must be refused)", y.refusals)
	writeCounts("flood", y.flood)
	fmt.Fprintf(&b, "peak live heap %.1f MiB (bound %d MiB)", float64(y.peakHeap)/(1<<20), yearHeapBound>>20)
	if y.peakRedis >= 0 {
		fmt.Fprintf(&b, "; peak Redis used_memory %.1f MiB (bound %d MiB)", float64(y.peakRedis)/(1<<20), yearRedisBound>>20)
	}
	fmt.Fprintf(&b, "\nCPU during the run: %.1f s in this process", cpu.Seconds())
	if serverCPU > 0 {
		fmt.Fprintf(&b, ", %.1f s in redis-server", serverCPU.Seconds())
	}
	fmt.Fprintf(&b, " (wall %.1f s)", wall.Seconds())
	if y.trips > 0 {
		fmt.Fprintf(&b, "; %d Redis commands in %d round trips, %.1f µs of CPU a command in both processes with the requests' own work",
			y.commands, y.trips, float64((cpu+serverCPU).Microseconds())/float64(y.commands))
	}
	b.WriteString("\n")
	for _, tn := range y.tenants {
		for _, c := range tn.clients {
			if c.firstRefused > 0 {
				fmt.Fprintf(&b, "%s: first authorization refused: %d (after %d token credentials issued); of the %d authorizations after it, %d got token credentials\n",
					c, c.firstRefused, c.issuedBefore, c.auths-c.firstRefused, c.issuedAfter)
			}
		}
	}
	fmt.Fprintf(&b, "failures: %d kinds\n", len(y.order))
	for _, k := range y.order {
		fmt.Fprintf(&b, "  %7d × %s\n            first: %s\n", y.failures[k].n, k, y.failures[k].first)
	}
	y.t.Log("\n" + b.String())
	for _, k := range y.order {
		y.t.Errorf("%s: %d times; first: %s", k, y.failures[k].n, y.failures[k].first)
	}
}

// yearNonce returns the oauth_nonce of r's Authorization header.
func yearNonce(r *http.Request) string {
	_, v, _ := strings.Cut(r.Header.Get("Authorization"), `oauth_nonce="`)
	v, _, _ = strings.Cut(v, `"`)
	return v
}

// redisCPU returns the CPU time redis-server has used, from INFO cpu.
func redisCPU(t *testing.T, rdb *redis.Client) time.Duration {
	t.Helper()
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for line := range strings.Lines(info) {
		for _, name := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), name); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatalf("INFO cpu: %q: %v", line, err)
				}
				sum += f
			}
		}
	}
	return time.Duration(sum * float64(time.Second))
}

// yearTrips counts the commands sent to Redis and the round trips that
// carried them. With pipeline set it is the client's auto-pipelining: a
// command is queued, and the commands that the run's goroutines issue
// while a round trip is under way go together in the next, as a pipeline
// (what rueidis, ioredis and Lettuce do for a program on their own). Each
// caller still waits for its own reply, and has one command in flight at
// a time, so the stores see what they would on as many connections: each
// script runs atomically, in the order its caller sent it.
type yearTrips struct {
	cmds, n  atomic.Int64
	pipeline *redis.Client // nil: every command on its own round trip

	mu       sync.Mutex
	queue    []yearQueued
	flushers int // goroutines sending queued commands
}

// yearQueued is a command waiting for a round trip.
type yearQueued struct {
	cmd  redis.Cmder
	done chan struct{}
}

// yearFlushers is how many pipelines may be in flight at once.
// yearFlushers is how many pipelines may be in flight at once: one
// gives the longest pipelines, 17 commands each on average with
// yearWorkers 128 (3 with 16 workers and two pipelines).
const yearFlushers = 1

func (h *yearTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *yearTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.cmds.Add(1)
		if h.pipeline == nil {
			h.n.Add(1)
			return next(ctx, cmd)
		}
		done := make(chan struct{})
		h.mu.Lock()
		h.queue = append(h.queue, yearQueued{cmd, done})
		flush := h.flushers < yearFlushers
		if flush {
			h.flushers++
		}
		h.mu.Unlock()
		if flush {
			h.flush()
		}
		<-done
		return cmd.Err()
	}
}

// flush sends the queued commands, a pipeline at a time, until none is
// left.
func (h *yearTrips) flush() {
	ctx := context.Background()
	for {
		h.mu.Lock()
		batch := h.queue
		h.queue = nil
		if len(batch) == 0 {
			h.flushers--
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		pipe := h.pipeline.Pipeline()
		for _, q := range batch {
			pipe.Process(ctx, q.cmd)
		}
		pipe.Exec(ctx) // each command carries its own reply or error
		for _, q := range batch {
			close(q.done)
		}
	}
}

func (h *yearTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}
