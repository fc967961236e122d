package basestring

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha512"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// This file crafts the requests that cost Reproduce and ReproduceWide the
// most, to bound the work they do on them: many parameters, long values,
// many percent escapes, a query and a form body that share names.

// A craftedRequest is a hostile request: the provider's base string of it,
// the request as sent, and a signature no variant makes.
type craftedRequest struct {
	name string
	base string
	sent Request
}

// craftedTemplates are the pairs repeated to make the crafted requests:
// each makes many bugs change the request, in its own way.
var craftedTemplates = []struct {
	name        string
	query, form func(i int) string // the i-th pair of the query, of the form body
}{
	{"many-pairs", func(i int) string { return "a" + strconv.Itoa(i) + "=" }, nil},
	{"repeated-names", func(i int) string { return "a=" + strconv.Itoa(i%3) + "&b=" }, func(i int) string { return "a=&b=" + strconv.Itoa(i%2) }},
	{"escapes", func(i int) string { return "v" + strconv.Itoa(i%10) + "=%C3%A9%20;%23+%00=?*~/!" }, nil},
	{"long-escaped", func(i int) string { return "v=" + strings.Repeat("%C3%A9%2B%20", 40) }, func(i int) string { return "w=" + strings.Repeat("%25%3B", 40) }},
	{"one-long-value", func(i int) string { return "v=" + strings.Repeat("%C3%A9%25%3B", i) }, nil},
	{"mixed", func(i int) string {
		return []string{"a=1", "a.b=x%20y", "c%3Dd=k=v", "e=p?q", "a=", "f=%00x", "g=a;b", "a+b=%E2%82%AC"}[i%8]
	}, func(i int) string { return []string{"a=2", "h=c+d", "a=", "i=%252F"}[i%4] }},
}

// craftedRequests returns, for each template and size, the request of the
// most pairs whose base string is at most size bytes and whose query and
// form body Reproduce takes.
func craftedRequests(t testing.TB, sizes ...int) []craftedRequest {
	var out []craftedRequest
	for _, tp := range craftedTemplates {
		// make returns the request of n pairs, and false when Reproduce
		// would not take it or its base string is over size.
		make := func(n, size int) (string, Request, bool) {
			var q, f []string
			for i := range n {
				if tp.query != nil {
					q = append(q, tp.query(i))
				}
				if tp.form != nil {
					f = append(f, tp.form(i))
				}
			}
			s := Request{Query: strings.Join(q, "&"), Form: strings.Join(f, "&"), Host: "API.Example.COM:443", Realm: "r"}
			r0 := &rebuild{method: "POST", scheme: "https", host: "api.example.com", path: "/p%20q", query: s.Query, form: s.Form,
				other: []piece{{name: "oauth_consumer_key", value: "k"}, {name: "oauth_nonce", value: "n"},
					{name: "oauth_signature_method", value: "HMAC-SHA1"}, {name: "oauth_timestamp", value: "1"}}}
			b, ok := r0.build(0)
			if !ok {
				t.Fatalf("%s: no base string", tp.name)
			}
			return b, s, len(b) <= min(size, maxReproduceBytes) && len(s.Query)+len(s.Form)+len(s.Host)+len(s.Realm) <= maxReproduceBytes
		}
		for _, size := range sizes {
			lo, hi := 0, 1 // make(lo) fits, make(hi) does not
			for _, _, ok := make(hi, size); ok; _, _, ok = make(hi, size) {
				lo, hi = hi, 2*hi
			}
			for hi-lo > 1 {
				mid := (lo + hi) / 2
				if _, _, ok := make(mid, size); ok {
					lo = mid
				} else {
					hi = mid
				}
			}
			base, sent, _ := make(lo, size)
			out = append(out, craftedRequest{tp.name + "/" + strconv.Itoa(size>>10) + "KiB", base, sent})
		}
	}
	return out
}

// TestReproduceWorkBound checks, on the crafted requests, that a search
// does no more work than it may (the live search what mac.ReproduceWork
// says, which oauth1/server charges; the wide one maxWideWork), and that a
// live search on a small request may do enough for the whole search.
func TestReproduceWorkBound(t *testing.T) {
	sig := b64(rsign(sha1.New, rqKey, "no variant"))
	for _, c := range craftedRequests(t, 2<<10, maxReproduceBytes) {
		_, _, ok, cost := reproduceCounted(liveBudget, c.base, sig, "HMAC-SHA1", rqKey, c.sent)
		charged := mac.ReproduceWork(len(c.base), len(c.sent.Query)+len(c.sent.Form))
		if ok || cost.work == 0 || cost.work > charged || cost.limit != charged || cost.hmacs > maxReproduceTries {
			t.Errorf("live %s: claim %v, %d HMACs, work %d of %d; want no claim, work within the %d charged", c.name, ok, cost.hmacs, cost.work, cost.limit, charged)
		}
	}
	for _, c := range craftedRequests(t, maxReproduceBytes) {
		_, _, ok, cost := reproduceCounted(wideBudget, c.base, sig, "HMAC-SHA1", rqKey, c.sent)
		if ok || cost.work == 0 || cost.work > maxWideWork || cost.hmacs > wideBudget.hmacs {
			t.Errorf("wide %s: claim %v, %d HMACs, work %d; want no claim, work within %d", c.name, ok, cost.hmacs, cost.work, maxWideWork)
		}
	}
	// A small request gets the whole live search: its HMACs stop it, not
	// its work.
	_, _, _, cost := reproduceCounted(liveBudget, rqBase3, sig, "HMAC-SHA1", rqKey, rqSent3)
	if cost.work >= cost.limit || cost.hmacs != maxReproduceTries {
		t.Errorf("a small request: %d HMACs, work %d of %d; want %d HMACs within the limit", cost.hmacs, cost.work, cost.limit, maxReproduceTries)
	}
	if got := mac.ReproduceWork(maxReproduceBytes, maxReproduceBytes); got != mac.MaxReproduceWork {
		t.Errorf("ReproduceWork of the largest request %d, want MaxReproduceWork %d", got, mac.MaxReproduceWork)
	}
}

