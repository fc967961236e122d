package redisstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
	"github.com/countersign/countersign/redisstore"
)

// The attack run: for at least a bounded time, one Provider (memory stores) and one
// Verifier whose nonces are in Redis serve 64 honest clients on loopback
// while, at once,
//
//   - 1,000 connections send the headers of a 4 MiB form POST, with no
//     Authorization header, and then nothing;
//   - a registered client floods both with valid requests dated as far in
//     the future as the window allows, each with a fresh nonce;
//   - a registered client sends 200 KB form bodies with a 64-byte signature,
//     the refusal that costs DiagnoseKeys the most;
//   - a registered client sends bodies of "a&a&…" up to the body limit,
//     which maximise what parsing allocates per byte.
//
// The run lasts attackDuration, and then as long as it takes the flood to
// be refused by both stores for holding its share (or to send floodLimit
// requests without that) and each honest client to send honestMinimum
// requests: its checks count what the test controls, not what a loaded
// machine manages in a wall-clock period. It checks that at least 99.9% of
// the honest requests succeed, that the flood was refused by both stores
// and had no more than its share accepted, and that the process's heap
// stays under attackHeapBound, and prints the honest clients'
// latency percentiles. TestAttackRun runs it when COUNTERSIGN_ATTACK=1 (as
// .ci/run does); BenchmarkAttackRun reports the same figures as metrics:
//
//	cd redisstore && go test -run '^$' -bench AttackRun -benchtime 1x
//
// The nonce stores are sized down (attackMaxNonces in memory, and Redis's
// maxmemory attackRedisRoom above what it uses at the start, with
// noeviction), and each client's share is attackShare, so that the flood
// reaches its share within the run; an honest client sends a request
// every honestInterval at most, well within its share.

const (
	honestClients   = 64
	stalledConns    = 1000
	attackWindow    = 30 * time.Second
	attackMaxNonces = 1 << 14
	attackShare     = 1 << 8
	attackRedisRoom = 4 << 20 // bytes: about 28,000 nonces
	honestInterval  = 50 * time.Millisecond

	// honestMinimum is the fewest requests each honest client sends; the
	// run goes on past attackDuration until each has.
	honestMinimum = 16
	// floodLimit is the most requests the flood sends before both stores
	// have refused it for holding its share, after which it goes on until
	// the run ends. Its share is attackShare in each: 2*attackShare
	// requests fill both, and the rest allow for the ones refused for
	// another reason.
	floodLimit = 16 * attackShare

	// attackHeapBound is the most the heap may hold at any moment of the
	// run, attackers' own buffers included; README and redisstore's package
	// docs quote it.
	// It bounds the live heap, as the garbage collector finds it: what the
	// bodies being parsed take at once, 12.2 bytes per body byte (51 MiB
	// for one of the default 4 MiB limit), and about 20 KiB for each
	// stalled connection. The heap with its garbage, printed beside it,
	// may reach twice as much at GOGC=100.
	attackHeapBound = 256 << 20
)

// attackDuration is how long the attack lasts: COUNTERSIGN_ATTACK_SECONDS,
// or 10 seconds.
func attackDuration() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("COUNTERSIGN_ATTACK_SECONDS")); err == nil && s > 0 && s <= 600 {
		return time.Duration(s) * time.Second
	}
	return 10 * time.Second
}

type attackFigures struct {
	honest, honestOK         int64
	p50, p90, p99, p999, max time.Duration
	peakHeap, peakLive       uint64
	flood, floodOK           int64
	floodFull                [2]int64 // the flood's requests refused 503 by each target
	diagnosed, amplified     int64
	stalled                  int64
	failures                 map[string]int64 // honest failures by status or error
}

func (f *attackFigures) successRate() float64 {
	if f.honest == 0 {
		return 0
	}
	return float64(f.honestOK) / float64(f.honest)
}

