package basestring

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The X API's published example (developer.x.com, "Creating a
// signature"): its request, secrets, base string and signature.
const (
	rxBase = "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
	rxSig  = "hCtSmYh+iHYCEqBWrE7C7hYmtUk="
	// rxStatus is the status value as the base string holds it.
	rxStatus = "Hello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
	rxNonce  = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
)

var (
	rxKey  = Key{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", Token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", TokenSecret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}
	rxSent = Request{Query: "include_entities=true", Form: "status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21", Host: "api.twitter.com"}
)

// Two requests of our own, with their base strings computed by hand:
// GET https://api.example.com/r?c=z&c=%C3%A9&empty=&x=a;b, and
// GET http://example.com:8080/p%20q?p=a/b&s=x%20y, each with the
// protocol parameters rqOAuth.
const (
	rqOAuth = "oauth_consumer_key%3Dk%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_version%3D1.0"
	rqBase1 = "GET&https%3A%2F%2Fapi.example.com%2Fr&c%3D%25C3%25A9%26c%3Dz%26empty%3D%26" + rqOAuth + "%26x%3Da%253Bb"
	rqBase2 = "GET&http%3A%2F%2Fexample.com%3A8080%2Fp%2520q&" + rqOAuth + "%26p%3Da%252Fb%26s%3Dx%2520y"
)

// A third, with a query and a form body, computed by hand too:
// POST https://api.example.com//x/y?a=1&b=2%21&t=&t=x&t=&q=a+b with the body
// a=3&f=c+d; and GET https://api.example.com//double.
const (
	rqBase3 = "POST&https%3A%2F%2Fapi.example.com%2F%2Fx%2Fy&a%3D1%26a%3D3%26b%3D2%2521%26f%3Dc%2520d%26" + rqOAuth + "%26q%3Da%2520b%26t%3D%26t%3D%26t%3Dx"
	rqBase4 = "GET&https%3A%2F%2Fapi.example.com%2F%2Fdouble&" + rqOAuth
)

var (
	rqSent3 = Request{Query: "a=1&b=2%21&t=&t=x&t=&q=a+b", Form: "a=3&f=c+d", Host: "api.example.com"}
	rqSent1 = Request{Query: "c=z&c=%C3%A9&empty=&x=a;b", Host: "api.example.com"}
	rqSent2 = Request{Query: "p=a/b&s=x%20y", Host: "example.com:8080"}
	rqKey   = Key{ConsumerKey: "k", ConsumerSecret: "consumer secret/+", TokenSecret: ""}
)

