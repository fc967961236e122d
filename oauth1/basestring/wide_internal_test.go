package basestring

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// This file holds the negative suite of ReproduceWide: on random requests,
// a signature over a variant made with another key, or over a variant of
// another request, must get no claim at all, and a signature over a
// variant made with the right key no claim but that variant.

// randomRequest returns a small random request as sent, with the parts
// that the bugs change (spaces, "+", ";", NUL bytes, "=" and "?" in
// values, repeated names, names with "." and " ", non-ASCII text, a Host
// in another case or with its port, a path that starts with "//" or holds
// ";", "//", dot segments or uppercase letters, empty pairs, methods but
// GET and POST), of at
// most pairs pairs in its query
// and as many in its form body, and the provider's base string of it;
// nonce sets oauth_nonce.
func randomWideRequest(rng *rand.Rand, nonce string, pairs int) (base string, sent Request) {
	names := []string{"a", "b", "a.b", "a%20b", "a+b", "c%3Dd", "%C3%A9", "x~y", "oauth_callback"}
	values := []string{"", "1", "x%20y", "x+y", "a%2Bb", "a;b", "a%3Bb", "x%00y", "k=v", "p?q", "%C3%BC", "~*!/", "%252F", "a%23b", "%E2%82%AC%20z"}
	join := func(n int) string {
		var ps []string
		for range n {
			ps = append(ps, names[rng.IntN(len(names))]+"="+values[rng.IntN(len(values))])
		}
		if rng.IntN(8) == 0 && len(ps) > 1 {
			return strings.Join(ps, "&&") // empty pairs
		}
		return strings.Join(ps, "&")
	}
	sent.Query = join(rng.IntN(pairs + 1))
	if rng.IntN(2) == 0 {
		sent.Form = join(rng.IntN(pairs + 1))
	}
	scheme := []string{"https", "http"}[rng.IntN(2)]
	host := []string{"example.com", "api.example.com", "example.com:8080"}[rng.IntN(3)]
	sent.Host = []string{host, strings.ToUpper(host), host + map[string]string{"https": ":443", "http": ":80"}[scheme]}[rng.IntN(3)]
	if strings.Count(sent.Host, ":") > 1 {
		sent.Host = host
	}
	if rng.IntN(4) == 0 {
		sent.Realm = "r"
	}
	r0 := &rebuild{method: []string{"GET", "POST", "PUT", "DELETE"}[rng.IntN(4)], scheme: scheme, host: host,
		path: []string{"/", "/p", "/a%20b/c", "//p/q", "/a;b/c", "/a//b", "/a/./b/../c", "/A/b"}[rng.IntN(8)], query: sent.Query, form: sent.Form,
		other: []piece{{name: "oauth_consumer_key", value: "ck"}, {name: "oauth_nonce", value: nonce},
			{name: "oauth_signature_method", value: "HMAC-SHA1"}, {name: "oauth_timestamp", value: "1"}}}
	if rng.IntN(2) == 0 {
		r0.other = append(r0.other, piece{name: "oauth_token", value: "tk"})
	}
	base, ok := r0.build(0)
	if !ok {
		return "", sent
	}
	return base, sent
}

// randomVariant returns the base string of one to three random bugs of
// base's request, and false when they change nothing.
func randomVariant(rng *rand.Rand, base string, sent Request) (string, bool) {
	b, err := Parse(base)
	if err != nil {
		return "", false
	}
	r, ok := newRebuild(b, base, sent)
	if !ok {
		return "", false
	}
	var bs bug
	for range 1 + rng.IntN(3) {
		bs |= bug(1) << rng.IntN(bugCount)
	}
	v, ok := r.build(bs)
	return v, ok && v != base
}

// TestReproduceWideNoFalseClaim is the negative suite: 150 cases; with
// COUNTERSIGN_FALSE_CLAIMS=1, the full suite of 102,000 (.ci/full runs it
// apart: about 780 CPU-seconds); with COUNTERSIGN_FALSE_CLAIMS=sample, a
// sample of 10,200 from a seed that changes each run and is printed
// (COUNTERSIGN_FALSE_CLAIMS_SEED=n runs that sample again; .ci/run runs a
// sample on every stop). The large runs spread over as many goroutines as
// there are CPUs. A third are signed with the right key over a variant (a
// claim must name it), a third with another key over a variant, and a
// third with the right key over a variant of another request (no claim at
// all). Each case runs with the Verifier's budget and then the operator's.
func TestReproduceWideNoFalseClaim(t *testing.T) {
	n, workers, seed := falseClaimsSize(t)
	start := time.Now()
	results := make([]negativeResult, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { results[w] = negativeCases(seed+uint64(w), (n+workers-1)/workers) })
	}
	wg.Wait()
	var all negativeResult
	for _, r := range results {
		if r.failure != "" {
			t.Fatal(r.failure)
		}
		all.cases, all.claims, all.right, all.signedRight, all.hmacs = all.cases+r.cases, all.claims+r.claims, all.right+r.right, all.signedRight+r.signedRight, all.hmacs+r.hmacs
	}
	t.Logf("%d cases: %d claims, all true (%d of the %d signed over a variant with the right key); %.0f HMACs a case, %v",
		all.cases, all.claims, all.right, all.signedRight, float64(all.hmacs)/float64(all.cases), time.Since(start))
	if all.cases < n {
		t.Errorf("%d cases, want %d", all.cases, n)
	}
	if all.right < all.signedRight*9/10 {
		t.Errorf("only %d of the %d variants signed with the right key reproduced", all.right, all.signedRight)
	}
}

