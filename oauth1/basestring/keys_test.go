package basestring_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"hash"
	"os"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/basestring"
)

// The tests compute each client's wrong signature here, with crypto/hmac,
// encoding/base64 and the percent-encoding below, not with the code under
// test.

// enc is RFC 5849 §3.6 percent-encoding, written out: every byte but
// ALPHA, DIGIT, "-", ".", "_" and "~" as %XX with uppercase hex.
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

func mac(h func() hash.Hash, key, base string) []byte {
	m := hmac.New(h, []byte(key))
	m.Write([]byte(base))
	return m.Sum(nil)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// sha1Sig is an HMAC-SHA1 signature as a right client sends it.
func sha1Sig(key, base string) string { return b64(mac(sha1.New, key, base)) }

const (
	kBase = "POST&https%3A%2F%2Fapi.example.com%2F1%2Fitems&oauth_consumer_key%3DckIdent9%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3DtokIdent7%26oauth_version%3D1.0"
	// Secrets with characters that percent-encoding changes, so that the
	// encoding mistakes make other keys; none is a substring of another.
	kCS    = "Cq7/cs+Secret=Zt9"
	kTS    = "Tw3 ts&Secret!Hk2"
	kCK    = "ckIdent9"
	kToken = "tokIdent7"
)

var kKey = basestring.Key{ConsumerKey: kCK, ConsumerSecret: kCS, Token: kToken, TokenSecret: kTS}

func TestKeyMistakeKinds(t *testing.T) {
	right := enc(kCS) + "&" + enc(kTS)
	rightMAC := mac(sha1.New, right, kBase)
	// A base string whose right signature has "+" or "/", which URL-safe
	// base64 changes.
	urlBase := kBase
	for i := 0; strings.Trim(sha1Sig(right, urlBase), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789=") == ""; i++ {
		urlBase = strings.Replace(kBase, "oauth_nonce%3Dn", fmt.Sprintf("oauth_nonce%%3Dn%d", i), 1)
	}
	urlMAC := mac(sha1.New, right, urlBase)
	// A secret that is valid base64, for the base64 mistakes.
	raw := "raw\x01bytes\xfe"
	b64Key := kKey
	b64Key.ConsumerSecret = base64.StdEncoding.EncodeToString([]byte(raw))
	// The provider stored the token secret with a newline.
	nlKey := kKey
	nlKey.TokenSecret = kTS + "\n"
	tests := []struct {
		name   string
		key    basestring.Key
		method string
		sig    string // the signature the client sent
		want   basestring.MistakeKind
		cause  string // a part of the Cause
	}{
		{"empty token secret", kKey, "HMAC-SHA1", sha1Sig(enc(kCS)+"&", kBase), basestring.EmptyTokenSecret, "empty token secret"},
		{"consumer secret only", kKey, "HMAC-SHA1", sha1Sig(enc(kCS), kBase), basestring.ConsumerSecretOnly, "consumer secret alone"},
		{"consumer secret only, no token", basestring.Key{ConsumerKey: kCK, ConsumerSecret: kCS}, "HMAC-SHA1", sha1Sig(enc(kCS), kBase), basestring.ConsumerSecretOnly, "alone"},
		{"swapped", kKey, "HMAC-SHA1", sha1Sig(enc(kTS)+"&"+enc(kCS), kBase), basestring.SwappedSecrets, "swapped"},
		{"not encoded", kKey, "HMAC-SHA1", sha1Sig(kCS+"&"+kTS, kBase), basestring.SecretNotEncoded, "without percent-encoding"},
		{"encoded twice", kKey, "HMAC-SHA1", sha1Sig(enc(enc(kCS))+"&"+enc(enc(kTS)), kBase), basestring.SecretEncodedTwice, "twice"},
		{"token secret with a newline", kKey, "HMAC-SHA1", sha1Sig(enc(kCS)+"&"+enc(kTS+"\n"), kBase), basestring.SecretWhitespace, "token secret ends with a newline"},
		{"consumer secret with a space", kKey, "HMAC-SHA1", sha1Sig(enc(kCS+" ")+"&"+enc(kTS), kBase), basestring.SecretWhitespace, "consumer secret ends with a space"},
		{"consumer secret with CR LF", kKey, "HMAC-SHA1", sha1Sig(enc(kCS+"\r\n")+"&"+enc(kTS), kBase), basestring.SecretWhitespace, "CR LF"},
		{"both with newlines", kKey, "HMAC-SHA1", sha1Sig(enc(kCS+"\n")+"&"+enc(kTS+"\n"), kBase), basestring.SecretWhitespace, "both"},
		{"provider's secret has a newline", nlKey, "HMAC-SHA1", sha1Sig(right, kBase), basestring.SecretWhitespace, "the provider holds"},
		{"consumer key as secret", kKey, "HMAC-SHA1", sha1Sig(enc(kCK)+"&"+enc(kTS), kBase), basestring.ConsumerKeyAsSecret, "consumer key in place"},
		{"token as secret", kKey, "HMAC-SHA1", sha1Sig(enc(kCS)+"&"+enc(kToken), kBase), basestring.TokenAsSecret, "token in place"},
		{"SHA-256 for HMAC-SHA1", kKey, "HMAC-SHA1", b64(mac(sha256.New, right, kBase)), basestring.WrongHMACHash, "HMAC-SHA256"},
		{"SHA-512 for HMAC-SHA1", kKey, "HMAC-SHA1", b64(mac(sha512.New, right, kBase)), basestring.WrongHMACHash, "HMAC-SHA512"},
		{"SHA-1 for HMAC-SHA256", kKey, "HMAC-SHA256", sha1Sig(right, kBase), basestring.WrongHMACHash, "HMAC-SHA1 and declared HMAC-SHA256"},
		{"base64-decoded secret", b64Key, "HMAC-SHA1", sha1Sig(enc(raw)+"&"+enc(kTS), kBase), basestring.Base64Secret, "consumer secret base64-decoded"},
		{"base64-decoded secret, bytes not encoded", b64Key, "HMAC-SHA1", sha1Sig(raw+"&"+enc(kTS), kBase), basestring.Base64Secret, "without percent-encoding them"},
		{"base64-encoded secret", kKey, "HMAC-SHA1", sha1Sig(enc(kCS)+"&"+enc(base64.StdEncoding.EncodeToString([]byte(kTS))), kBase), basestring.Base64Secret, "token secret base64-encoded"},
		{"signature encoded twice", kKey, "HMAC-SHA1", enc(b64(rightMAC)), basestring.SignatureEncoding, "percent-encoded twice"},
		{"URL-safe signature", kKey, "HMAC-SHA1", base64.URLEncoding.EncodeToString(urlMAC), basestring.SignatureEncoding, "URL-safe"},
		{"unpadded URL-safe signature", kKey, "HMAC-SHA1", base64.RawURLEncoding.EncodeToString(urlMAC), basestring.SignatureEncoding, "URL-safe base64 (\"-\" and \"_\" for \"+\" and \"/\") without"},
		{"unpadded signature", kKey, "HMAC-SHA1", base64.RawStdEncoding.EncodeToString(rightMAC), basestring.SignatureEncoding, "lacks the \"=\" padding"},
		{"hex signature", kKey, "HMAC-SHA1", hex.EncodeToString(rightMAC), basestring.SignatureEncoding, "hex"},
		{"HMAC-SHA512 secret with a newline", kKey, "HMAC-SHA512", b64(mac(sha512.New, enc(kCS+"\n")+"&"+enc(kTS), kBase)), basestring.SecretWhitespace, "consumer secret ends with a newline"},
		{"PLAINTEXT empty token secret", kKey, "PLAINTEXT", enc(kCS) + "&", basestring.EmptyTokenSecret, "empty token secret"},
		{"PLAINTEXT swapped", kKey, "PLAINTEXT", enc(kTS) + "&" + enc(kCS), basestring.SwappedSecrets, "swapped"},
		{"unrelated key", kKey, "HMAC-SHA1", sha1Sig("other&key", kBase), basestring.KeyUnknown, "the key differs, and not in a way this check knows"},
		{"unrelated key, SHA-256 length", kKey, "HMAC-SHA1", b64(mac(sha256.New, "other&key", kBase)), basestring.KeyUnknown, "32 is the length of an HMAC-SHA256"},
		{"not base64", kKey, "HMAC-SHA1", "not base64!", basestring.KeyUnknown, "not even standard base64"},
		{"PLAINTEXT unrelated", kKey, "PLAINTEXT", "other&key", basestring.KeyUnknown, "PLAINTEXT signature is none"},
		{"unknown method", kKey, "HMAC-MD5", sha1Sig(right, kBase), basestring.KeyUnchecked, "HMAC-MD5"},
		{"RSA without a key", kKey, "RSA-SHA1", sha1Sig(right, kBase), basestring.KeyUnchecked, "public key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := kBase
			if strings.Contains(tt.name, "URL-safe") {
				base = urlBase
			}
			m, ok := basestring.KeyMistake(base, tt.sig, tt.method, tt.key)
			if !ok || m.Kind != tt.want || !strings.Contains(m.Cause, tt.cause) {
				t.Errorf("KeyMistake = %v, %v; want %s with %q", m, ok, tt.want, tt.cause)
			}
			noSecrets(t, m.String(), tt.key)
		})
	}
}

