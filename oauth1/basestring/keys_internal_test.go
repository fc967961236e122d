package basestring

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/percent"
)

// TestKeyMistakeBound checks mac.MaxKeyTries when every mistake applies and
// none matches: both secrets set, with whitespace and valid base64, and a
// token.
func TestKeyMistakeBound(t *testing.T) {
	k := Key{ConsumerKey: "ck", ConsumerSecret: "Y3M/\r\n", Token: "tk", TokenSecret: "dHM+\n"}
	base := "GET&https%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dck"
	for _, method := range []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512"} {
		m, ok, n := keyMistake(base, "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", method, k)
		if !ok || m.Kind != KeyUnknown {
			t.Errorf("%s: %v, %v; want unknown", method, m, ok)
		}
		if n != mac.MaxKeyTries {
			t.Errorf("%s: %d HMACs, want mac.MaxKeyTries = %d (every mistake applies)", method, n, mac.MaxKeyTries)
		}
	}
}

// TestKeyMistakeBoundAnyEncoding checks mac.MaxKeyTries for a signature of
// each HMAC length in each encoding clients send: each decodes to one
// length, so the keys are tried with one hash only.
func TestKeyMistakeBoundAnyEncoding(t *testing.T) {
	k := Key{ConsumerKey: "ck", ConsumerSecret: "Y3M/\r\n", Token: "tk", TokenSecret: "dHM+\n"}
	base := "GET&https%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dck"
	for _, size := range []int{20, 32, 64} {
		sum := make([]byte, size)
		for i := range sum {
			sum[i] = byte(i*37 + 251) // "+" and "/" in base64, letters in hex
		}
		sigs := []string{
			base64.StdEncoding.EncodeToString(sum), base64.RawStdEncoding.EncodeToString(sum),
			base64.URLEncoding.EncodeToString(sum), base64.RawURLEncoding.EncodeToString(sum),
			percent.Encode(base64.StdEncoding.EncodeToString(sum)), hex.EncodeToString(sum), strings.ToUpper(hex.EncodeToString(sum)),
		}
		for _, sig := range sigs {
			for _, method := range []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512"} {
				m, ok, n := keyMistake(base, sig, method, k)
				if !ok || m.Kind != KeyUnknown || n > mac.MaxKeyTries {
					t.Errorf("%s, %.12q (%d bytes): %v, %v after %d HMACs; want unknown after at most %d", method, sig, size, m, ok, n, mac.MaxKeyTries)
				}
			}
		}
	}
}

// TestKeyMistakeSameHMACsAnySecret checks that KeyMistake computes
// mac.MaxKeyTries HMACs whatever the form of the secrets (as issued,
// base64, hex, with whitespace, with bytes to encode, none) and whatever
// it finds, counted by mac.Diagnosed: the keys it tries depend on that
// form, and the time of a refusal must not tell it.
func TestKeyMistakeSameHMACsAnySecret(t *testing.T) {
	base := "GET&https%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dck%26oauth_token%3Dtk"
	secrets := [][2]string{
		{"plainconsumersecret", "plaintokensecret"},
		{"Y29uc3VtZXIgc2VjcmV0", "dG9rZW4gc2VjcmV0"}, // base64
		{"0123456789abcdef0123", "fedcba9876543210"}, // hex, which is base64 too
		{" consumer secret\n", "token secret "},
		{"a&b/c+d=e%f", "~!*'()"},
		{"consumer", ""},
		{"", ""},
	}
	forms := []func([]byte) string{base64.StdEncoding.EncodeToString, hex.EncodeToString}
	for _, size := range []int{20, 32} {
		for _, form := range forms {
			sig := form(make([]byte, size)) // no key makes it
			counts := map[int][]string{}
			for _, s := range secrets {
				k := Key{ConsumerKey: "ck", ConsumerSecret: s[0], Token: "tk", TokenSecret: s[1]}
				before := mac.Diagnosed.Load()
				m, _, _ := keyMistake(base, sig, "HMAC-SHA1", k)
				n := int(mac.Diagnosed.Load() - before)
				counts[n] = append(counts[n], strconv.Quote(s[0])+"/"+strconv.Quote(s[1]))
				if m.Kind != KeyUnknown {
					t.Errorf("%v: %v, want unknown", s, m)
				}
			}
			if len(counts) != 1 || counts[mac.MaxKeyTries] == nil {
				t.Errorf("signature of %d bytes %.8q: HMACs by secrets %v; want %d for every secret", size, sig, counts, mac.MaxKeyTries)
			}
		}
	}
	// A mistake found, or none, computes as many.
	k := Key{ConsumerKey: "ck", ConsumerSecret: "Y29uc3VtZXIgc2VjcmV0", Token: "tk", TokenSecret: "dG9rZW4gc2VjcmV0"}
	for _, key := range []string{signingKey(k.ConsumerSecret, k.TokenSecret), signingKey(k.ConsumerSecret, ""), signingKey(k.ConsumerSecret+"\n", "")} {
		before := mac.Diagnosed.Load()
		keyMistake(base, base64.StdEncoding.EncodeToString(hmacSHA1(key, base)), "HMAC-SHA1", k)
		if n := mac.Diagnosed.Load() - before; n != mac.MaxKeyTries {
			t.Errorf("signed with %q: %d HMACs, want %d", key, n, mac.MaxKeyTries)
		}
	}
}

func hmacSHA1(key, msg string) []byte {
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(msg))
	return m.Sum(nil)
}