// rsign signs base with HMAC h under key's secrets, as §3.4.2 joins them,
// computed here with crypto/hmac.
func rsign(h func() hash.Hash, key Key, base string) []byte {
	m := hmac.New(h, []byte(vectors.Encode(key.ConsumerSecret)+"&"+vectors.Encode(key.TokenSecret)))
	m.Write([]byte(base))
	return m.Sum(nil)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// The helper computes the published signature of the X example.
func TestReproduceSigner(t *testing.T) {
	require.Equal(t, rxSig, b64(rsign(sha1.New, rxKey, rxBase)))
}

var reproduceCases = []struct {
	name   string
	base   string
	key    Key
	sent   Request
	signed string   // what the client signed, computed by hand from base
	causes []string // what the cause must say
}{
	{"spaces as +", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, rxStatus, "Hello%2BLadies%2B%252B%2BGentlemen%252C%2Ba%2Bsigned%2BOAuth%2Brequest%2521", 1),
		[]string{`encodes spaces as "+"`}},
	{"form body left out", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, "%26status%3D"+rxStatus, "", 1),
		[]string{"leaves the form body's parameters out"}},
	{"query kept in the URI", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, "update.json&", "update.json%3Finclude_entities%3Dtrue&", 1),
		[]string{"keeps the query in the base string URI;"}},
	{"query only in the URI", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, "update.json&include_entities%3Dtrue%26", "update.json%3Finclude_entities%3Dtrue&", 1),
		[]string{"does not sign its parameters"}},
	{"default port kept", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, "api.twitter.com%2F", "api.twitter.com%3A443%2F", 1),
		[]string{"keeps the default port"}},
	{"http for https", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, "POST&https%3A", "POST&http%3A", 1),
		[]string{"another scheme"}},
	{"host case as sent", rxBase, rxKey, Request{Query: rxSent.Query, Form: rxSent.Form, Host: "API.Twitter.com"},
		strings.Replace(rxBase, "api.twitter.com", "API.Twitter.com", 1),
		[]string{"host as it is sent"}},
	{"realm signed", rxBase, rxKey, Request{Query: rxSent.Query, Form: rxSent.Form, Host: rxSent.Host, Realm: "Twitter API"},
		strings.Replace(rxBase, "%26status", "%26realm%3DTwitter%2520API%26status", 1),
		[]string{"signs realm"}},
	{"empty oauth_signature signed", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, rxNonce+"%26", rxNonce+"%26oauth_signature%3D%26", 1),
		[]string{"signs an empty oauth_signature"}},
	{"values encoded twice", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, rxStatus, "Hello%252520Ladies%252520%25252B%252520Gentlemen%25252C%252520a%252520signed%252520OAuth%252520request%252521", 1),
		[]string{"encodes values twice"}},
	{"form body signed as sent", rxBase, rxKey, rxSent,
		strings.Replace(rxBase, rxStatus, "Hello%252520Ladies%252520%25252b%252520Gentlemen%25252c%252520a%252520signed%252520OAuth%252520request%252521", 1),
		[]string{"signs the form body's values as they are sent"}},
	{"lowercase hex", rxBase, rxKey, rxSent,
		strings.NewReplacer("%3D", "%3d", "%2F", "%2f", "%3A", "%3a", "%252B", "%252b", "%252C", "%252c").Replace(rxBase),
		[]string{"lowercase hex"}},
	{"sorted before encoding", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "c%3D%25C3%25A9%26c%3Dz", "c%3Dz%26c%3D%25C3%25A9", 1),
		[]string{"sorts the parameters before encoding"}},
	{"first value kept", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "c%3D%25C3%25A9%26", "", 1),
		[]string{"only the first value"}},
	{"last value kept", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "%26c%3Dz", "", 1),
		[]string{"only the last value"}},
	{"empty value dropped", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "empty%3D%26", "", 1),
		[]string{"drops parameters whose value is empty"}},
	{"pair with ; dropped", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "%26x%3Da%253Bb", "", 1),
		[]string{`drops the pairs that hold a ";"`}},
	{"value cut at ;", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "x%3Da%253Bb", "x%3Da", 1),
		[]string{`cuts values at a ";"`}},
	{"; as a separator", rqBase1, rqKey, rqSent1,
		strings.Replace(strings.Replace(rqBase1, "x%3Da%253Bb", "x%3Da", 1), "&c%3D", "&b%3D%26c%3D", 1),
		[]string{`splits the query or body at ";"`}},
	{"UTF-8 read as Latin-1", rqBase1, rqKey, rqSent1,
		strings.Replace(rqBase1, "c%3D%25C3%25A9", "c%3D%25C3%2583%25C2%25A9", 1),
		[]string{"Latin-1"}},
	{"value cut at an encoded #", strings.Replace(rqBase1, "x%3Da%253Bb", "x%3Da%2523b", 1), rqKey, Request{Query: "c=z&c=%C3%A9&empty=&x=a%23b", Host: "api.example.com"},
		strings.Replace(rqBase1, "x%3Da%253Bb", "x%3Da", 1),
		[]string{`cuts the query at a "#"`}},
	{`"/" left unencoded`, rqBase2, rqKey, rqSent2,
		"GET&http%3A//example.com%3A8080/p%2520q&" + rqOAuth + "%26p%3Da/b%26s%3Dx%2520y",
		[]string{`leaves "/" unencoded`}},
	{"path decoded", rqBase2, rqKey, rqSent2,
		strings.Replace(rqBase2, "%2Fp%2520q", "%2Fp%20q", 1),
		[]string{"path decoded"}},
	{"form value replaces the query's", rqBase3, rqKey, rqSent3,
		strings.Replace(rqBase3, "a%3D1%26a%3D3", "a%3D3", 1),
		[]string{"lets a form body value replace the query's values"}},
	{"form value replaces the query's, first value kept", strings.Replace(rqBase3, "a%3D1%26a%3D3", "a%3D0%26a%3D1%26a%3D3", 1), rqKey,
		Request{Query: "a=1&b=2%21&t=&t=x&t=&q=a+b", Form: "a=3&a=0&f=c+d", Host: "api.example.com"},
		strings.Replace(strings.Replace(rqBase3, "a%3D1%26a%3D3", "a%3D3", 1), "%26t%3D%26t%3D%26t%3Dx", "%26t%3D", 1),
		[]string{"lets a form body value replace the query's values", "keeps only the first value", "2 bugs"}},
	{"empty value replaced by the next", rqBase3, rqKey, rqSent3,
		strings.Replace(rqBase3, "%26t%3D%26t%3D%26t%3Dx", "%26t%3D%26t%3Dx", 1),
		[]string{"takes an empty value for no value"}},
	{`"//" path read as a host`, rqBase3, rqKey, rqSent3,
		strings.Replace(rqBase3, "api.example.com%2F%2Fx%2Fy", "api.example.com%2Fy", 1),
		[]string{`reads a path that starts with "//" as a host`}},
	{`"//" path read as a host, no path left`, rqBase4, rqKey, Request{Host: "api.example.com"},
		strings.Replace(rqBase4, "api.example.com%2F%2Fdouble", "api.example.com%2F", 1),
		[]string{`reads a path that starts with "//" as a host`}},
	{`"+" not decoded in the query only`, rqBase3, rqKey, rqSent3,
		strings.Replace(rqBase3, "q%3Da%2520b", "q%3Da%252Bb", 1),
		[]string{`does not decode "+"`, "in the query only", "2 bugs"}},
	{"spaces as + and lowercase hex", rqBase2, rqKey, rqSent2,
		"GET&http%3a%2f%2fexample.com%3a8080%2fp%2520q&" + strings.ReplaceAll(rqOAuth, "%3D", "%3d") + "%26p%3da%252fb%26s%3dx%2by",
		[]string{`encodes spaces as "+"`, "lowercase hex", "2 bugs"}},
}

