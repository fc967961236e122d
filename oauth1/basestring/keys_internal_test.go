package basestring

import (
	"encoding/base64"
	"encoding/hex"
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