func (f *attackFigures) String() string {
	return fmt.Sprintf("honest clients: %d of %d requests succeeded (%.3f%%); latency p50 %v, p90 %v, p99 %v, p99.9 %v, max %v\n"+
		"peak live heap %.1f MiB (bound %d MiB); peak heap with garbage %.1f MiB\n"+
		"attackers: %d stalled connections, %d flood requests (%d accepted, %d and %d refused 503 by the Provider and the Verifier), %d DiagnoseKeys-maximizing and %d amplification bodies sent\n"+
		"honest failures: %v",
		f.honestOK, f.honest, 100*f.successRate(), f.p50, f.p90, f.p99, f.p999, f.max,
		float64(f.peakLive)/(1<<20), attackHeapBound>>20, float64(f.peakHeap)/(1<<20),
		f.stalled, f.flood, f.floodOK, f.floodFull[0], f.floodFull[1], f.diagnosed, f.amplified, f.failures)
}

func TestAttackRun(t *testing.T) {
	if os.Getenv("COUNTERSIGN_ATTACK") != "1" {
		t.Skip("the attack run takes about 15 s and 1,000 connections: set COUNTERSIGN_ATTACK=1 to run it (.ci/run does)")
	}
	f := attackRun(t, attackDuration())
	t.Log("\n" + f.String())
	if f.successRate() < 0.999 {
		t.Errorf("honest success %.3f%%, want at least 99.9%%", 100*f.successRate())
	}
	if f.honest < honestClients*honestMinimum {
		t.Errorf("honest clients sent only %d requests, want at least %d", f.honest, honestClients*honestMinimum)
	}
	if f.peakLive > attackHeapBound {
		t.Errorf("peak live heap %d MiB, want at most %d MiB", f.peakLive>>20, attackHeapBound>>20)
	}
	if f.floodFull[0] == 0 || f.floodFull[1] == 0 {
		t.Errorf("the flood sent %d requests (%d accepted) and was refused 503 %d times by the Provider and %d times by the Verifier: "+
			"its share of a nonce store was never reached, so the run tested too little", f.flood, f.floodOK, f.floodFull[0], f.floodFull[1])
	}
	if f.floodOK > 2*attackShare {
		t.Errorf("the flood had %d requests accepted, more than its share of %d nonces in each of the two stores", f.floodOK, attackShare)
	}
}

