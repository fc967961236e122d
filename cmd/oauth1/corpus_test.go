package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
)

// This file builds a corpus of base strings that real OAuth 1.0 libraries
// sign wrongly, each beside the RFC 5849 base string of the same request,
// and checks that "oauth1 diff" names the cause of each difference.
//
// The RFC base string comes from a plain construction written here (split,
// decode, encode, sort, join), not from the library's engine; it is checked
// against the X API's published base string and against
// oauth1.Config.BaseString. Each library's wrong base string comes from
// the same construction with that library's bugs switched on, as its
// source or documentation shows them:
//
//   - PHP's PECL oauth keeps the last value of a repeated name (PHP arrays),
//     handles values as C strings (cut at a NUL byte), and takes its
//     parameters from PHP's parser, which turns " " and "." in names into "_".
//   - Ruby's oauth gem sorts the parameters before encoding them
//     (OAuth::Helper.normalize: params.sort, values.sort).
//   - Perl's Net::OAuth keeps the first value of a repeated name
//     (URI::QueryParam in scalar context), encodes byte strings with
//     uri_escape_utf8 (each byte taken for a Latin-1 character), and sorts
//     the joined "name=value" strings (sort(@pairs)).
//   - npm oauth-1.0a splits the URL at every "?" and each pair at every "=",
//     decodes values with decodeURIComponent ("+" stays "+"), encodes names
//     without decoding them, lets a query value replace a body value of the
//     same name (mergeObject), and keeps the URL's host and port as given
//     (getBaseUrl: url.split('?')[0]). It throws on bytes that are not UTF-8,
//     so requests with such bytes are left out.
//   - dghubble/oauth1 keeps the first value of a repeated name, parses with
//     url.ParseQuery (which drops pairs holding ";"), and drops :80 and :443
//     whatever the scheme.
//   - mrjones/oauth builds the base string URI from URL.Scheme, URL.Host
//     and the decoded URL.Path, and parses with URL.Query.
//
// Hand-written signers, the last three sources, make base strings that are
// themselves malformed: names not encoded, pairs without "=", a parameter
// string not encoded as a whole.

// bugs are the switches of the construction; the zero value builds the
// RFC 5849 base string.
type bugs struct {
	keep        string // "first" or "last": one value per name
	queryWins   bool   // a name in the query replaces the body's
	latin1      bool   // decoded bytes taken for Latin-1 and encoded as UTF-8
	nulCut      bool   // values end at a NUL byte
	eqCut       bool   // values end at the next "="
	qCut        bool   // the query ends at the next "?"
	plusLiteral bool   // "+" is not decoded as a space
	rawNames    bool   // names are encoded without being decoded first
	phpNames    bool   // " " and "." in names become "_"
	hostAsIs    bool   // host case and any port kept
	anyPort     bool   // :80 and :443 dropped whatever the scheme
	decodedPath bool   // the path is decoded
	semicolon   bool   // pairs holding ";" are dropped
	sortRaw     bool   // sorted by decoded name and value
	sortJoined  bool   // sorted by encoded "name=value"

	// Hand-written signers.
	unencodedNames bool // names not encoded
	noEquals       bool // empty values signed as "name", without "="
	notReencoded   bool // the parameter string not encoded as a whole
}

type library struct {
	name string
	bugs bugs
	// skip reports requests the library cannot sign.
	skip func(r *request) bool
}

var libraries = []library{
	{"PECL oauth", bugs{keep: "last", nulCut: true, phpNames: true}, func(r *request) bool {
		return strings.Contains(r.query+r.body, "%5B") || strings.Contains(r.query+r.body, "[") // PHP arrays
	}},
	{"Ruby oauth gem", bugs{sortRaw: true}, nil},
	{"Perl Net::OAuth", bugs{keep: "first", latin1: true, sortJoined: true}, nil},
	{"npm oauth-1.0a", bugs{eqCut: true, qCut: true, plusLiteral: true, rawNames: true, queryWins: true, hostAsIs: true}, func(r *request) bool {
		for _, raw := range []string{r.query, r.body} {
			for _, kv := range strings.Split(raw, "&") {
				if !utf8.ValidString(formDecode(kv, false)) {
					return true // decodeURIComponent throws
				}
			}
		}
		return false
	}},
	{"dghubble/oauth1", bugs{keep: "first", anyPort: true, semicolon: true}, nil},
	{"mrjones/oauth", bugs{hostAsIs: true, decodedPath: true, semicolon: true}, nil},
	{"hand-written: names not encoded", bugs{unencodedNames: true}, nil},
	{"hand-written: pairs without =", bugs{noEquals: true}, nil},
	{"hand-written: not re-encoded", bugs{notReencoded: true}, nil},
}

