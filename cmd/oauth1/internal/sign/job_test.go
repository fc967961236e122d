package sign

import (
	"os"
	"strings"
	"testing"
)

// TestSignerMethods checks the signature method lookup: oauth1.SignerFor's
// names in any case, and the command's own word for an RSA method without
// a key.
func TestSignerMethods(t *testing.T) {
	pemKey, err := os.ReadFile("../../../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		method, key, want, err string
	}{
		{"", "", "HMAC-SHA1", ""},
		{"hmac-sha256", "", "HMAC-SHA256", ""},
		{"PLAINTEXT", "", "PLAINTEXT", ""},
		{"rsa-sha512", string(pemKey), "RSA-SHA512", ""},
		{"RSA-SHA1", "", "", "RSA-SHA1 needs a private key (--key-file"},
		{"RSA-MD5", string(pemKey), "", `unknown signature method "RSA-MD5"`},
		{"HMAC-MD5", "", "", `unknown signature method "HMAC-MD5"`},
	} {
		j := Job{SignatureMethod: tt.method, PrivateKeyPEM: tt.key}
		s, err := j.Signer("")
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("signer(%q) error %v, want %q", tt.method, err, tt.err)
		case tt.err == "" && (err != nil || s.SignatureMethod() != tt.want):
			t.Errorf("signer(%q) = %v, %v; want %s", tt.method, s, err, tt.want)
		}
	}
}