// noSecrets fails if s holds a secret of k, as is or percent-encoded.
func noSecrets(t *testing.T, s string, k basestring.Key) {
	t.Helper()
	for _, secret := range []string{k.ConsumerSecret, k.TokenSecret, strings.TrimSpace(k.TokenSecret)} {
		if secret == "" {
			continue
		}
		for _, form := range []string{secret, enc(secret), enc(enc(secret))} {
			if strings.Contains(s, form) {
				t.Errorf("the mistake %q holds a secret", s)
			}
		}
	}
}

// TestKeyMistakeRight checks that the right key yields no mistake, for
// every method.
func TestKeyMistakeRight(t *testing.T) {
	right := enc(kCS) + "&" + enc(kTS)
	for method, h := range map[string]func() hash.Hash{"HMAC-SHA1": sha1.New, "HMAC-SHA256": sha256.New, "hmac-sha512": sha512.New} {
		if m, ok := basestring.KeyMistake(kBase, b64(mac(h, right, kBase)), method, kKey); ok {
			t.Errorf("%s with the right key: %v", method, m)
		}
	}
	if m, ok := basestring.KeyMistake(kBase, right, "PLAINTEXT", kKey); ok {
		t.Errorf("PLAINTEXT with the right key: %v", m)
	}
	// No token: the key ends with "&".
	k := basestring.Key{ConsumerKey: kCK, ConsumerSecret: kCS}
	if m, ok := basestring.KeyMistake(kBase, sha1Sig(enc(kCS)+"&", kBase), "HMAC-SHA1", k); ok {
		t.Errorf("HMAC-SHA1 with the right key and no token: %v", m)
	}
}

