package oauth1_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// The quirk settings (issue 26.2) are checked against signatures computed
// here with crypto/hmac over base strings built by hand, never by the code
// under test.

func sign256(key, base string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func sign1(key, base string) string {
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// WooCommerce's legacy REST API v1 and v2 key the HMAC with the consumer
// secret alone (hash_hmac(..., $keys['consumer_secret']) in
// includes/api/legacy/v2/class-wc-api-authentication.php; its Python
// client appends "&" only for other versions), over plain HTTP with the
// parameters in the query string.
func TestHMACConsumerSecretOnlyWooCommerceLegacy(t *testing.T) {
	cfg := &oauth1.Config{
		ConsumerKey: "ck_4f3a0c1d2e", ConsumerSecret: "cs_9b8a7c6d5e",
		Signer:   oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true},
		Delivery: oauth1.QueryString,
	}
	r, err := http.NewRequest("GET", "http://shop.example/wc-api/v2/products?page=2", nil)
	require.NoError(t, err)
	require.NoError(t, cfg.SignAt(r, nil, time.Unix(1700000000, 0), "nonce123"))

	base := "GET&http%3A%2F%2Fshop.example%2Fwc-api%2Fv2%2Fproducts&" +
		"oauth_consumer_key%3Dck_4f3a0c1d2e%26oauth_nonce%3Dnonce123%26oauth_signature_method%3DHMAC-SHA256" +
		"%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0%26page%3D2"
	got := r.URL.Query().Get("oauth_signature")
	assert.Equal(t, sign256("cs_9b8a7c6d5e", base), got, "key: the consumer secret alone")
	assert.NotEqual(t, sign256("cs_9b8a7c6d5e&", base), got, "the RFC's key, with the '&'")

	// HMAC.Sign, the Signer interface, agrees with Config's own path.
	sig, err := oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true}.Sign([]byte(base), "cs_9b8a7c6d5e", "")
	require.NoError(t, err)
	assert.Equal(t, got, sig)
	sig, err = oauth1.HMAC{ConsumerSecretOnly: true}.Sign([]byte(base), "cs 9b&", "")
	require.NoError(t, err)
	assert.Equal(t, sign1("cs%209b%26", base), sig, "the secret is percent-encoded, as §3.4.2 encodes it")

	// The default stays the RFC's key.
	r2, _ := http.NewRequest("GET", "http://shop.example/wc-api/v2/products?page=2", nil)
	cfg2 := *cfg
	cfg2.Signer = oauth1.HMAC{Hash: crypto.SHA256}
	require.NoError(t, cfg2.SignAt(r2, nil, time.Unix(1700000000, 0), "nonce123"))
	assert.Equal(t, sign256("cs_9b8a7c6d5e&", base), r2.URL.Query().Get("oauth_signature"))
}

// A token secret cannot be part of a key without the "&": refused, never
// signed with a key the provider does not use.
func TestHMACConsumerSecretOnlyRefusesToken(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Signer: oauth1.HMAC{ConsumerSecretOnly: true}}
	r, _ := http.NewRequest("GET", "http://shop.example/wc-api/v1/orders", nil)
	err := cfg.SignAt(r, &oauth1.Credentials{Token: "t", Secret: "token-secret"}, time.Unix(1, 0), "n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ConsumerSecretOnly")
	assert.NotContains(t, err.Error(), "token-secret")
	assert.Empty(t, r.Header.Get("Authorization"))
	_, err = oauth1.HMAC{ConsumerSecretOnly: true}.Sign([]byte("b"), "cs", "ts")
	assert.Error(t, err)
}

// Schoology's two-legged requests carry oauth_token="" and sign it.
func TestSendEmptyTokenSchoology(t *testing.T) {
	for _, tok := range []*oauth1.Credentials{nil, {}} {
		cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Realm: "Schoology API", SendEmptyToken: true}
		r, _ := http.NewRequest("GET", "https://api.schoology.com/v1/users/me", nil)
		require.NoError(t, cfg.SignAt(r, tok, time.Unix(1700000000, 0), "abc"))
		base := "GET&https%3A%2F%2Fapi.schoology.com%2Fv1%2Fusers%2Fme&oauth_consumer_key%3Dck%26oauth_nonce%3Dabc" +
			"%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_token%3D%26oauth_version%3D1.0"
		want := `OAuth realm="Schoology API", oauth_consumer_key="ck", oauth_nonce="abc", oauth_signature="` +
			strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(sign1("cs&", base)) +
			`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_token="", oauth_version="1.0"`
		assert.Equal(t, want, r.Header.Get("Authorization"))
		r2, _ := http.NewRequest("GET", "https://api.schoology.com/v1/users/me", nil)
		got, err := cfg.BaseString(r2, tok, time.Unix(1700000000, 0), "abc")
		require.NoError(t, err)
		assert.Equal(t, base, got)
	}
	// Off, the default: no oauth_token at all (§3.1).
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs"}
	r, _ := http.NewRequest("GET", "https://api.schoology.com/v1/users/me", nil)
	require.NoError(t, cfg.SignAt(r, nil, time.Unix(1700000000, 0), "abc"))
	assert.NotContains(t, r.Header.Get("Authorization"), "oauth_token")
	// A real token wins over the setting.
	cfg.SendEmptyToken = true
	r, _ = http.NewRequest("GET", "https://api.schoology.com/v1/users/me", nil)
	require.NoError(t, cfg.SignAt(r, &oauth1.Credentials{Token: "tk"}, time.Unix(1700000000, 0), "abc"))
	assert.Contains(t, r.Header.Get("Authorization"), `oauth_token="tk"`)
	assert.Equal(t, 1, strings.Count(r.Header.Get("Authorization"), "oauth_token="))
}

// E*TRADE's documentation shows realm="" at the head of the header; it is
// not signed, so the signature is the one without it.
func TestSendEmptyRealmETrade(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs", Callback: "oob", SendEmptyRealm: true}
	r, _ := http.NewRequest("GET", "https://api.etrade.com/oauth/request_token", nil)
	require.NoError(t, cfg.SignAt(r, nil, time.Unix(1700000000, 0), "abc", oauth1.Param{Name: "oauth_callback", Value: "oob"}))
	base := "GET&https%3A%2F%2Fapi.etrade.com%2Foauth%2Frequest_token&oauth_callback%3Doob%26oauth_consumer_key%3Dck" +
		"%26oauth_nonce%3Dabc%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_version%3D1.0"
	want := `OAuth realm="", oauth_callback="oob", oauth_consumer_key="ck", oauth_nonce="abc", oauth_signature="` +
		strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(sign1("cs&", base)) +
		`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_version="1.0"`
	assert.Equal(t, want, r.Header.Get("Authorization"))

	// A realm that is set is sent as it is; the default sends none.
	cfg.Realm = "x"
	r, _ = http.NewRequest("GET", "https://api.etrade.com/v1/accounts/list", nil)
	require.NoError(t, cfg.SignAt(r, nil, time.Unix(1700000000, 0), "abc"))
	assert.True(t, strings.HasPrefix(r.Header.Get("Authorization"), `OAuth realm="x", `))
	cfg.Realm, cfg.SendEmptyRealm = "", false
	r, _ = http.NewRequest("GET", "https://api.etrade.com/v1/accounts/list", nil)
	require.NoError(t, cfg.SignAt(r, nil, time.Unix(1700000000, 0), "abc"))
	assert.NotContains(t, r.Header.Get("Authorization"), "realm")
}
