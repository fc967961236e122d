package main

import (
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// Each provider quirk (issue 26.4) has a refused example whose output
// names it, in oauth1 diff and in oauth1 verify, and a look-alike that
// names none.

const quirkAt = 1700000000

// rawRequest signs a request with cfg and returns it as a proxy logs it.
func rawRequest(t *testing.T, cfg *oauth1.Config, method, rawURL string, tok *oauth1.Credentials, extra ...oauth1.Param) string {
	t.Helper()
	r, err := http.NewRequest(method, rawURL, nil)
	require.NoError(t, err)
	require.NoError(t, cfg.SignAt(r, tok, time.Unix(quirkAt, 0), "n0nce", extra...))
	raw := method + " " + r.URL.RequestURI() + " HTTP/1.1\nHost: " + r.URL.Host + "\n"
	if a := r.Header.Get("Authorization"); a != "" {
		raw += "Authorization: " + a + "\n"
	}
	return raw + "\n"
}

func verifyOut(t *testing.T, raw string, args ...string) output {
	t.Helper()
	return runCmd(t, nil, raw, append([]string{"verify", "--any-time", "--consumer-secret", "cs"}, args...)...)
}

func TestVerifyQuirkWooCommerceKey(t *testing.T) {
	legacy := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Delivery: oauth1.QueryString,
		Signer: oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true}}
	rfc := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Delivery: oauth1.QueryString,
		Signer: oauth1.HMAC{Hash: crypto.SHA256}}

	// The legacy key sent to the current API: refused, and named.
	out := verifyOut(t, rawRequest(t, legacy, "GET", "http://shop.example/wp-json/wc/v3/products", nil), "--scheme", "http")
	assert.Equal(t, exitFailure, out.code, out.stdout)
	assert.Contains(t, out.stdout, "Known quirk (WooCommerce, woocommerce-legacy-key): the client keyed the HMAC with the consumer secret alone")

	// The RFC's key sent to the legacy v2 API: valid by the RFC, refused by
	// WooCommerce, and named.
	out = verifyOut(t, rawRequest(t, rfc, "GET", "http://shop.example/wc-api/v2/products", nil), "--scheme", "http")
	assert.Equal(t, exitOK, out.code, out.stdout)
	assert.Contains(t, out.stdout, "Known quirk (WooCommerce, woocommerce-legacy-key): WooCommerce's legacy REST API v1 and v2")

	// The RFC's key to the current API: nothing to name.
	out = verifyOut(t, rawRequest(t, rfc, "GET", "http://shop.example/wp-json/wc/v3/products", nil), "--scheme", "http")
	assert.Equal(t, exitOK, out.code)
	assert.NotContains(t, out.stdout, "Known quirk")
}

// TestVerifyQuirkWooCommerceKeyHex checks that the legacy key is named
// when it is not the first mistake: a signature sent in hex is
// signature-encoding first, consumer-secret-only second.
func TestVerifyQuirkWooCommerceKeyHex(t *testing.T) {
	legacy := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Delivery: oauth1.QueryString,
		Signer: oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true}}
	raw := rawRequest(t, legacy, "GET", "http://shop.example/wp-json/wc/v3/products", nil)
	// Re-encode the signature the Config made in hex, as a client that
	// sends the digest in hex does.
	line, rest, _ := strings.Cut(raw, "\n")
	target := strings.Fields(line)[1]
	u, err := url.Parse(target)
	require.NoError(t, err)
	q := u.Query()
	sum, err := base64.StdEncoding.DecodeString(q.Get("oauth_signature"))
	require.NoError(t, err)
	q.Set("oauth_signature", hex.EncodeToString(sum))
	u.RawQuery = q.Encode()
	raw = "GET " + u.RequestURI() + " HTTP/1.1\n" + rest

	out := verifyOut(t, raw, "--scheme", "http")
	assert.Equal(t, exitFailure, out.code, out.stdout)
	assert.Contains(t, out.stdout, "signature-encoding, consumer-secret-only", "the key check names both")
	assert.Contains(t, out.stdout, "Known quirk (WooCommerce, woocommerce-legacy-key): the client keyed the HMAC with the consumer secret alone")
}

func TestVerifyQuirkNetSuiteRealm(t *testing.T) {
	const u = "https://1234567-sb1.suitetalk.api.netsuite.com/services/rest/record/v1/customer"
	tok := &oauth1.Credentials{Token: "tk", Secret: "ts"}
	for _, realm := range []string{"1234567-sb1", "1234567_sb1", ""} {
		cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Signer: oauth1.HMAC{Hash: crypto.SHA256}, Realm: realm}
		out := verifyOut(t, rawRequest(t, cfg, "GET", u, tok), "--token-secret", "ts")
		assert.Equal(t, exitOK, out.code, "the realm is not signed: the signature is valid")
		assert.Contains(t, out.stdout, `Known quirk (NetSuite, netsuite-realm):`, realm)
		assert.Contains(t, out.stdout, `realm="1234567_SB1"`, realm)
	}
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Signer: oauth1.HMAC{Hash: crypto.SHA256}, Realm: "1234567_SB1"}
	out := verifyOut(t, rawRequest(t, cfg, "GET", u, tok), "--token-secret", "ts")
	assert.Equal(t, exitOK, out.code)
	assert.NotContains(t, out.stdout, "Known quirk")
}