func TestKeyMistakeRSA(t *testing.T) {
	b, err := os.ReadFile("../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	priv, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(kBase))
	sig, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	k := basestring.Key{ConsumerKey: kCK, PublicKey: &priv.PublicKey}
	if m, ok := basestring.KeyMistake(kBase, b64(sig), "RSA-SHA256", k); ok {
		t.Errorf("the right RSA-SHA256 signature: %v", m)
	}
	for _, tt := range []struct {
		sig, cause string
	}{
		{enc(b64(sig)), "percent-encoded twice"},
		{base64.URLEncoding.EncodeToString(sig), "URL-safe"},
		{hex.EncodeToString(sig), "hex"},
	} {
		if m, ok := basestring.KeyMistake(kBase, tt.sig, "RSA-SHA256", k); !ok || m.Kind != basestring.SignatureEncoding || !strings.Contains(m.Cause, tt.cause) {
			t.Errorf("RSA-SHA256 signature %.20q: %v, %v; want signature-encoding with %q", tt.sig, m, ok, tt.cause)
		}
	}
	if m, ok := basestring.KeyMistake(kBase, b64(sig), "RSA-SHA1", k); !ok || m.Kind != basestring.KeyUnknown {
		t.Errorf("RSA-SHA256 signature declared RSA-SHA1: %v, %v; want unknown", m, ok)
	}
}

func ExampleKeyMistake() {
	base := "GET&https%3A%2F%2Fapi.example.com%2Fme&oauth_consumer_key%3Dck%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dtk"
	key := basestring.Key{ConsumerKey: "ck", ConsumerSecret: "cs", Token: "tk", TokenSecret: "ts"}
	// The client sent oauth_token but signed with "cs&", without the token secret.
	m := hmac.New(sha1.New, []byte("cs&"))
	m.Write([]byte(base))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))

	if mistake, ok := basestring.KeyMistake(base, sig, "HMAC-SHA1", key); ok {
		fmt.Println(mistake.Kind)
	}
	// Output:
	// empty-token-secret
}