// A request as it is on the wire; query and body are raw.
type request struct {
	method, scheme, host, port, path string
	query, body                      string // body is form-encoded, or empty
	protocol                         [][2]string
}

// enc is RFC 3986 percent-encoding as RFC 5849 §3.6 requires it.
func enc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// formDecode decodes a query or form component ("+" is a space unless
// plusLiteral). The corpus holds only well-formed escapes.
func formDecode(s string, plusLiteral bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+' && !plusLiteral:
			b.WriteByte(' ')
		case s[i] == '%' && i+2 < len(s):
			n, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(n))
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func latin1(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// build returns the base string of r as a signer with bugs b computes it.
func build(r *request, b bugs) string {
	host := r.host
	port := r.port
	if !b.hostAsIs {
		host = strings.ToLower(host)
		switch {
		case b.anyPort && (port == "80" || port == "443"):
			port = ""
		case r.scheme == "http" && port == "80", r.scheme == "https" && port == "443":
			port = ""
		}
	}
	if port != "" {
		host += ":" + port
	}
	path := r.path
	if b.decodedPath {
		path = formDecode(path, true)
	}
	if path == "" {
		path = "/"
	}
	uri := r.scheme + "://" + host + path

	type param struct {
		name, value string
		fromQuery   bool
	}
	var ps []param
	query := r.query
	if b.qCut {
		query, _, _ = strings.Cut(query, "?")
	}
	for i, raw := range []string{query, r.body} {
		if raw == "" {
			continue
		}
		for _, kv := range strings.Split(raw, "&") {
			if b.semicolon && strings.Contains(kv, ";") {
				continue
			}
			n, v, _ := strings.Cut(kv, "=")
			if b.eqCut {
				v, _, _ = strings.Cut(v, "=")
			}
			p := param{formDecode(n, b.plusLiteral), formDecode(v, b.plusLiteral), i == 0}
			if b.rawNames {
				p.name = n
			}
			if b.nulCut {
				p.value, _, _ = strings.Cut(p.value, "\x00")
			}
			if b.latin1 {
				p.name, p.value = latin1(p.name), latin1(p.value)
			}
			if b.phpNames {
				p.name = strings.NewReplacer(" ", "_", ".", "_").Replace(p.name)
			}
			ps = append(ps, p)
		}
	}
	if b.queryWins {
		inQuery := map[string]bool{}
		for _, p := range ps {
			if p.fromQuery {
				inQuery[p.name] = true
			}
		}
		ps = slices.DeleteFunc(ps, func(p param) bool { return !p.fromQuery && inQuery[p.name] })
	}
	if b.keep != "" {
		seen := map[string]int{}
		var kept []param
		for _, p := range ps {
			if i, ok := seen[p.name]; ok {
				if b.keep == "last" {
					kept[i] = p
				}
				continue
			}
			seen[p.name] = len(kept)
			kept = append(kept, p)
		}
		ps = kept
	}
	for _, p := range r.protocol {
		ps = append(ps, param{name: p[0], value: p[1]})
	}
	type pair struct{ name, value, rawName, rawValue string }
	pairs := make([]pair, len(ps))
	for i, p := range ps {
		pairs[i] = pair{enc(p.name), enc(p.value), p.name, p.value}
		if b.unencodedNames {
			pairs[i].name = p.name
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool {
		a, c := pairs[i], pairs[j]
		switch {
		case b.sortRaw:
			return a.rawName < c.rawName || a.rawName == c.rawName && a.rawValue < c.rawValue
		case b.sortJoined:
			return a.name+"="+a.value < c.name+"="+c.value
		}
		return a.name < c.name || a.name == c.name && a.value < c.value
	})
	var joined []string
	for _, p := range pairs {
		if b.noEquals && p.value == "" {
			joined = append(joined, p.name)
		} else {
			joined = append(joined, p.name+"="+p.value)
		}
	}
	ps2 := strings.Join(joined, "&")
	if !b.notReencoded {
		ps2 = enc(ps2)
	}
	return enc(strings.ToUpper(r.method)) + "&" + enc(uri) + "&" + ps2
}

// TestCorpusReference checks the plain construction against the X API's
// published base string and against oauth1.Config.BaseString.
func TestCorpusReference(t *testing.T) {
	x := &request{method: "POST", scheme: "https", host: "api.twitter.com", path: "/1.1/statuses/update.json",
		query: "include_entities=true", body: xBody, protocol: [][2]string{
			{"oauth_consumer_key", xKey}, {"oauth_nonce", xNonce}, {"oauth_signature_method", "HMAC-SHA1"},
			{"oauth_timestamp", xTimestamp}, {"oauth_token", xToken}, {"oauth_version", "1.0"}}}
	if got := build(x, bugs{}); got != xBase {
		t.Fatalf("build(X request) =\n%s\nwant the published\n%s", got, xBase)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		r := randomRequest(rng)
		want := build(r, bugs{})
		hr, err := http.NewRequest(r.method, r.url(), strings.NewReader(r.body))
		if err != nil {
			t.Fatalf("%s: %v", r.url(), err)
		}
		if r.body != "" {
			hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		cfg := &oauth1.Config{ConsumerKey: "key"}
		ts, _ := strconv.ParseInt(r.protocol[3][1], 10, 64)
		var tok *oauth1.Credentials
		if len(r.protocol) > 5 {
			tok = &oauth1.Credentials{Token: r.protocol[4][1]}
		}
		got, err := cfg.BaseString(hr, tok, time.Unix(ts, 0), r.protocol[1][1])
		if err != nil {
			t.Fatalf("BaseString(%s): %v", r.url(), err)
		}
		if got != want {
			t.Fatalf("request %s body %q:\nConfig.BaseString = %s\nplain construction = %s", r.url(), r.body, got, want)
		}
	}
}

func (r *request) url() string {
	u := r.scheme + "://" + r.host
	if r.port != "" {
		u += ":" + r.port
	}
	u += r.path
	if r.query != "" {
		u += "?" + r.query
	}
	return u
}

// Wire forms of names and values, chosen for what breaks libraries.
var (
	names = []string{"q", "page", "page2", "count", "id", "id2", "tag", "tag.name", "filter%5Bstatus%5D", "filter[a]", "filterA",
		"a+b", "a%20b", "per_page", "since_id", "x-y", "name", "M%C3%BCnchen", "sort", "fields", "status", "lang", "x"}
	values = []string{"1", "42", "true", "hello+world", "hello%20world", "M%C3%BCller", "caf%C3%A9", "%E6%97%A5%E6%9C%AC", "%FF",
		"%E9t%E9", "a%09b%0Ac%00d", "x%00y", "b%3Dc", "x=y", "b?c", "10:00", "100", "a,b", "~tilde", "50%25", "", "z",
		"a+b%2Bc", "%7E", "2024-01-01T00%3A00%3A00Z", "Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
		"Stra%C3%9Fe", "%C3%A9", "e"}
	hosts = []string{"api.example.com", "api.example.com", "API.Example.com", "photos.example.net", "Api.Example.COM"}
	paths = []string{"/", "", "/1.1/statuses/update.json", "/v2/users/42", "/a%20b/c", "/files/a%2Fb", "/caf%C3%A9", "/photos"}
)

func randomRequest(rng *rand.Rand) *request {
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	r := &request{method: pick([]string{"GET", "GET", "POST", "PUT", "DELETE"}), scheme: pick([]string{"https", "https", "http"}),
		host: pick(hosts), path: pick(paths)}
	switch rng.IntN(10) {
	case 0:
		r.port = map[string]string{"http": "80", "https": "443"}[r.scheme]
	case 1:
		r.port = map[string]string{"http": "443", "https": "80"}[r.scheme]
	case 2:
		r.port = "8080"
	}
	pairs := func(n int) string {
		var kv []string
		for range n {
			name := pick(names)
			kv = append(kv, name+"="+pick(values))
			if rng.IntN(5) == 0 {
				kv = append(kv, name+"="+pick(values)) // a repeated name
			}
			if rng.IntN(12) == 0 {
				kv = append(kv, "a=1;b=2")
			}
		}
		return strings.Join(kv, "&")
	}
	r.query = pairs(rng.IntN(4))
	if (r.method == "POST" || r.method == "PUT") && rng.IntN(5) < 3 {
		r.body = pairs(1 + rng.IntN(3))
		if r.query != "" && rng.IntN(8) == 0 {
			name, _, _ := strings.Cut(r.query, "=")
			r.body += "&" + name + "=" + pick(values) // a name in both the query and the body
		}
	}
	nonce := make([]byte, 16)
	for i := range nonce {
		nonce[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[rng.IntN(62)]
	}
	r.protocol = [][2]string{{"oauth_consumer_key", "key"}, {"oauth_nonce", string(nonce)}, {"oauth_signature_method", "HMAC-SHA1"},
		{"oauth_timestamp", strconv.Itoa(1_300_000_000 + rng.IntN(400_000_000))}}
	if rng.IntN(2) == 0 {
		r.protocol = append(r.protocol, [2]string{"oauth_token", "tok-" + strconv.Itoa(rng.IntN(1000))})
	}
	r.protocol = append(r.protocol, [2]string{"oauth_version", "1.0"})
	return r
}

// A label is one bug that made a pair differ, and how to recognise the
// right explanation of it among the differences.
type label struct {
	name  string
	off   func(bugs) bugs // the bugs without this one
	found func(basestring.Difference) bool
}

func kind(k basestring.Kind, phrase string) func(basestring.Difference) bool {
	return func(d basestring.Difference) bool { return d.Kind == k && strings.Contains(d.Cause, phrase) }
}

var labels = []label{
	{"one value of a repeated name", func(b bugs) bugs { b.keep = ""; return b }, kind(basestring.RepeatedName, "kept one value")},
	{"one value of a name in query and body", func(b bugs) bugs { b.queryWins = false; return b }, kind(basestring.RepeatedName, "kept one value")},
	{"UTF-8 read as Latin-1", func(b bugs) bugs { b.latin1 = false; return b }, kind(basestring.Charset, "Latin-1")},
	{"cut at a NUL", func(b bugs) bugs { b.nulCut = false; return b }, kind(basestring.Truncated, "C string")},
	{`cut at "="`, func(b bugs) bugs { b.eqCut = false; return b }, kind(basestring.Truncated, `every "="`)},
	{`cut at "?"`, func(b bugs) bugs { b.qCut = false; return b }, func(d basestring.Difference) bool {
		return (d.Kind == basestring.Truncated || d.Kind == basestring.MissingParam) && strings.Contains(d.Cause, `every "?"`)
	}},
	{`literal "+"`, func(b bugs) bugs { b.plusLiteral = false; return b }, kind(basestring.PlusForSpace, `literal "+"`)},
	{"names not decoded", func(b bugs) bugs { b.rawNames = false; return b }, func(d basestring.Difference) bool {
		return d.Name != "" && (d.Kind == basestring.DoubleEncoded || d.Kind == basestring.PlusForSpace)
	}},
	{"PHP names", func(b bugs) bugs { b.phpNames = false; return b }, kind(basestring.Renamed, "PHP")},
	{"host as given", func(b bugs) bugs { b.hostAsIs = false; return b }, func(d basestring.Difference) bool {
		return d.Kind == basestring.SchemeHostCase || d.Kind == basestring.DefaultPort
	}},
	{"any port dropped", func(b bugs) bugs { b.anyPort = false; return b }, kind(basestring.DefaultPort, "not the default port")},
	{"decoded path", func(b bugs) bugs { b.decodedPath = false; return b }, kind(basestring.PathEncoding, "decoded path")},
	{"semicolon", func(b bugs) bugs { b.semicolon = false; return b }, kind(basestring.MissingParam, "semicolon")},
	{"sorted before encoding", func(b bugs) bugs { b.sortRaw = false; return b }, kind(basestring.SortOrder, "before encoding")},
	{"sorted joined pairs", func(b bugs) bugs { b.sortJoined = false; return b }, kind(basestring.SortOrder, `joined "name=value"`)},
	{"names not encoded", func(b bugs) bugs { b.unencodedNames = false; return b }, func(d basestring.Difference) bool {
		return d.Kind == basestring.Syntax && strings.Contains(d.Cause, "did not encode the name") ||
			d.Kind == basestring.Unencoded && d.Name != "" && strings.Contains(d.Cause, "the name")
	}},
	{`pair without "="`, func(b bugs) bugs { b.noEquals = false; return b }, kind(basestring.Syntax, `without "="`)},
	{"parameter string not encoded", func(b bugs) bugs { b.notReencoded = false; return b }, kind(basestring.Syntax, "did not encode the whole string again")},
}

// generic are the causes that name no specific bug: a pair explained with
// one of them has sent its user the wrong way.
var generic = []string{
	"was the request changed after signing?",
	"If it is in the request body, did the client send Content-Type",
	"Was the body sent with a Content-Type other than",
	"a proxy in between?",
	"the client signed one URL and sent another",
}

// TestCorpus checks that Diff names a specific, correct cause for the
// pairs of the corpus, and that "oauth1 diff" exits 1 on every one.
func TestCorpus(t *testing.T) {
	const perLibrary = 120
	rng := rand.New(rand.NewPCG(5849, 3986))
	total, right := 0, 0
	for _, lib := range libraries {
		n, ok := 0, 0
		for tries := 0; n < perLibrary && tries < 100*perLibrary; tries++ {
			r := randomRequest(rng)
			if strings.HasPrefix(lib.name, "hand-written") {
				addHandWritten(rng, r)
			}
			if lib.skip != nil && lib.skip(r) {
				continue
			}
			want, got := build(r, bugs{}), build(r, lib.bugs)
			if want == got {
				continue
			}
			n++
			if c := runCmd(t, nil, "", "diff", want, got); c.code != exitFailure {
				t.Errorf("%s: oauth1 diff exit %d, want 1\nwant %s\ngot  %s\n%s%s", lib.name, c.code, want, got, c.stdout, c.stderr)
			}
			ds := basestring.Diff(want, got)
			if problem := explained(r, lib.bugs, ds); problem != "" {
				if testing.Verbose() {
					t.Logf("%s: %s\nwant %s\ngot  %s\n%s", lib.name, problem, want, got, basestring.Format(ds))
				}
				continue
			}
			ok++
		}
		t.Logf("%-34s %3d/%3d pairs with a specific, correct cause (%.1f%%)", lib.name, ok, n, 100*float64(ok)/float64(n))
		if n < perLibrary/2 {
			t.Errorf("%s: only %d pairs differ", lib.name, n)
		}
		total += n
		right += ok
	}
	rate := 100 * float64(right) / float64(total)
	t.Logf("all: %d/%d pairs with a specific, correct cause (%.1f%%)", right, total, rate)
	if rate < 95 {
		t.Errorf("a specific, correct cause for %.1f%% of %d pairs, want at least 95%%", rate, total)
	}
}

// addHandWritten adds the names and empty values that hand-written signers
// get wrong.
func addHandWritten(rng *rand.Rand, r *request) {
	extra := []string{"a%20b=1", "a%3Ab=2", "100%25=3", "flag=", "empty="}
	n := 1 + rng.IntN(2)
	for range n {
		kv := extra[rng.IntN(len(extra))]
		if r.query != "" {
			r.query += "&"
		}
		r.query += kv
	}
}

// explained returns "" when ds names a specific, correct cause for each
// of the bugs in all that changes r's base string (without it the base
// string would differ from what all the bugs make), no generic cause, and
// no cause of a bug the client does not have; else what is wrong.
func explained(r *request, all bugs, ds []basestring.Difference) string {
	for _, d := range ds {
		for _, g := range generic {
			if strings.Contains(d.Cause, g) {
				return "generic cause: " + d.Kind.String() + " " + d.Name
			}
		}
	}
	got := build(r, all)
	var has []label
	for _, l := range labels {
		off := l.off(all)
		if off == all {
			continue
		}
		has = append(has, l)
		if build(r, off) != got && !slices.ContainsFunc(ds, l.found) {
			return "no cause for " + l.name
		}
	}
	// Every difference explains one of the client's bugs: a cause that
	// names a bug the client does not have is a wrong cause too.
	for _, d := range ds {
		if !slices.ContainsFunc(has, func(l label) bool { return l.found(d) }) {
			return "a cause for no bug of the client: " + d.Kind.String() + " " + d.Name
		}
	}
	return ""
}
