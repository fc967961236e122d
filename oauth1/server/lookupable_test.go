package server

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"hash"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// lookupableRef is the check in its plainest form: UTF-8, and no byte
// under 0x20 nor 0x7F.
func lookupableRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// TestLookupable compares lookupable, which reads eight bytes at a time,
// with the plain check, for every byte value at every offset of strings
// either side of a word, and for non-ASCII strings.
func TestLookupable(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 40} {
		for i := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("k", n))
				b[i] = byte(c)
				s := string(b)
				if got, want := lookupable(s), lookupableRef(s); got != want {
					t.Fatalf("lookupable(%q) = %v; want %v", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "clé", "clé\x00", "clé\x7f", "clé\xff", "\u00e9\u20ac\U0001F600 key", "key \uFFFD", "0123456789abcdé\x1f", "\xc3", "abcdefgh\xc3\xa9", "abcdefg\xc3\xa9\x0a"} {
		if got, want := lookupable(s), lookupableRef(s); got != want {
			t.Errorf("lookupable(%q) = %v; want %v", s, got, want)
		}
	}
}

func BenchmarkLookupable(b *testing.B) {
	key, token := "xvz1evFS4wEEPTGEFPHBog", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
	b.Run("impl=onepass", func(b *testing.B) {
		for b.Loop() {
			if !lookupable(key) || !lookupable(token) {
				b.Fatal()
			}
		}
	})
	b.Run("impl=twopass", func(b *testing.B) {
		for b.Loop() {
			if !lookupableRef(key) || !lookupableRef(token) {
				b.Fatal()
			}
		}
	})
}

// TestVerifyOneSignatureText checks that the signature is compared as
// the one base64 text of the MAC: the texts that decode to the same bytes
// (other bits where the padding leaves some over, a line break) are
// refused, as when the texts themselves were compared.
func TestVerifyOneSignatureText(t *testing.T) {
	for method, h := range map[string]func() hash.Hash{"HMAC-SHA1": sha1.New, "HMAC-SHA256": sha256.New, "HMAC-SHA512": sha512.New} {
		key := kmEncode("secret") + "&" + kmEncode("token-secret")
		hdr, _ := kmHeaderHash(t, method, h, "https://api.example/r", 1700000000, "n-"+method, key, nil)
		v := &Verifier{Store: &memCredentials{consumers: map[string]Registration{kmConsumerKey: {Secret: "secret"}},
			tokens: map[string]string{kmConsumerKey + " " + kmToken: "token-secret"}}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }}}
		verify := func(h string) error {
			r := httptest.NewRequest("GET", "https://api.example/r", nil)
			r.Header.Set("Authorization", h)
			_, err := v.Verify(r)
			return err
		}
		i := strings.Index(hdr, `oauth_signature="`) + len(`oauth_signature="`)
		j := i + strings.IndexByte(hdr[i:], '"')
		sig := hdr[i:j] // percent-encoded
		text, err := url.PathUnescape(sig)
		if err != nil {
			t.Fatal(err)
		}
		pad := strings.Count(text, "=")
		last := strings.IndexByte(base64Alphabet, text[len(text)-pad-1])
		for _, other := range []string{
			text[:len(text)-pad-1] + string(base64Alphabet[last^1]) + text[len(text)-pad:], // a padding bit set
		} {
			if a, b := mustDecode(t, text), mustDecode(t, other); string(a) != string(b) {
				t.Fatalf("%q and %q decode differently", text, other)
			}
			if err := verify(strings.Replace(hdr, sig, kmEncode(other), 1)); err == nil {
				t.Errorf("%s: the signature %q, not the MAC's base64 %q, was accepted", method, other, text)
			}
		}
		if err := verify(hdr); err != nil {
			t.Errorf("%s: the right signature: %v", method, err)
		}
	}
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