// NetSuite's request token step signs role: a role sent in the header but
// left out of the signature is refused, and named.
func TestVerifyQuirkNetSuiteRole(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Signer: oauth1.HMAC{Hash: crypto.SHA256}, Realm: "1234567"}
	raw := rawRequest(t, cfg, "POST", "https://1234567.restlets.api.netsuite.com/rest/requesttoken", nil)
	raw = strings.Replace(raw, "\n\n", `, role="3"`+"\n\n", 1) // sent, not signed
	out := verifyOut(t, raw)
	assert.Equal(t, exitFailure, out.code, out.stdout)
	assert.Contains(t, out.stdout, "Known quirk (NetSuite, netsuite-role): the client sent role without signing it")

	cfg.Params = []oauth1.Param{{Name: "role", Value: "3"}} // sent and signed
	cfg.Realm = ""                                          // optional for the token steps since 2020.1
	out = verifyOut(t, rawRequest(t, cfg, "POST", "https://1234567.restlets.api.netsuite.com/rest/requesttoken", nil))
	assert.Equal(t, exitOK, out.code, out.stdout)
	assert.NotContains(t, out.stdout, "Known quirk")
}

// A client that signs realm: its base string and signature are built by
// hand here, since no Config signs realm.
func TestVerifyQuirkRealmSigned(t *testing.T) {
	base := "GET&https%3A%2F%2Fapi.example.com%2Fr&oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce" +
		"%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0%26realm%3DPhotos"
	m := hmac.New(sha1.New, []byte("cs&"))
	m.Write([]byte(base))
	sig := url.QueryEscape(base64.StdEncoding.EncodeToString(m.Sum(nil)))
	raw := "GET /r HTTP/1.1\nHost: api.example.com\nAuthorization: OAuth realm=\"Photos\", oauth_consumer_key=\"ck\", oauth_nonce=\"n0nce\", " +
		"oauth_signature=\"" + sig + "\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1700000000\", oauth_version=\"1.0\"\n\n"
	out := verifyOut(t, raw)
	assert.Equal(t, exitFailure, out.code, out.stdout)
	assert.Contains(t, out.stdout, `Known quirk (some providers, realm-signed): the signature is valid for the base string with realm="Photos" added`)
}

// diffBase builds a base string by hand from its URI and encoded pairs.
func diffBase(uri string, pairs ...string) string {
	return "GET&" + url.QueryEscape(uri) + "&" + strings.NewReplacer("=", "%3D", "&", "%26", "%", "%25").Replace(strings.Join(pairs, "&"))
}

func TestDiffQuirks(t *testing.T) {
	const rt = "https://1234567.restlets.api.netsuite.com/rest/requesttoken"
	common := []string{"oauth_consumer_key=ck", "oauth_nonce=n"}
	for _, tc := range []struct {
		name, want, got string
		code            int
		quirk           string // "" for none
	}{
		{"role not signed", diffBase(rt, append(common, "role=3")...), diffBase(rt, common...), exitFailure, "(NetSuite, netsuite-role): the client sent role without signing it"},
		{"role signed, not sent", diffBase(rt, common...), diffBase(rt, append(common, "role=3")...), exitFailure, "(NetSuite, netsuite-role): the client signed a role"},
		{"role elsewhere", diffBase("https://api.example.com/r", append(common, "role=3")...), diffBase("https://api.example.com/r", common...), exitFailure, ""},
		{"realm signed by the client", diffBase(rt, common...), diffBase(rt, append(common, "realm=1234567")...), exitFailure, "(some providers, realm-signed): the client signed realm"},
		{"realm signed by the provider", diffBase(rt, append(common, "realm=1234567")...), diffBase(rt, common...), exitFailure, "(some providers, realm-signed): the provider signs realm"},
		{"NetSuite realm case", diffBase(rt, append(common, "realm=1234567_SB1")...), diffBase(rt, append(common, "realm=1234567-sb1")...), exitFailure, "(NetSuite, netsuite-realm): the realms differ in case"},
		{"NetSuite, equal", diffBase("https://1234567-sb1.suitetalk.api.netsuite.com/x", common...), diffBase("https://1234567-sb1.suitetalk.api.netsuite.com/x", common...), exitOK, `(NetSuite, netsuite-realm): NetSuite refuses a request whose realm is not the account id in uppercase with "_": for this host the Authorization header must carry realm="1234567_SB1"`},
		{"WooCommerce legacy, equal", diffBase("http://shop.example/wc-api/v2/products", common...), diffBase("http://shop.example/wc-api/v2/products", common...), exitOK, "(WooCommerce, woocommerce-legacy-key): WooCommerce's legacy REST API v1 and v2"},
		{"WooCommerce current, equal", diffBase("http://shop.example/wp-json/wc/v3/products", common...), diffBase("http://shop.example/wp-json/wc/v3/products", common...), exitOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runCmd(t, nil, "", "diff", tc.want, tc.got)
			assert.Equal(t, tc.code, out.code, out.stdout+out.stderr)
			if tc.quirk == "" {
				assert.NotContains(t, out.stdout, "Known quirk")
			} else {
				assert.Contains(t, out.stdout, "Known quirk "+tc.quirk)
			}
		})
	}
}

// The hand-built base strings above are the ones a Config signs: checked
// once, so that the diff tests compare realistic input.
func TestDiffBaseHandBuilt(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", OmitVersion: true, Signer: oauth1.HMAC{Hash: crypto.SHA256}}
	r, _ := http.NewRequest("GET", "http://shop.example/wc-api/v2/products", nil)
	got, err := cfg.BaseString(r, nil, time.Unix(quirkAt, 0), "n")
	require.NoError(t, err)
	assert.Equal(t, diffBase("http://shop.example/wc-api/v2/products", "oauth_consumer_key=ck", "oauth_nonce=n",
		"oauth_signature_method=HMAC-SHA256", "oauth_timestamp=1700000000"), got)
}