// TestReproduce checks that Reproduce, and ReproduceWide, rebuild from the
// signature alone the base string each bug makes (computed by hand from
// the provider's) and name the bug, within their HMAC budgets. The sets of
// bugs that the six libraries of the shared corpus make rarely or never
// (wideOnly) are tried only by ReproduceWide.
func TestReproduce(t *testing.T) {
	wideOnly := map[string]bool{"spaces as + and lowercase hex": true, `"+" not decoded in the query only`: true,
		"form value replaces the query's, first value kept": true}
	for _, tt := range reproduceCases {
		for _, b := range []budget{liveBudget, wideBudget} {
			if wideOnly[tt.name] && b == liveBudget {
				continue
			}
			t.Run(tt.name+"/"+strconv.Itoa(b.hmacs), func(t *testing.T) {
				testReproduceCase(t, tt.base, tt.signed, tt.key, tt.sent, tt.causes, b)
			})
		}
	}
}

func testReproduceCase(t *testing.T, base, want string, key Key, sent Request, causes []string, b budget) {
	t.Helper()
	require.NotEqual(t, base, want)
	sig := b64(rsign(sha1.New, key, want))
	m, signed, ok, n := reproduceWithin(b, base, sig, "HMAC-SHA1", key, sent)
	require.True(t, ok, "found nothing in %d HMACs", n)
	assert.Equal(t, want, signed)
	assert.Equal(t, BaseStringDiffers, m.Kind)
	assert.Empty(t, m.Also)
	for _, c := range causes {
		assert.Contains(t, m.Cause, c)
	}
	assert.LessOrEqual(t, n, b.hmacs)
	assert.NotContains(t, m.Cause, key.ConsumerSecret)
}

// TestReproduceSignatureForms checks that a variant's signature sent in
// another encoding, or made with another HMAC hash, is named with the
// KeyMistake kinds for it.
func TestReproduceSignatureForms(t *testing.T) {
	tt := reproduceCases[0]
	m, signed, ok := Reproduce(tt.base, hex.EncodeToString(rsign(sha1.New, tt.key, tt.signed)), "HMAC-SHA1", tt.key, tt.sent)
	require.True(t, ok)
	assert.Equal(t, tt.signed, signed)
	assert.Equal(t, []MistakeKind{SignatureEncoding}, m.Also)
	assert.Contains(t, m.Cause, "hex")

	m, signed, ok = Reproduce(tt.base, b64(rsign(sha256.New, tt.key, tt.signed)), "HMAC-SHA1", tt.key, tt.sent)
	require.True(t, ok)
	assert.Equal(t, tt.signed, signed)
	assert.Equal(t, []MistakeKind{WrongHMACHash}, m.Also)
	assert.Contains(t, m.Cause, "HMAC-SHA256")
}