// falseClaimsSize returns the size of the negative suite that
// COUNTERSIGN_FALSE_CLAIMS asks for, the goroutines to spread it over, and
// the seed of its first goroutine (goroutine w uses seed+w): 0 for the
// quick and the full suite, which are the same every run, and for a sample
// COUNTERSIGN_FALSE_CLAIMS_SEED or else a random seed, logged so that a
// failing sample can be run again.
func falseClaimsSize(t *testing.T) (n, workers int, seed uint64) {
	switch v := os.Getenv("COUNTERSIGN_FALSE_CLAIMS"); v {
	case "":
		t.Log("150 cases; COUNTERSIGN_FALSE_CLAIMS=sample runs 10,200 and COUNTERSIGN_FALSE_CLAIMS=1 102,000")
		return 150, 1, 0
	case "1":
		return 102000, runtime.GOMAXPROCS(0), 0
	case "sample":
		seed = rand.Uint64()
		if s := os.Getenv("COUNTERSIGN_FALSE_CLAIMS_SEED"); s != "" {
			var err error
			if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatalf("COUNTERSIGN_FALSE_CLAIMS_SEED=%q: want a decimal seed", s)
			}
		}
		workers = runtime.GOMAXPROCS(0)
		t.Logf("a sample of 10,200 cases over %d goroutines; run it again with COUNTERSIGN_FALSE_CLAIMS=sample COUNTERSIGN_FALSE_CLAIMS_SEED=%d -cpu %d", workers, seed, workers)
		return 10200, workers, seed
	default:
		t.Fatalf("COUNTERSIGN_FALSE_CLAIMS=%q: want 1 (the full suite) or sample", v)
		return 0, 0, 0
	}
}

type negativeResult struct {
	cases, claims, right, signedRight, hmacs int
	failure                                  string
}

// negativeCases runs n cases of the negative suite, from seed.
func negativeCases(seed uint64, n int) (res negativeResult) {
	rng := rand.New(rand.NewPCG(37, 5849+seed))
	other := Key{ConsumerSecret: "another consumer secret", TokenSecret: rqKey.TokenSecret}
	for res.cases < n {
		// Most requests are small, so that the search runs to its end
		// quickly; one in 50 is larger, and spends the whole budget.
		size := res.cases % 2
		if res.cases%50 == 49 {
			size = 3
		}
		base, sent := randomWideRequest(rng, "n", size)
		if base == "" {
			continue
		}
		v, ok := randomVariant(rng, base, sent)
		if !ok {
			continue
		}
		var sig, want string // want: the only claim allowed; "" for none
		switch res.cases % 3 {
		case 0:
			sig, want = b64(rsign(sha1.New, rqKey, v)), v
			res.signedRight++
		case 1:
			sig = b64(rsign(sha1.New, other, v))
		case 2:
			otherBase, otherSent := randomWideRequest(rng, "n2", size)
			ov, ok := randomVariant(rng, otherBase, otherSent)
			if !ok || ov == v || ov == base {
				continue
			}
			sig = b64(rsign(sha1.New, rqKey, ov))
		}
		res.cases++
		// The Verifier's budget, then the operator's: either may claim
		// only the variant signed with the right key.
		m, signed, ok, k := reproduceWithin(liveBudget, base, sig, "HMAC-SHA1", rqKey, sent)
		if k > liveBudget.hmacs {
			res.failure = strconv.Itoa(k) + " HMACs, over the live budget"
			return res
		}
		if ok && (signed != want || m.Kind != BaseStringDiffers) {
			res.failure = fmt.Sprintf("live false claim on case %d: %v\nclaimed %q\nsigned  %q\nbase    %q\nsent %+v", res.cases, m, signed, want, base, sent)
			return res
		}
		m, signed, ok, k = reproduceWithin(wideBudget, base, sig, "HMAC-SHA1", rqKey, sent)
		res.hmacs += k
		if k > wideBudget.hmacs {
			res.failure = strconv.Itoa(k) + " HMACs, over the budget"
			return res
		}
		if !ok {
			continue
		}
		res.claims++
		if signed != want || m.Kind != BaseStringDiffers {
			res.failure = fmt.Sprintf("false claim on case %d: %v\nclaimed %q\nsigned  %q\nbase    %q\nsent %+v", res.cases, m, signed, want, base, sent)
			return res
		}
		res.right++
	}
	return res
}

