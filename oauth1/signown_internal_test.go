package oauth1

import (
	"crypto"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signOwnBoth signs two requests built alike, one through the fast path
// (when it applies) with f, and one the plain way only, and returns what
// each sent and signed: the header, the URL, the body and the base string,
// or the error. f holds what the fast path keeps from the last request it
// signed.
func signOwnBoth(t *testing.T, f *state, c *Config, tok *Credentials, method, url, ctype, body string, ts time.Time, nonce string) (fast, ref [5]string, took bool) {
	sign := func(s *state) (out [5]string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r, err := http.NewRequest(method, url, rd)
		if err != nil {
			t.Skip()
		}
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		if err := c.signInto(s, r, tok, ts, nonce, nil); err != nil {
			out[4] = err.Error()
			return out
		}
		out[0] = r.Header.Get("Authorization")
		out[1] = r.URL.String()
		if r.Body != nil {
			b, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			out[2] = string(b)
		}
		out[3] = string(s.Base)
		return out
	}
	f.Reset()
	fast = sign(f)
	return fast, sign(&state{ref: true}), f.fast
}

// The fast path signs the X API documentation's request as published.
func TestOwnSignsXExample(t *testing.T) {
	c := &Config{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}
	tok := &Credentials{Token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", Secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}
	fast, ref, took := signOwnBoth(t, new(state), c, tok, "POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
		"application/x-www-form-urlencoded", "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
		time.Unix(1318622958, 0), "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg")
	require.True(t, took, "the fast path did not apply")
	// Published in the X API documentation ("Authorizing a request").
	const want = `OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"`
	assert.Equal(t, want, fast[0])
	assert.Equal(t, ref, fast)
}

// A request that names an oauth_ parameter itself takes the plain way,
// which refuses a repeat and signs the rest.
func TestOwnLeavesOAuthNamesToReference(t *testing.T) {
	c := &Config{ConsumerKey: "k", ConsumerSecret: "s"}
	for _, url := range []string{"https://h/p?oauth_callback=oob", "https://h/p?oauth_nonce=x", "https://h/p?oauth%5Fsignature=x"} {
		fast, ref, took := signOwnBoth(t, new(state), c, nil, "GET", url, "", "", time.Unix(1, 0), "n")
		assert.False(t, took, url)
		assert.Equal(t, ref, fast, url)
	}
}

// fuzzState is the fast path's state, kept from one input to the next as a
// pooled state is from one request to the next.
var fuzzState state

func FuzzOwnMatchesReference(f *testing.F) {
	f.Add("xvz1evFS4wEEPTGEFPHBog", "370773112-GmHx", "kYjzVBB8Y0", "", uint16(0), "POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true", "status=Hello%20Ladies", int64(1318622958))
	f.Add("k y", "t&ok", "n=o+n%", "Photos \"x\"", uint16(0xffff), "get", "HTTP://Example.COM:80/a%20b/c?b=2&a=1&a=", "x=%41", int64(-5))
	f.Add("é", "", "", "", uint16(1<<3), "PUT", "https://h:443?oauth_=1&oauth=2&oauthz", "", int64(0))
	f.Add("k", "", "n", "r", uint16(1<<2|1<<4), "POST", "https://h/?q", "oauth_token=x", int64(1))
	f.Fuzz(func(t *testing.T, key, token, nonce, realm string, flags uint16, method, url, body string, unix int64) {
		c := &Config{
			ConsumerKey: key, ConsumerSecret: "cs&%", Realm: realm,
			OmitVersion:    flags&1 != 0,
			SendEmptyToken: flags&2 != 0,
			SendEmptyRealm: flags&4 != 0,
			Delivery:       Delivery(flags >> 3 & 3),
		}
		switch flags >> 5 & 7 {
		case 1:
			c.Signer = HMAC{Hash: crypto.SHA256}
		case 2:
			c.Signer = Plaintext{}
			c.AllowInsecurePlaintext = true
		case 3:
			c.BodyHash = crypto.SHA256
		}
		var tok *Credentials
		if flags&(1<<8) == 0 {
			tok = &Credentials{Token: token, Secret: "ts"}
		}
		ctype := ""
		if flags&(1<<9) == 0 {
			ctype = "application/x-www-form-urlencoded"
		}
		ts := time.Unix(unix, 0)
		if flags&(1<<10) != 0 {
			ts = time.Time{}
		}
		// Twice: the second time with what the first kept. fuzzState
		// carries it from input to input too.
		for range 2 {
			fast, ref, _ := signOwnBoth(t, &fuzzState, c, tok, method, url, ctype, body, ts, nonce)
			if fast != ref {
				t.Fatalf("fast path\n%q\nplain way\n%q", fast, ref)
			}
		}
	})
}

// One state signs request after request as a pooled one does, each
// differing from the last in one thing the fast path keeps: each must sign
// as the plain way does.
func TestOwnKeepsNothingStale(t *testing.T) {
	tok := &Credentials{Token: "t", Secret: "ts"}
	type req struct {
		c         *Config
		tok       *Credentials
		url, body string
	}
	c := &Config{ConsumerKey: "k", ConsumerSecret: "s"}
	seq := []req{
		{c, tok, "https://h/p?a=1", "b=2"},
		{c, tok, "https://h/p?a=1", "b=2"},
		{c, tok, "https://h/q?a=1", "b=2"},
		{c, tok, "https://H:443/q?a=1", "b=2"},
		{c, tok, "http://H:443/q?a=1", "b=2"},
		{c, tok, "http://H:443/q%2F?a=1", "b=2"},
		{c, tok, "http://H:443/q%2f?a=1", "b=2"},
		{c, nil, "http://H:443/q%2f?a=1", "b=2"},
		{&Config{ConsumerKey: "k", ConsumerSecret: "s", SendEmptyToken: true}, nil, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s"}, tok, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s", Realm: "r"}, tok, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s", SendEmptyRealm: true}, tok, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s", OmitVersion: true}, tok, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s", Signer: HMAC{Hash: crypto.SHA512}}, tok, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s"}, &Credentials{Token: "t 2", Secret: "x"}, "https://h/p", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s"}, &Credentials{Token: "t 2", Secret: "x"}, "https://h/p?oauth_x=1", ""},
		{&Config{ConsumerKey: "k2", ConsumerSecret: "s"}, &Credentials{Token: "t 2", Secret: "x"}, "https://h/p", ""},
	}
	var f state
	for i, q := range seq {
		fast, ref, _ := signOwnBoth(t, &f, q.c, q.tok, "POST", q.url, "application/x-www-form-urlencoded", q.body, time.Unix(int64(i), 0), "n"+strings.Repeat("+", i%2))
		require.Empty(t, ref[4], "request %d", i)
		assert.Equal(t, ref, fast, "request %d", i)
	}
}
