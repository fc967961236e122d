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
// (when it applies) and one the plain way only, and returns what each
// sent and signed: the header, the URL, the body and the base string, or
// the error.
func signOwnBoth(t *testing.T, c *Config, tok *Credentials, method, url, ctype, body string, ts time.Time, nonce string) (fast, ref [5]string, took bool) {
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
	var f state
	fast = sign(&f)
	return fast, sign(&state{ref: true}), f.fast
}

// The fast path signs the X API documentation's request as published.
func TestOwnSignsXExample(t *testing.T) {
	c := &Config{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}
	tok := &Credentials{Token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", Secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}
	fast, ref, took := signOwnBoth(t, c, tok, "POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
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
		fast, ref, took := signOwnBoth(t, c, nil, "GET", url, "", "", time.Unix(1, 0), "n")
		assert.False(t, took, url)
		assert.Equal(t, ref, fast, url)
	}
}

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
		fast, ref, _ := signOwnBoth(t, c, tok, method, url, ctype, body, ts, nonce)
		if fast != ref {
			t.Fatalf("fast path\n%q\nplain way\n%q", fast, ref)
		}
	})
}