// TestReproduceNothing is the negative table: when no variant reproduces
// the signature, Reproduce claims nothing.
func TestReproduceNothing(t *testing.T) {
	other := strings.Replace(rxBase, rxNonce, "another-nonce", 1)
	wrongKey := Key{ConsumerSecret: "another secret", TokenSecret: rxKey.TokenSecret}
	cases := []struct {
		name, base, sig, method string
		sent                    Request
	}{
		{"the right signature", rxBase, rxSig, "HMAC-SHA1", rxSent},
		{"another key", rxBase, b64(rsign(sha1.New, wrongKey, rxBase)), "HMAC-SHA1", rxSent},
		{"a variant signed with another key", rxBase, b64(rsign(sha1.New, wrongKey, reproduceCases[0].signed)), "HMAC-SHA1", rxSent},
		{"another request", rxBase, b64(rsign(sha1.New, rxKey, other)), "HMAC-SHA1", rxSent},
		{"another request's variant", rxBase, b64(rsign(sha1.New, rxKey, strings.Replace(reproduceCases[0].signed, rxNonce, "x", 1))), "HMAC-SHA1", rxSent},
		{"a request of another query", rxBase, b64(rsign(sha1.New, rxKey, other)), "HMAC-SHA1", Request{Query: "a=1&b=2", Form: "c=3"}},
		{"empty signature", rxBase, "", "HMAC-SHA1", rxSent},
		{"not base64", rxBase, "not base64 !!", "HMAC-SHA1", rxSent},
		{"long signature", rxBase, strings.Repeat("A", 4096), "HMAC-SHA1", rxSent},
		{"RSA-SHA1", rxBase, rxSig, "RSA-SHA1", rxSent},
		{"PLAINTEXT", rxBase, rxSig, "PLAINTEXT", rxSent},
		{"unknown method", rxBase, rxSig, "HMAC-MD5", rxSent},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m, signed, ok, n := reproduce(tt.base, tt.sig, tt.method, rxKey, tt.sent)
			assert.False(t, ok)
			assert.Zero(t, m)
			assert.Empty(t, signed)
			assert.LessOrEqual(t, n, maxReproduceTries)
		})
	}
}

// TestReproduceBound checks the HMAC budget on a request that many bugs
// change and none reproduces: Reproduce stops at maxReproduceTries.
func TestReproduceBound(t *testing.T) {
	sent := Request{Query: "a=1&a=2&b=x%20y!*~/&c=&d=%C3%A9;e&f=1%232&n.m=v%3Dw=u&q=r?s&z=%00y&%6B=1+2",
		Form: "g=h+i&j=k&a=3", Host: "Example.COM:80", Realm: "r"}
	// The provider's base string, built without a bug.
	r0 := &rebuild{method: "POST", scheme: "https", host: "example.com:80", path: "/p%20q", query: sent.Query, form: sent.Form,
		other: []piece{{name: "oauth_consumer_key", value: "k"}, {name: "oauth_nonce", value: "n"}}}
	base, ok := r0.build(0)
	require.True(t, ok)
	b, err := Parse(base)
	require.NoError(t, err)
	r, ok := newRebuild(b, base, sent)
	require.True(t, ok)
	require.True(t, r.fromRequest, "the query and form do not account for the base string's parameters")
	distinct := map[string]bool{base: true}
	for i := range bugCount {
		for j := i; j < bugCount; j++ {
			if s, ok := r.build(bug(1)<<i | bug(1)<<j); ok {
				distinct[s] = true
			}
		}
	}
	require.Greater(t, len(distinct)-1, maxReproduceTries, "the request changes too few variants to reach the bound")
	m, _, found, n := reproduce(base, b64(rsign(sha1.New, rqKey, "another base string")), "HMAC-SHA1", rqKey, sent)
	assert.False(t, found, "%v", m)
	assert.Equal(t, maxReproduceTries, n)
}

