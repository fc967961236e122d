package oauth1_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// refHMAC is the signature of RFC 5849 §3.4.2 computed with crypto/hmac.
func refHMAC(h func() hash.Hash, base, cs, ts string) string {
	mac := hmac.New(h, []byte(percent.Encode(cs)+"&"+percent.Encode(ts)))
	mac.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func TestHMAC(t *testing.T) {
	long := strings.Repeat("k", 200) // longer than every block size: the key is hashed first
	tests := []struct {
		hash   crypto.Hash
		method string
		ref    func() hash.Hash
	}{
		{0, "HMAC-SHA1", sha1.New},
		{crypto.SHA1, "HMAC-SHA1", sha1.New},
		{crypto.SHA256, "HMAC-SHA256", sha256.New},
		{crypto.SHA512, "HMAC-SHA512", sha512.New},
	}
	secrets := [][2]string{{"cs", "ts"}, {"cs", ""}, {"", ""}, {"a b+c&d", "é/☃"}, {long, long}, {strings.Repeat("x", 64), ""}}
	for _, tt := range tests {
		s := oauth1.HMAC{Hash: tt.hash}
		if got := s.SignatureMethod(); got != tt.method {
			t.Errorf("HMAC{%v}.Method() = %q, want %q", tt.hash, got, tt.method)
		}
		for _, sec := range secrets {
			got, err := s.Sign([]byte("GET&x&y"), sec[0], sec[1])
			if err != nil {
				t.Fatal(err)
			}
			if want := refHMAC(tt.ref, "GET&x&y", sec[0], sec[1]); got != want {
				t.Errorf("%s.Sign(secrets %q) = %s, want %s", tt.method, sec, got, want)
			}
		}
	}
	if _, err := (oauth1.HMAC{Hash: crypto.MD5}).Sign(nil, "", ""); err == nil {
		t.Error("HMAC{MD5}.Sign = nil error")
	}
	if got := (oauth1.HMAC{Hash: crypto.MD5}).SignatureMethod(); got != "" {
		t.Errorf("HMAC{MD5}.Method() = %q, want empty", got)
	}
}

// FuzzHMAC checks the pooled HMAC against crypto/hmac for any secrets and base.
func FuzzHMAC(f *testing.F) {
	f.Add("base", "cs", "ts")
	f.Add("", strings.Repeat("z", 130), "")
	f.Fuzz(func(t *testing.T, base, cs, ts string) {
		for _, h := range []struct {
			hash crypto.Hash
			ref  func() hash.Hash
		}{{crypto.SHA1, sha1.New}, {crypto.SHA256, sha256.New}, {crypto.SHA512, sha512.New}} {
			got, err := oauth1.HMAC{Hash: h.hash}.Sign([]byte(base), cs, ts)
			if err != nil {
				t.Fatal(err)
			}
			if want := refHMAC(h.ref, base, cs, ts); got != want {
				t.Fatalf("HMAC %v = %s, want %s", h.hash, got, want)
			}
		}
	})
}

func TestPlaintext(t *testing.T) {
	// RFC 5849 §3.4.4: the signature is the encoded secrets joined by "&";
	// the RFC's own example secret "jjd99$tj88uiths3" encodes to jjd99%24tj88uiths3.
	got, err := oauth1.Plaintext{}.Sign(nil, "djr9rjt0jd78jf88", "jjd99$tj88uiths3")
	if want := "djr9rjt0jd78jf88&jjd99%24tj88uiths3"; err != nil || got != want {
		t.Errorf("Plaintext.Sign = %q, %v, want %q", got, err, want)
	}
}

func TestPlaintextRequest(t *testing.T) {
	c := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "djr9rjt0jd78jf88", Signer: oauth1.Plaintext{}, OmitVersion: true}
	tok := &oauth1.Credentials{Token: "tk", Secret: "jjd99$tj88uiths3"}
	r := newRequest(t, "GET", "https://example.com/r", "", "")
	// With no time and no nonce, PLAINTEXT leaves both out (§3.1).
	if err := c.SignAt(r, tok, zeroTime, ""); err != nil {
		t.Fatal(err)
	}
	want := `OAuth oauth_consumer_key="ck", oauth_signature="djr9rjt0jd78jf88%26jjd99%2524tj88uiths3", oauth_signature_method="PLAINTEXT", oauth_token="tk"`
	if got := r.Header.Get("Authorization"); got != want {
		t.Errorf("Authorization =\n%s\nwant\n%s", got, want)
	}
	insecure := *c
	insecure.AllowInsecurePlaintext = true
	if err := insecure.SignAt(newRequest(t, "GET", "http://example.com/r", "", ""), tok, zeroTime, ""); err != nil {
		t.Errorf("SignAt with AllowInsecurePlaintext over http: %v", err)
	}
}

