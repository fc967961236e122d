package basestring

import "testing"

// TestKeyMistakeBound checks MaxKeyTries when every mistake applies and
// none matches: both secrets set, with whitespace and valid base64, and a
// token.
func TestKeyMistakeBound(t *testing.T) {
	k := Key{ConsumerKey: "ck", ConsumerSecret: "Y3M=\r\n", Token: "tk", TokenSecret: "dHM=\n"}
	base := "GET&https%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dck"
	for _, method := range []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512"} {
		m, ok, n := keyMistake(base, "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", method, k)
		if !ok || m.Kind != KeyUnknown {
			t.Errorf("%s: %v, %v; want unknown", method, m, ok)
		}
		if n != MaxKeyTries {
			t.Errorf("%s: %d HMACs, want MaxKeyTries = %d (every mistake applies)", method, n, MaxKeyTries)
		}
	}
}