// sha512Speed returns the CPU time HMAC-SHA512 takes a byte, measured now.
func sha512Speed() (float64, bool) {
	m := hmac.New(sha512.New, []byte("key"))
	buf := make([]byte, 8<<10)
	c0, ok := processCPU()
	for range 512 {
		m.Reset()
		m.Write(buf)
		m.Sum(nil)
	}
	c1, _ := processCPU()
	return float64(c1-c0) / float64(512*len(buf)), ok && c1 > c0
}

// TestReproduceCraftedCPU (COUNTERSIGN_LONG_TESTS=1) measures the CPU time
// of the live and wide searches on the crafted requests, and the time
// HMAC-SHA512 takes a byte in the same run, and logs them with the work
// counted, as BenchmarkReproduceCrafted reports them. It fails on no
// figure of time: a busy machine stretches one search's CPU time several
// times over (7.3 ms once, in CI, for a search that takes 1 ms); the
// bound on work is TestReproduceWorkBound's, counted, not timed.
func TestReproduceCraftedCPU(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("measures CPU time; COUNTERSIGN_LONG_TESTS=1 runs it")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("no CPU time on this system")
	}
	sig := b64(rsign(sha1.New, rqKey, "no variant"))
	for _, bb := range []struct {
		name string
		b    budget
	}{{"live", liveBudget}, {"wide", wideBudget}} {
		var most time.Duration
		for _, c := range craftedRequests(t, 2<<10, 4<<10, 7<<10, maxReproduceBytes) {
			reps := 5
			c0, _ := processCPU()
			var cost searchCost
			for range reps {
				_, _, _, cost = reproduceCounted(bb.b, c.base, sig, "HMAC-SHA1", rqKey, c.sent)
			}
			c1, _ := processCPU()
			per := (c1 - c0) / time.Duration(reps)
			most = max(most, per)
			speed, _ := sha512Speed()
			hashed := float64(per) / speed // bytes HMAC-SHA512 hashes in that time
			t.Logf("%s %-24s %6.2f ms CPU, work %5.2f MB counted, %5.2f MB of HMAC-SHA512 in that time (%.2f ns a byte)",
				bb.name, c.name, float64(per)/1e6, float64(cost.work)/1e6, hashed/1e6, speed)
			if hashed > 3*float64(cost.work) {
				t.Logf("%s %s: %.2f MB of HMAC-SHA512 in the time of work counted as %.2f MB (a busy machine, or weights to look at with BenchmarkReproduceCrafted)", bb.name, c.name, hashed/1e6, float64(cost.work)/1e6)
			}
		}
		t.Logf("%s: at most %v of CPU a search", bb.name, most)
	}
}

// BenchmarkReproduceCrafted reports the CPU time, the HMACs and the work
// counted of the live and the wide search on each crafted request.
func BenchmarkReproduceCrafted(b *testing.B) {
	sig := b64(rsign(sha1.New, rqKey, "no variant"))
	for _, bb := range []struct {
		name string
		b    budget
	}{{"live", liveBudget}, {"wide", wideBudget}} {
		for _, c := range craftedRequests(b, 2<<10, 4<<10, 7<<10, maxReproduceBytes) {
			b.Run(bb.name+"/"+c.name, func(b *testing.B) {
				var cost searchCost
				c0, ok := processCPU()
				for b.Loop() {
					_, _, _, cost = reproduceCounted(bb.b, c.base, sig, "HMAC-SHA1", rqKey, c.sent)
				}
				if c1, _ := processCPU(); ok {
					b.ReportMetric(float64(c1-c0)/float64(b.N)/1e6, "cpu-ms/op")
				}
				b.ReportMetric(float64(cost.hmacs), "HMACs")
				b.ReportMetric(float64(cost.work)/1e6, "work-MB")
				b.ReportMetric(float64(len(c.base)), "base-bytes")
			})
		}
	}
}