func BenchmarkAttackRun(b *testing.B) {
	var f *attackFigures
	for range b.N {
		f = attackRun(b, attackDuration())
	}
	b.ReportMetric(100*f.successRate(), "honest-%")
	b.ReportMetric(float64(f.p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(f.p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(f.p999.Microseconds())/1000, "p99.9-ms")
	b.ReportMetric(float64(f.peakLive)/(1<<20), "peak-live-MiB")
	b.ReportMetric(float64(f.peakHeap)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(0, "ns/op")
	b.Log("\n" + f.String())
}

// attackKey returns the credentials of client i of kind.
func attackKey(kind string, i int) (key, secret string) {
	return fmt.Sprintf("%s-%d", kind, i), fmt.Sprintf("secret-of-%s-%d", kind, i)
}

func attackRun(tb testing.TB, d time.Duration) *attackFigures {
	tb.Helper()
	// The run's own Redis, so that its maxmemory and noeviction stay its own.
	srv := ownServer(tb)
	rdb := newClient(tb, srv.addr())
	ctx := context.Background()
	info, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		tb.Fatal(err)
	}
	var usedMemory int64
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			usedMemory, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	maxmemory := strconv.FormatInt(usedMemory+attackRedisRoom, 10)
	for _, kv := range [][2]string{{"maxmemory", maxmemory}, {"maxmemory-policy", "noeviction"}} {
		if err := rdb.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			tb.Fatalf("CONFIG SET %s %s: %v", kv[0], kv[1], err)
		}
	}

	consumers := server.Consumers{}
	for _, kind := range []string{"honest", "flood", "diagnose", "amplify"} {
		n := 1
		if kind == "honest" {
			n = honestClients
		}
		for i := range n {
			key, secret := attackKey(kind, i)
			consumers[key] = server.Registration{Secret: secret}
		}
	}

	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	provider := &server.Provider{
		Consumers: consumers,
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Settings:  server.Settings{Window: attackWindow, Nonces: &server.MemoryNonceStore{MaxNonces: attackMaxNonces, MaxNoncesPerConsumer: attackShare}, DiagnoseKeys: true},
	}
	redisNonces := redisstore.NewNonceStore(rdb, testPrefix(tb))
	redisNonces.MaxNoncesPerConsumer = attackShare
	verifier := &server.Verifier{Store: consumers, Settings: server.Settings{Window: attackWindow, Nonces: redisNonces, DiagnoseKeys: true}}
	targets := []string{
		startAttackServer(tb, provider.Middleware(ok)),
		startAttackServer(tb, verifier.Middleware(ok)),
	}

	var (
		f      = &attackFigures{failures: map[string]int64{}}
		wg     sync.WaitGroup
		stop   = make(chan struct{})
		failMu sync.Mutex
		lat    = make([][]time.Duration, honestClients)
	)
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}

	// The heap, sampled every millisecond: all of it, and the live part as
	// the last collection found it.
	var peak, peakLive atomic.Uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
		for !stopped() {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			if v := s[1].Value.Uint64(); v > peakLive.Load() {
				peakLive.Store(v)
			}
			time.Sleep(time.Millisecond)
		}
	}()

	// 1,000 stalled connections, opened again when the server closes them.
	var stalled atomic.Int64
	for i := range stalledConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := strings.TrimPrefix(targets[i%2], "http://")
			head := "POST /api/upload HTTP/1.1\r\nHost: " + target +
				"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 4194304\r\n\r\n"
			for !stopped() {
				c, err := net.DialTimeout("tcp", target, time.Second)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				stalled.Add(1)
				c.Write([]byte(head))
				done := make(chan struct{})
				go func() { io.Copy(io.Discard, c); close(done) }()
				select {
				case <-stop:
				case <-done:
				}
				c.Close()
			}
		}()
	}

	// Attackers that sign with registered credentials. Each request is sent
	// with its own http.Client so that a stuck one cannot hold the others.
	attacker := func(kind string, workers int, send func(c *http.Client, target string) bool, count *int64, accepted *int64) {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := &http.Client{Timeout: 5 * time.Second}
				for n := 0; !stopped(); n++ {
					good := send(c, targets[(w+n)%2])
					atomic.AddInt64(count, 1)
					if good && accepted != nil {
						atomic.AddInt64(accepted, 1)
					}
				}
			}()
		}
	}

	// The flood: 16 workers, alternating between the targets, until the
	// run ends. The run lasts until both targets have refused it for
	// holding its share (503), however long that takes on a loaded
	// machine; a flood that has sent floodLimit requests without that
	// stops, and the run ends and fails.
	floodKey, floodSecret := attackKey("flood", 0)
	flood := &oauth1.Config{ConsumerKey: floodKey, ConsumerSecret: floodSecret}
	var floodSent atomic.Int64
	floodFull := func() bool {
		return atomic.LoadInt64(&f.floodFull[0]) > 0 && atomic.LoadInt64(&f.floodFull[1]) > 0
	}
	floodDone := func() bool { return floodFull() || floodSent.Load() >= floodLimit }
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 5 * time.Second}
			for n := 0; !stopped() && (floodSent.Add(1) <= floodLimit || floodFull()); n++ {
				i := (w + n) % 2
				r, _ := http.NewRequest("GET", targets[i]+"/api/flood", nil)
				// As far in the future as the window allows, less a margin for
				// the time the request takes to arrive.
				at := time.Now().Add(attackWindow - 2*time.Second)
				if err := flood.SignAt(r, nil, at, randomNonce()); err != nil {
					panic(err)
				}
				code := status(c, r)
				atomic.AddInt64(&f.flood, 1)
				switch code {
				case http.StatusOK:
					atomic.AddInt64(&f.floodOK, 1)
				case http.StatusServiceUnavailable:
					atomic.AddInt64(&f.floodFull[i], 1)
				}
			}
		}()
	}

	// 200 KB of "!" is a 1 MiB base string ("%2521" a byte); a 64-byte
	// signature makes DiagnoseKeys try HMAC-SHA512.
	diagnoseBody := "a=" + strings.Repeat("!", 200<<10)
	sig64 := make([]byte, 64)
	rand.Read(sig64)
	diagKey, diagSecret := attackKey("diagnose", 0)
	diag := &oauth1.Config{ConsumerKey: diagKey, ConsumerSecret: diagSecret}
	attacker("diagnose", 2, func(c *http.Client, target string) bool {
		r := forgedForm(diag, target, diagnoseBody, base64.StdEncoding.EncodeToString(sig64))
		return status(c, r) == http.StatusOK
	}, &f.diagnosed, nil)

	// "a&a&…" up to the default body limit (4 MiB), a right-length but wrong
	// signature: parsed, base string built, refused.
	ampBody := strings.Repeat("a&", 2<<20-1) + "a"
	ampKey, ampSecret := attackKey("amplify", 0)
	amp := &oauth1.Config{ConsumerKey: ampKey, ConsumerSecret: ampSecret}
	attacker("amplify", 2, func(c *http.Client, target string) bool {
		r := forgedForm(amp, target, ampBody, base64.StdEncoding.EncodeToString(sig64[:20]))
		return status(c, r) == http.StatusOK
	}, &f.amplified, nil)

	// The honest clients: each signs its requests with its own consumer key
	// through a Transport, alternating between the two servers, for d, and
	// on until the flood is done and each has sent honestMinimum.
	start := time.Now()
	var honestWG sync.WaitGroup
	for i := range honestClients {
		honestWG.Add(1)
		go func() {
			defer honestWG.Done()
			key, secret := attackKey("honest", i)
			c := &http.Client{
				Timeout:   10 * time.Second,
				Transport: &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret}},
			}
			for n := 0; n < honestMinimum || time.Since(start) < d || !floodDone(); n++ {
				t0 := time.Now()
				resp, err := c.Get(targets[(i+n)%2] + "/api/hello?n=" + strconv.Itoa(n))
				why := ""
				if err != nil {
					why = "error"
				} else {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						why = strconv.Itoa(resp.StatusCode) + " " + resp.Header.Get("WWW-Authenticate")
					}
				}
				lat[i] = append(lat[i], time.Since(t0))
				atomic.AddInt64(&f.honest, 1)
				if why == "" {
					atomic.AddInt64(&f.honestOK, 1)
				} else {
					failMu.Lock()
					f.failures[why]++
					failMu.Unlock()
				}
				// An honest client sends at a steady pace.
				time.Sleep(time.Until(t0.Add(honestInterval)))
			}
		}()
	}
	honestWG.Wait()
	close(stop)
	wg.Wait()

	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(p*float64(len(all))))]
	}
	f.p50, f.p90, f.p99, f.p999 = pct(0.5), pct(0.9), pct(0.99), pct(0.999)
	if len(all) > 0 {
		f.max = all[len(all)-1]
	}
	f.peakHeap, f.peakLive = peak.Load(), peakLive.Load()
	f.stalled = stalled.Load()
	runtime.GC()
	return f
}