// FuzzReproduceWide checks that ReproduceWide never panics, stays within
// its budget, and that every base string it claims signs, with
// crypto/hmac, to the signature it was given. Half the signatures come
// from a variant, so that claims happen.
func FuzzReproduceWide(f *testing.F) {
	for _, tt := range reproduceCases {
		f.Add(tt.base, tt.sent.Query, tt.sent.Form, tt.sent.Host, tt.sent.Realm, uint64(1), "")
	}
	f.Add(rqBase1, rqSent1.Query, "", "", "", uint64(1<<40|1<<3|1<<17), "")
	f.Add("GET&x&y", "", "", "", "", uint64(0), "AAAA")
	f.Fuzz(func(t *testing.T, base, query, form, host, realm string, bits uint64, sig string) {
		sent := Request{Query: query, Form: form, Host: host, Realm: realm}
		var variant string
		if sig == "" {
			b, err := Parse(base)
			if err != nil {
				return
			}
			r, ok := newRebuild(b, base, sent)
			if !ok {
				return
			}
			if variant, ok = r.build(bug(bits) & (1<<bugCount - 1)); !ok {
				return
			}
			sig = b64(rsign(sha1.New, rqKey, variant))
		}
		m, signed, ok, cost := reproduceCounted(wideBudget, base, sig, "HMAC-SHA1", rqKey, sent)
		if cost.hmacs > wideBudget.hmacs || cost.work > maxWideWork {
			t.Fatalf("%d HMACs, work %d", cost.hmacs, cost.work)
		}
		if !ok {
			if signed != "" || m.Kind != "" {
				t.Fatalf("no claim, but %q and %v", signed, m)
			}
			return
		}
		if m.Kind == KeyUnchecked && signed == "" && strings.Contains(m.Cause, "out of order") {
			return // base is no base string: reported, no base string claimed
		}
		if !signs(rqKey, signed, sig) {
			t.Fatalf("claimed %q, whose HMAC is not the signature %s", signed, sig)
		}
		if variant != "" && signed != variant {
			t.Fatalf("claimed %q, signed %q", signed, variant)
		}
		if m.Kind != BaseStringDiffers || signed == base {
			t.Fatalf("claim %v of %q", m, signed)
		}
	})
}

// BenchmarkReproduceBudgets reports, for the Verifier's budget and the
// operator's, the HMACs and the time per request on requests of the
// negative suite whose signature no variant makes (the whole budget, or
// every set of the bugs that change the request, is spent), and on the
// largest request either takes, with a query only and with a query and a
// form body.
func BenchmarkReproduceBudgets(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	type req struct {
		base string
		sent Request
	}
	var reqs []req
	for len(reqs) < 64 {
		base, sent := randomWideRequest(rng, "n", 3)
		if base != "" {
			reqs = append(reqs, req{base, sent})
		}
	}
	q := strings.Repeat("a=%20%C3%A9;%23&b.c=1+2&", maxReproduceBytes/24)[:maxReproduceBytes/2-200]
	q = q[:strings.LastIndexByte(q, '&')]
	r0 := &rebuild{method: "POST", scheme: "https", host: "example.com", path: "/p%20q", query: q,
		other: []piece{{name: "oauth_consumer_key", value: "k"}}}
	largest, _ := r0.build(0)
	// The same bytes as a query and a form body, for the bugs of reading
	// that need both (bugQueryOnly, bugFormWins).
	half := q[:strings.LastIndexByte(q[:len(q)/2], '&')]
	r1 := &rebuild{method: "POST", scheme: "https", host: "example.com", path: "/p%20q", query: half, form: q[len(half)+1:],
		other: []piece{{name: "oauth_consumer_key", value: "k"}}}
	largestForm, _ := r1.build(0)
	sig := b64(rsign(sha1.New, rqKey, "no variant"))
	for _, bb := range []struct {
		name string
		b    budget
	}{{"live", liveBudget}, {"wide", wideBudget}} {
		b.Run(bb.name+"/small", func(b *testing.B) {
			hmacs, calls := 0, 0
			for i := 0; b.Loop(); i++ {
				r := reqs[i%len(reqs)]
				_, _, _, n := reproduceWithin(bb.b, r.base, sig, "HMAC-SHA1", rqKey, r.sent)
				hmacs, calls = hmacs+n, calls+1
			}
			b.ReportMetric(float64(hmacs)/float64(calls), "HMACs/request")
		})
		b.Run(bb.name+"/largest", func(b *testing.B) {
			n := 0
			for b.Loop() {
				_, _, _, n = reproduceWithin(bb.b, largest, sig, "HMAC-SHA1", rqKey, Request{Query: q, Host: "Example.COM:443", Realm: "r"})
			}
			b.ReportMetric(float64(n), "HMACs/request")
			b.ReportMetric(float64(len(largest)), "base-bytes")
		})
		b.Run(bb.name+"/largest-form", func(b *testing.B) {
			n := 0
			for b.Loop() {
				_, _, _, n = reproduceWithin(bb.b, largestForm, sig, "HMAC-SHA1", rqKey, Request{Query: r1.query, Form: r1.form, Host: "Example.COM:443", Realm: "r"})
			}
			b.ReportMetric(float64(n), "HMACs/request")
			b.ReportMetric(float64(len(largestForm)), "base-bytes")
		})
	}
}
