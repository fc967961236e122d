package basestring

import (
	"crypto"
	"crypto/sha1"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// This file measures Reproduce and ReproduceWide on the shared corpus of
// real libraries' wrong base strings (COUNTERSIGN_SHARED_CORPUS names its
// file), and derives bugWeights from it.

type corpusEntry struct {
	Library string `json:"library"`
	Suite   string `json:"suite"`
	Request struct {
		Method      string `json:"method"`
		URL         string `json:"url"`
		Body        string `json:"body"`
		ContentType string `json:"content_type"`
	} `json:"request"`
	Want   string   `json:"want"`
	Got    string   `json:"got"`
	Labels []string `json:"labels"`
}

func loadSharedCorpus(t testing.TB) []corpusEntry {
	path := os.Getenv("COUNTERSIGN_SHARED_CORPUS")
	if path == "" {
		t.Skip("set COUNTERSIGN_SHARED_CORPUS to the shared corpus (shared/corpora/six-libraries.json.gz) to run")
	}
	return loadCorpusFile(t, path)
}

// entryRequest is what a provider has of the entry's request as sent.
func entryRequest(e corpusEntry) Request {
	raw := e.Request.URL
	var host, query string
	if _, rest, ok := strings.Cut(raw, "://"); ok {
		host, _, _ = strings.Cut(rest, "/")
		host, _, _ = strings.Cut(host, "?")
	}
	if _, q, ok := strings.Cut(raw, "?"); ok {
		query, _, _ = strings.Cut(q, "#") // a fragment is never sent
	}
	sent := Request{Query: query, Host: host}
	if strings.HasPrefix(strings.ToLower(e.Request.ContentType), "application/x-www-form-urlencoded") {
		sent.Form = e.Request.Body
	}
	return sent
}

var corpusKey = Key{ConsumerKey: "k", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", TokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}

// minimalSet finds the smallest set of bugs (up to size maxK among the
// active ones) whose variant is got; 0, false if none.
func minimalSet(base, got string, sent Request, maxK int) (bug, bool) {
	b, err := Parse(base)
	if err != nil {
		return 0, false
	}
	r, ok := newRebuild(b, base, sent)
	if !ok {
		return 0, false
	}
	if r.fromRequest {
		r.bodyHash = bodyHash(crypto.SHA1, r.form)
	}
	var active []bug
	for i := range bugCount {
		bs := bug(1) << i
		if s, ok := r.build(bs); ok && s != base || r.modifies(bs) {
			active = append(active, bs)
		}
	}
	var rec func(start, k int, acc bug) (bug, bool)
	rec = func(start, k int, acc bug) (bug, bool) {
		if k == 0 {
			s, ok := r.build(acc)
			return acc, ok && s == got
		}
		for i := start; i < len(active); i++ {
			if f, ok := rec(i+1, k-1, acc|active[i]); ok {
				return f, true
			}
		}
		return 0, false
	}
	for k := 1; k <= maxK; k++ {
		if f, ok := rec(0, k, 0); ok {
			return f, true
		}
	}
	return 0, false
}

// TestSharedCorpusWeights prints bugWeights: for each library, the share
// of its entries whose smallest reproducing set of bugs (of at most three,
// found by trying every set of the bugs that change the request) holds
// each bug, averaged over the libraries, per mille.
func TestSharedCorpusWeights(t *testing.T) {
	es := loadSharedCorpus(t)
	per := map[string]*[bugCount]int{}
	n := map[string]int{}
	missed := 0
	for _, e := range es {
		if per[e.Library] == nil {
			per[e.Library] = &[bugCount]int{}
		}
		n[e.Library]++
		bs, ok := minimalSet(e.Want, e.Got, entryRequest(e), 3)
		if !ok {
			missed++
			continue
		}
		for i := range bugCount {
			if bs&(bug(1)<<i) != 0 {
				per[e.Library][i]++
			}
		}
	}
	var w [bugCount]float64
	for l, c := range per {
		for i := range bugCount {
			w[i] += float64(c[i]) / float64(n[l]) / float64(len(per))
		}
	}
	var b strings.Builder
	for i := range bugCount {
		fmt.Fprintf(&b, "%d, ", max(1, int(w[i]*1000+0.5)))
	}
	t.Logf("no set of at most 3 bugs for %d of %d; weights:\n%s", missed, len(es), b.String())
}

// TestSharedCorpusBudgets prints, per library and in all, how much of the
// shared corpus Reproduce and ReproduceWide reproduce from each request as
// sent (its query, form body and Host), with the HMACs and the time per
// request; cmd/oauth1's TestSharedCorpus measures the same through the
// Verifier and oauth1 verify, and holds the targets.
func TestSharedCorpusBudgets(t *testing.T) {
	es := loadSharedCorpus(t)
	for _, b := range []struct {
		name string
		b    budget
	}{{"Reproduce", liveBudget}, {"ReproduceWide", wideBudget}} {
		type fig struct{ n, ok, wrong, hmacs int }
		figs := map[string]*fig{}
		var libs []string
		start := time.Now()
		for _, e := range es {
			f := figs[e.Library]
			if f == nil {
				f = &fig{}
				figs[e.Library] = f
				libs = append(libs, e.Library)
			}
			key := corpusKey
			if !strings.Contains(e.Want, "oauth_token%3D") {
				key.TokenSecret = ""
			}
			sig := b64(rsign(sha1.New, key, e.Got))
			_, signed, ok, n := reproduceWithin(b.b, e.Want, sig, "HMAC-SHA1", key, entryRequest(e))
			f.n++
			f.hmacs += n
			switch {
			case ok && signed == e.Got:
				f.ok++
			case ok:
				f.wrong++
				t.Errorf("%s: %s claims %q; the library hashed %q", e.Library, b.name, signed, e.Got)
			}
		}
		elapsed := time.Since(start)
		var all fig
		slices.Sort(libs)
		for _, l := range libs {
			f := figs[l]
			t.Logf("%s %-11s %4d/%4d %5.1f%%, %d false claims, %.0f HMACs/request", b.name, l, f.ok, f.n, 100*float64(f.ok)/float64(f.n), f.wrong, float64(f.hmacs)/float64(f.n))
			all.n, all.ok, all.wrong, all.hmacs = all.n+f.n, all.ok+f.ok, all.wrong+f.wrong, all.hmacs+f.hmacs
		}
		t.Logf("%s %-11s %4d/%4d %5.1f%%, %d false claims, %.0f HMACs/request, %v/request", b.name, "all", all.ok, all.n, 100*float64(all.ok)/float64(all.n), all.wrong, float64(all.hmacs)/float64(all.n), elapsed/time.Duration(all.n))
	}
}