// startAttackServer serves h on a loopback port, with the timeouts every
// server facing the Internet needs, until tb ends.
func startAttackServer(tb testing.TB, h http.Handler) string {
	s := httptest.NewUnstartedServer(h)
	s.Config.ReadHeaderTimeout = 5 * time.Second
	s.Config.ReadTimeout = 30 * time.Second
	s.Config.WriteTimeout = 30 * time.Second
	s.Config.IdleTimeout = 30 * time.Second
	s.Start()
	tb.Cleanup(s.Close)
	return s.URL
}

// forgedForm returns a POST of body to target, signed by cfg and then given
// the signature sig instead of its own.
func forgedForm(cfg *oauth1.Config, target, body, sig string) *http.Request {
	// The signature is replaced, so the body need not be signed: the
	// attacker's own process spends nothing on it.
	r, _ := http.NewRequest("POST", target+"/api/upload", strings.NewReader(""))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := cfg.SignAt(r, nil, time.Now(), randomNonce()); err != nil {
		panic(err)
	}
	params, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization"))
	if err != nil {
		panic(err)
	}
	var h bytes.Buffer
	h.WriteString("OAuth ")
	for i, p := range params {
		v := p.Value
		if p.Name == "oauth_signature" {
			v = sig
		}
		if i > 0 {
			h.WriteString(", ")
		}
		fmt.Fprintf(&h, "%s=%q", p.Name, percent.Encode(v))
	}
	r.Header.Set("Authorization", h.String())
	r.Body = io.NopCloser(strings.NewReader(body))
	r.ContentLength = int64(len(body))
	return r
}

func status(c *http.Client, r *http.Request) int {
	resp, err := c.Do(r)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func randomNonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