var rsaKey = func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}()

// kmsKey stands for a key held elsewhere: only crypto.Signer is visible.
type kmsKey struct{ k *rsa.PrivateKey }

func (s kmsKey) Public() crypto.PublicKey { return s.k.Public() }
func (s kmsKey) Sign(r io.Reader, d []byte, o crypto.SignerOpts) ([]byte, error) {
	return s.k.Sign(r, d, o)
}

type brokenKey struct{ kmsKey }

func (brokenKey) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("kms unavailable")
}

func TestRSA(t *testing.T) {
	base := []byte("POST&https%3A%2F%2Fexample.com%2F&a%3D1")
	for _, tt := range []struct {
		hash   crypto.Hash
		method string
	}{{0, "RSA-SHA1"}, {crypto.SHA256, "RSA-SHA256"}, {crypto.SHA512, "RSA-SHA512"}} {
		for _, key := range []crypto.Signer{rsaKey, kmsKey{rsaKey}} {
			s := oauth1.RSA{Key: key, Hash: tt.hash}
			if got := s.SignatureMethod(); got != tt.method {
				t.Errorf("Method() = %q, want %q", got, tt.method)
			}
			sig, err := s.Sign(base, "ignored", "ignored")
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := base64.StdEncoding.DecodeString(sig)
			h := tt.hash
			if h == 0 {
				h = crypto.SHA1
			}
			d := h.New()
			d.Write(base)
			if err := rsa.VerifyPKCS1v15(&rsaKey.PublicKey, h, d.Sum(nil), raw); err != nil {
				t.Errorf("%s signature does not verify: %v", tt.method, err)
			}
		}
	}
	if _, err := (oauth1.RSA{Key: brokenKey{kmsKey{rsaKey}}}).Sign(base, "", ""); err == nil || !strings.Contains(err.Error(), "kms unavailable") {
		t.Errorf("RSA with a failing key: error = %v", err)
	}
	if _, err := (oauth1.RSA{Key: rsaKey, Hash: crypto.MD5}).Sign(base, "", ""); err == nil {
		t.Error("RSA{MD5}.Sign = nil error")
	}
}

func TestBodyHash(t *testing.T) {
	// Expected values computed here with crypto/sha1 and crypto/sha256,
	// apart from the code under test.
	sum := func(h crypto.Hash, s string) string {
		d := h.New()
		d.Write([]byte(s))
		return base64.StdEncoding.EncodeToString(d.Sum(nil))
	}
	for _, tt := range []struct {
		hash        crypto.Hash
		contentType string
		body        string
		want        string // "" means no oauth_body_hash
	}{
		{crypto.SHA1, "application/json", `{"status":"Hello"}`, sum(crypto.SHA1, `{"status":"Hello"}`)},
		{crypto.SHA256, "application/json", `{"status":"Hello"}`, sum(crypto.SHA256, `{"status":"Hello"}`)},
		{crypto.SHA1, "", "", "2jmj7l5rSw0yVb/vlWAYkK/YBwk="}, // SHA-1 of the empty string
		{crypto.SHA256, "", "", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="},
		{crypto.SHA256, "application/x-www-form-urlencoded", "a=1", ""}, // never on form bodies
	} {
		c := &oauth1.Config{ConsumerKey: "ck", BodyHash: tt.hash}
		r := newRequest(t, "POST", "https://example.com/r", tt.contentType, tt.body)
		if err := c.SignAt(r, nil, testTime, "n"); err != nil {
			t.Fatal(err)
		}
		auth := r.Header.Get("Authorization")
		if tt.want == "" {
			if strings.Contains(auth, "oauth_body_hash") {
				t.Errorf("%s body got oauth_body_hash: %s", tt.contentType, auth)
			}
			continue
		}
		if want := `oauth_body_hash="` + percent.Encode(tt.want) + `"`; !strings.Contains(auth, want) {
			t.Errorf("BodyHash %v over %q: Authorization = %s, want it to contain %s", tt.hash, tt.body, auth, want)
		}
		if r.Body == nil {
			continue
		}
		if b, _ := io.ReadAll(r.Body); string(b) != tt.body {
			t.Errorf("body after signing = %q, want %q", b, tt.body)
		}
	}
}