// TestReproduceHostileSizes checks that a base string or request over
// maxReproduceBytes is refused before anything is parsed or signed.
func TestReproduceHostileSizes(t *testing.T) {
	big := "GET&https%3A%2F%2Fexample.com%2F&" + strings.Repeat("a%3D%26", maxReproduceBytes/6)
	sig := b64(rsign(sha1.New, rqKey, big))
	cases := []struct {
		name string
		base string
		sent Request
	}{
		{"base string", big, Request{}},
		{"query", rqBase2, Request{Query: strings.Repeat("a", maxReproduceBytes+1)}},
		{"form", rqBase2, Request{Form: strings.Repeat("a=&", maxReproduceBytes/3+1)}},
		{"host and realm", rqBase2, Request{Host: strings.Repeat("h", maxReproduceBytes/2+1), Realm: strings.Repeat("r", maxReproduceBytes/2+1)}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			allocs := testing.AllocsPerRun(10, func() {
				_, _, ok, n := reproduce(tt.base, sig, "HMAC-SHA1", rqKey, tt.sent)
				if ok || n != 0 {
					t.Errorf("reproduce = %v after %d HMACs, want false after none", ok, n)
				}
			})
			assert.Zero(t, allocs)
		})
	}
	// Just under the bound, the budget still holds.
	under := "GET&https%3A%2F%2Fexample.com%2F&" + strings.Repeat("a%3D%2520%26", (maxReproduceBytes-60)/12) + "b%3D"
	require.LessOrEqual(t, len(under), maxReproduceBytes)
	_, _, _, n := reproduce(under, b64(rsign(sha1.New, rqKey, "x")), "HMAC-SHA1", rqKey, Request{})
	assert.LessOrEqual(t, n, maxReproduceTries)
}

// TestReproduceFIPS140Only checks that in FIPS 140-only mode, where
// crypto/hmac panics on SHA-1 and on short keys, Reproduce claims nothing
// for them instead of panicking, and still works with HMAC-SHA256 and a
// long key. The mode is fixed at start-up: the checks run in a child.
func TestReproduceFIPS140Only(t *testing.T) {
	long := Key{ConsumerSecret: "a consumer secret long enough for FIPS", TokenSecret: "and a token secret"}
	short := Key{ConsumerSecret: "short"}
	tt := reproduceCases[0]
	if runtime.GOARCH == "wasm" {
		t.Skip("starts a child process, which js/wasm and wasip1 cannot")
	}
	if os.Getenv("COUNTERSIGN_FIPS_CHILD") == "1" {
		sig := os.Getenv("COUNTERSIGN_FIPS_SIG1")
		_, _, ok := Reproduce(tt.base, sig, "HMAC-SHA1", long, tt.sent)
		assert.False(t, ok, "SHA-1")
		_, _, ok = Reproduce(tt.base, os.Getenv("COUNTERSIGN_FIPS_SIG2"), "HMAC-SHA256", short, tt.sent)
		assert.False(t, ok, "short key")
		m, signed, ok := Reproduce(tt.base, os.Getenv("COUNTERSIGN_FIPS_SIG3"), "HMAC-SHA256", long, tt.sent)
		assert.True(t, ok, "SHA-256")
		assert.Equal(t, tt.signed, signed)
		assert.Contains(t, m.Cause, `"+"`)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReproduceFIPS140Only$", "-test.v")
	cmd.Env = append(os.Environ(), "COUNTERSIGN_FIPS_CHILD=1", "GODEBUG=fips140=only",
		"COUNTERSIGN_FIPS_SIG1="+b64(rsign(sha1.New, long, tt.signed)),
		"COUNTERSIGN_FIPS_SIG2="+b64(rsign(sha256.New, short, tt.signed)),
		"COUNTERSIGN_FIPS_SIG3="+b64(rsign(sha256.New, long, tt.signed)))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "PASS")
}

