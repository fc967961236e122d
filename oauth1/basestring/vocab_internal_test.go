package basestring

import (
	"compress/gzip"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// This file measures the vocabulary on the corpora of real libraries'
// wrong base strings: which library makes which bug (TestVocabulary,
// which also derives learnedWeights), and how well the search does on a
// library it did not learn from (TestLeaveOneOut).
//
// The corpora: COUNTERSIGN_SHARED_CORPUS (shared/corpora/six-libraries.json.gz),
// the .json.gz files of testdata/corpora but the RSA ones, and any that
// COUNTERSIGN_MORE_CORPORA lists (comma-separated). A library is known by
// its name across them.

// bugNames are the bugs' names without "bug", in their order.
var bugNames = [bugCount]string{"Plus", "PlusLiteral", "Twice", "RawQuery", "RawForm", "NoEncoding", "UnencodedNames", "LowerHex", "JSComponent", "KeepSlash", "Java", "Tilde", "NoForm", "QueryInURI", "QueryOnlyInURI", "DefaultPort", "Scheme", "HostAsSent", "AnyPort", "DecodedPath", "Realm", "Signature", "Latin1", "KeepFirst", "KeepLast", "QueryWins", "SortDecoded", "SortJoined", "DropEmpty", "SemicolonDrop", "SemicolonSplit", "SemicolonCut", "HashCut", "NulCut", "EqCut", "QCut", "RawNames", "PHPNames", "NoEquals", "NotReencoded", "NoQuery", "EmptyToken", "BodyHash", "NoRootSlash", "UnencodedValues", "SpacePlus", "SchemeUpper", "SchemeTitle", "FormWins", "EmptyReplaced", "NetworkPath", "QueryOnly", "MethodLower", "EmptyPairs", "SortByName", "Unsorted", "PathParams", "PathSlashes", "DotSegments", "URILower", "QueryVerbatim", "QMarkKept", "MethodGetPost", "SortNameReversed"}

// loadCorpusFile reads a corpus file: the gzip of one JSON array.
func loadCorpusFile(t testing.TB, path string) []corpusEntry {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var es []corpusEntry
	if err := json.NewDecoder(z).Decode(&es); err != nil {
		t.Fatal(err)
	}
	return es
}

// vocabEntry is one entry of the corpora, with what the search found.
type vocabEntry struct {
	corpusEntry
	sig   string
	key   Key
	sent  Request
	found bug  // the bugs the search found with the priors alone
	ok    bool // whether it found got
}

// loadVocabCorpora loads the corpora, keeping of each library at most
// limit entries (0 for all), evenly spread.
func loadVocabCorpora(t *testing.T, limit int) (map[string][]*vocabEntry, []string) {
	var es []corpusEntry
	if p := os.Getenv("COUNTERSIGN_SHARED_CORPUS"); p != "" {
		es = append(es, loadCorpusFile(t, p)...)
	}
	files, _ := filepath.Glob("../../testdata/corpora/*.json.gz")
	for _, f := range files {
		if strings.Contains(f, "-rsa") || strings.HasSuffix(f, "/more-corpa.json.gz") {
			continue // RSA-SHA256 only; more-corpa repeats libraries.json.gz
		}
		es = append(es, loadCorpusFile(t, f)...)
	}
	for _, p := range strings.Split(os.Getenv("COUNTERSIGN_MORE_CORPORA"), ",") {
		if p != "" {
			es = append(es, loadCorpusFile(t, p)...)
		}
	}
	all := map[string][]corpusEntry{}
	for _, e := range es {
		all[e.Library] = append(all[e.Library], e)
	}
	libs := make([]string, 0, len(all))
	byLib := map[string][]*vocabEntry{}
	for l, les := range all {
		libs = append(libs, l)
		step := 1.0
		if limit > 0 && len(les) > limit {
			step = float64(len(les)) / float64(limit)
		}
		for f := 0.0; int(f) < len(les); f += step {
			e := les[int(f)]
			key := corpusKey
			if !strings.Contains(e.Want, "oauth_token%3D") {
				key.TokenSecret = ""
			}
			byLib[l] = append(byLib[l], &vocabEntry{corpusEntry: e, key: key, sig: b64(rsign(sha1.New, key, e.Got)), sent: entryRequest(e)})
		}
	}
	slices.Sort(libs)
	return byLib, libs
}

// bugsOf returns the bugs m's cause names.
func bugsOf(m Mistake) bug {
	var bs bug
	for i := range bugCount {
		if strings.Contains(m.Cause, bugCauses[i]) {
			bs |= bug(1) << i
		}
	}
	return bs
}

// attribute runs the search with the priors alone on every entry, and
// records the bugs it found.
func attribute(byLib map[string][]*vocabEntry) {
	priors := newVocabulary(allBugs, &[bugCount]uint16{})
	for _, es := range byLib {
		for _, e := range es {
			m, signed, ok, _ := reproduceWith(wideBudget, priors, e.Want, e.sig, "HMAC-SHA1", e.key, e.sent)
			if ok && signed == e.Got {
				e.ok, e.found = true, bugsOf(m)
			}
		}
	}
}

// learn returns the weights learned from the libraries but skip, per ten
// thousand: the share of their entries whose bugs hold each (every entry
// counts alike); and the bugs they make.
func learn(byLib map[string][]*vocabEntry, skip string) (*[bugCount]uint16, bug) {
	var c [bugCount]int
	var made bug
	n := 0
	for l, es := range byLib {
		if l == skip {
			continue
		}
		n += len(es)
		for _, e := range es {
			made |= e.found
			for i := range bugCount {
				if e.found&(bug(1)<<i) != 0 {
					c[i]++
				}
			}
		}
	}
	var out [bugCount]uint16
	for i := range bugCount {
		out[i] = uint16(float64(c[i])/float64(n)*10000 + 0.5)
	}
	return &out, made
}

// attributed caches the corpora, attributed, by limit: TestVocabulary and
// TestLeaveOneOut share them.
var attributed = map[int]struct {
	byLib map[string][]*vocabEntry
	libs  []string
}{}

// loadAttributed returns the corpora of loadVocabCorpora, attributed.
func loadAttributed(t *testing.T, limit int) (map[string][]*vocabEntry, []string) {
	if c, ok := attributed[limit]; ok {
		return c.byLib, c.libs
	}
	byLib, libs := loadVocabCorpora(t, limit)
	attribute(byLib)
	attributed[limit] = struct {
		byLib map[string][]*vocabEntry
		libs  []string
	}{byLib, libs}
	return byLib, libs
}

// vocabLimit is the entries of each library the long tests take:
// COUNTERSIGN_LOO=1 a sample, COUNTERSIGN_LOO=full all of them.
func vocabLimit(t *testing.T) int {
	switch v := os.Getenv("COUNTERSIGN_LOO"); v {
	case "":
		t.Skip("set COUNTERSIGN_LOO=1 (120 entries a library) or COUNTERSIGN_LOO=full, with COUNTERSIGN_SHARED_CORPUS, to measure the vocabulary on the corpora")
	case "full":
		return 0
	case "1":
		return 120
	default:
		t.Fatalf("COUNTERSIGN_LOO=%q: want 1 or full", v)
	}
	return 0
}

// TestVocabulary writes testdata/vocabulary.txt, the table of the bugs:
// class, prior, learned weight, and the libraries that make each (with
// how many of their entries); with COUNTERSIGN_LOO=full it also writes
// learnedWeights (vocab_weights.go).
func TestVocabulary(t *testing.T) {
	limit := vocabLimit(t)
	byLib, libs := loadAttributed(t, limit)
	learned, _ := learn(byLib, "")
	var b strings.Builder
	fmt.Fprintf(&b, "# The search's bugs: class, prior and learned weight (per ten thousand), and the libraries that make each\n")
	fmt.Fprintf(&b, "# (entries whose bugs, as the search finds them with the priors alone, hold it). Generated by\n")
	fmt.Fprintf(&b, "# COUNTERSIGN_LOO=full COUNTERSIGN_SHARED_CORPUS=... go test ./oauth1/basestring -run 'TestVocabulary$'.\n")
	classNames := map[mistakeClass]string{classDefault: "default", classSkipped: "skipped", classAdded: "added", classInput: "input", classDeploy: "deploy"}
	for i := range bugCount {
		var who []string
		for _, l := range libs {
			n := 0
			for _, e := range byLib[l] {
				if e.found&(bug(1)<<i) != 0 {
					n++
				}
			}
			if n > 0 {
				who = append(who, fmt.Sprintf("%s (%d)", l, n))
			}
		}
		rfc := ""
		if fromRFC&(bug(1)<<i) != 0 {
			rfc = " rfc"
		}
		if len(who) == 0 {
			who = []string{"none"}
		}
		fmt.Fprintf(&b, "%-16s %-7s%s prior %3d learned %4d: %s\n", bugNames[i], classNames[bugClass[i]], rfc, classPrior[bugClass[i]], learned[i], strings.Join(who, ", "))
	}
	var found, n int
	for _, l := range libs {
		for _, e := range byLib[l] {
			n++
			if e.ok {
				found++
			}
		}
	}
	fmt.Fprintf(&b, "# %d libraries, %d entries, %d reproduced with the priors alone\n", len(libs), n, found)
	t.Log(b.String())
	if limit != 0 {
		return
	}
	if err := os.WriteFile("testdata/vocabulary.txt", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var g strings.Builder
	g.WriteString("// Code generated by TestVocabulary; DO NOT EDIT.\n\npackage basestring\n\n")
	g.WriteString("// learnedWeights is, per ten thousand, how often the wrong base strings\n// of the libraries of the corpora show each bug, in the bugs' order: the\n// share of them whose bugs, as the search finds them with the priors\n// alone, hold the bug (testdata/vocabulary.txt lists who makes which).\nvar learnedWeights = [bugCount]uint16{\n\t")
	for i := range bugCount {
		fmt.Fprintf(&g, "%d, ", learned[i])
	}
	g.WriteString("\n}\n")
	src, err := format.Source([]byte(g.String()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("vocab_weights.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLeaveOneOut measures, for each library L, the search on L's entries
// with the vocabulary and weights learned from every library (seen) and
// learned without L (unseen: a bug is in it only if another library makes
// it or it is in fromRFC), for both budgets; and reports the averages over
// the libraries. The target: unseen within 10 points of seen.
func TestLeaveOneOut(t *testing.T) {
	limit := vocabLimit(t)
	byLib, libs := loadAttributed(t, limit)
	all, made := learn(byLib, "")
	seenVocab := newVocabulary(made|fromRFC, all)
	type fig struct{ n, live, wide, liveU, wideU, falseClaims int }
	var sum fig
	var pcs [4]float64
	for _, l := range libs {
		w, m := learn(byLib, l)
		unseen := newVocabulary(m|fromRFC, w)
		var f fig
		for _, e := range byLib[l] {
			f.n++
			for _, c := range []struct {
				v    *vocabulary
				b    budget
				hits *int
			}{{seenVocab, liveBudget, &f.live}, {seenVocab, wideBudget, &f.wide}, {unseen, liveBudget, &f.liveU}, {unseen, wideBudget, &f.wideU}} {
				_, signed, ok, _ := reproduceWith(c.b, c.v, e.Want, e.sig, "HMAC-SHA1", e.key, e.sent)
				switch {
				case ok && signed == e.Got:
					*c.hits++
				case ok:
					f.falseClaims++
					t.Errorf("%s: false claim %q; the library hashed %q", l, signed, e.Got)
				}
			}
		}
		pc := func(k int) float64 { return 100 * float64(k) / float64(f.n) }
		var only []string
		for i := range bugCount {
			if b := bug(1) << i; made&b != 0 && m&b == 0 && fromRFC&b == 0 {
				only = append(only, bugNames[i])
			}
		}
		t.Logf("%-18s %4d  live seen %5.1f%% unseen %5.1f%%  wide seen %5.1f%% unseen %5.1f%%  its own bugs: %s", l, f.n, pc(f.live), pc(f.liveU), pc(f.wide), pc(f.wideU), strings.Join(only, " "))
		for i, k := range []int{f.live, f.liveU, f.wide, f.wideU} {
			pcs[i] += pc(k) / float64(len(libs))
		}
		sum.n, sum.live, sum.wide, sum.liveU, sum.wideU, sum.falseClaims = sum.n+f.n, sum.live+f.live, sum.wide+f.wide, sum.liveU+f.liveU, sum.wideU+f.wideU, sum.falseClaims+f.falseClaims
	}
	pc := func(k int) float64 { return 100 * float64(k) / float64(sum.n) }
	t.Logf("%d libraries, %d entries: live seen %.1f%% unseen %.1f%%, wide seen %.1f%% unseen %.1f%% (of the entries); averaged over the libraries: live %.1f%% / %.1f%%, wide %.1f%% / %.1f%%; %d false claims",
		len(libs), sum.n, pc(sum.live), pc(sum.liveU), pc(sum.wide), pc(sum.wideU), pcs[0], pcs[1], pcs[2], pcs[3], sum.falseClaims)
	// The target: on libraries it did not learn from, within 10
	// points of its figure on those it learned from, for both budgets.
	if pcs[0]-pcs[1] > 10 || pcs[2]-pcs[3] > 10 {
		t.Errorf("unseen more than 10 points under seen: live %.1f / %.1f, wide %.1f / %.1f", pcs[0], pcs[1], pcs[2], pcs[3])
	}
}