// FuzzKeyMistake checks that KeyMistake never panics, always reports a
// mistake for a signature the right key does not make, and never puts a
// secret in it.
func FuzzKeyMistake(f *testing.F) {
	f.Add(kBase, "AAAA", "HMAC-SHA1", kCS, kTS)
	f.Add(kBase, enc(kCS)+"&", "PLAINTEXT", kCS, kTS)
	f.Add("", "%%%", "RSA-SHA1", "", "\n")
	f.Fuzz(func(t *testing.T, base, sig, method, cs, ts string) {
		k := basestring.Key{ConsumerKey: "ck", ConsumerSecret: cs, Token: "tk", TokenSecret: ts}
		m, ok := basestring.KeyMistake(base, sig, method, k)
		if !ok {
			if m.Kind != "" || m.Cause != "" || m.Also != nil {
				t.Fatalf("no mistake, but %v", m)
			}
			return
		}
		if m.Kind == "" || m.Cause == "" {
			t.Fatalf("an empty mistake %v", m)
		}
		for _, s := range []string{cs, ts} {
			if len(s) >= 12 && !strings.Contains(method, s) && strings.Contains(m.Cause, s) {
				t.Fatalf("the mistake %q holds the secret %q", m, s)
			}
		}
	})
}

// TestKeyMistakeRSAOtherForms checks that an RSA signature that verifies in
// no encoding is unknown, not unchecked, whatever lengths its decodings
// have.
func TestKeyMistakeRSAOtherForms(t *testing.T) {
	b, err := os.ReadFile("../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	priv, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("another base string"))
	sig, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	k := basestring.Key{PublicKey: &priv.PublicKey}
	for _, s := range []string{b64(sig), hex.EncodeToString(sig), base64.RawURLEncoding.EncodeToString(sig), enc(b64(sig)), "AAAA", "%%"} {
		if m, ok := basestring.KeyMistake(kBase, s, "RSA-SHA256", k); !ok || m.Kind != basestring.KeyUnknown {
			t.Errorf("%.20q: %v, %v; want unknown", s, m, ok)
		}
	}
}

// TestMistakeIncludes checks that Includes finds a kind whether it came
// first or second: a hex signature made with the consumer secret alone is
// signature-encoding first, and still includes consumer-secret-only.
func TestMistakeIncludes(t *testing.T) {
	k := basestring.Key{ConsumerKey: kCK, ConsumerSecret: kCS}
	m, ok := basestring.KeyMistake(kBase, hex.EncodeToString(mac(sha1.New, enc(kCS), kBase)), "HMAC-SHA1", k)
	if !ok || m.Kind != basestring.SignatureEncoding {
		t.Fatalf("KeyMistake = %v, %v; want signature-encoding first", m, ok)
	}
	tests := []struct {
		m    basestring.Mistake
		kind basestring.MistakeKind
		want bool
	}{
		{m, basestring.SignatureEncoding, true},
		{m, basestring.ConsumerSecretOnly, true},
		{m, basestring.EmptyTokenSecret, false},
		{m, "", false},
		{basestring.Mistake{Kind: basestring.SwappedSecrets}, basestring.SwappedSecrets, true},
		{basestring.Mistake{Kind: basestring.SwappedSecrets}, basestring.WrongHMACHash, false},
		{basestring.Mistake{Kind: basestring.SwappedSecrets, Also: []basestring.MistakeKind{basestring.WrongHMACHash}}, basestring.WrongHMACHash, true},
		{basestring.Mistake{}, "", false},
		{basestring.Mistake{}, basestring.KeyUnknown, false},
	}
	for _, tt := range tests {
		if got := tt.m.Includes(tt.kind); got != tt.want {
			t.Errorf("%v.Includes(%q) = %v; want %v", tt.m, tt.kind, got, tt.want)
		}
	}
}