// FuzzReproduce checks that Reproduce never panics and that every base
// string it claims signs, with crypto/hmac, to the signature it was given.
// Half the signatures come from a variant, so that claims happen.
func FuzzReproduce(f *testing.F) {
	for _, tt := range reproduceCases {
		f.Add(tt.base, tt.sent.Query, tt.sent.Form, tt.sent.Host, tt.sent.Realm, uint64(1), "")
	}
	f.Add(rqBase1, rqSent1.Query, "", "", "", uint64(1<<40|1<<3), "")
	f.Add("GET&x&y", "", "", "", "", uint64(0), "AAAA")
	f.Fuzz(func(t *testing.T, base, query, form, host, realm string, bits uint64, sig string) {
		sent := Request{Query: query, Form: form, Host: host, Realm: realm}
		if sig == "" {
			b, err := Parse(base)
			if err != nil {
				return
			}
			r, ok := newRebuild(b, base, sent)
			if !ok {
				return
			}
			v, ok := r.build(bug(bits) & (1<<bugCount - 1))
			if !ok {
				return
			}
			sig = b64(rsign(sha1.New, rqKey, v))
		}
		m, signed, ok, cost := reproduceCounted(liveBudget, base, sig, "HMAC-SHA1", rqKey, sent)
		if cost.hmacs > maxReproduceTries || cost.work > cost.limit {
			t.Fatalf("%d HMACs, work %d of %d", cost.hmacs, cost.work, cost.limit)
		}
		if !ok {
			if signed != "" || m.Kind != "" {
				t.Fatalf("no claim, but %q and %v", signed, m)
			}
			return
		}
		if m.Kind == KeyUnchecked {
			if signed != "" || isBaseString(base) || !strings.Contains(m.Cause, "out of order") {
				t.Fatalf("arguments reported out of order, but %q and %v", signed, m)
			}
			return
		}
		if !signs(rqKey, signed, sig) {
			t.Fatalf("claimed %q, whose HMAC is not the signature %s", signed, sig)
		}
		if m.Kind != BaseStringDiffers || signed == base {
			t.Fatalf("claim %v of %q", m, signed)
		}
	})
}

// signs reports whether sig is an HMAC of base under key's secrets, with
// SHA-1, SHA-256 or SHA-512, in one of the encodings clients send.
func signs(key Key, base, sig string) bool {
	for _, h := range []func() hash.Hash{sha1.New, sha256.New, sha512.New} {
		sum := rsign(h, key, base)
		for _, s := range []string{base64.StdEncoding.EncodeToString(sum), base64.RawStdEncoding.EncodeToString(sum),
			base64.URLEncoding.EncodeToString(sum), base64.RawURLEncoding.EncodeToString(sum),
			hex.EncodeToString(sum), strings.ToUpper(hex.EncodeToString(sum)), url.QueryEscape(base64.StdEncoding.EncodeToString(sum))} {
			if s == sig {
				return true
			}
		}
	}
	return false
}

// BenchmarkReproduce reports the HMACs Reproduce computes: per call on the
// cases of TestReproduce, and the most for one call, against the budget.
func BenchmarkReproduce(b *testing.B) {
	sigs := make([]string, len(reproduceCases))
	for i, tt := range reproduceCases {
		sigs[i] = b64(rsign(sha1.New, tt.key, tt.signed))
	}
	total, most, calls, found := 0, 0, 0, 0
	for b.Loop() {
		for i, tt := range reproduceCases {
			_, _, ok, n := reproduce(tt.base, sigs[i], "HMAC-SHA1", tt.key, tt.sent)
			total, most, calls = total+n, max(most, n), calls+1
			if ok {
				found++
			}
		}
	}
	b.ReportMetric(float64(total)/float64(calls), "HMACs/call")
	b.ReportMetric(float64(most), "HMACs-max")
	b.ReportMetric(maxReproduceTries, "HMACs-budget")
	b.ReportMetric(100*float64(found)/float64(calls), "%reproduced")
}

// BenchmarkReproduceLargest is the most one call costs: a base string just
// under maxReproduceBytes, whose query many bugs change, and no variant
// that matches.
func BenchmarkReproduceLargest(b *testing.B) {
	q := strings.Repeat("a=%20%C3%A9;%23&", maxReproduceBytes/16)[:maxReproduceBytes/2-200]
	q = q[:strings.LastIndexByte(q, '&')]
	r0 := &rebuild{method: "POST", scheme: "https", host: "example.com:80", path: "/p%20q", query: q,
		other: []piece{{name: "oauth_consumer_key", value: "k"}}}
	base, _ := r0.build(0)
	if len(base) > maxReproduceBytes {
		b.Fatalf("base string of %d bytes", len(base))
	}
	sent := Request{Query: q, Host: "Example.COM:80", Realm: "r"}
	sig := b64(rsign(sha1.New, rqKey, "x"))
	n := 0
	for b.Loop() {
		_, _, _, n = reproduce(base, sig, "HMAC-SHA1", rqKey, sent)
	}
	b.ReportMetric(float64(n), "HMACs/call")
	b.ReportMetric(float64(len(base)), "base-bytes")
}
