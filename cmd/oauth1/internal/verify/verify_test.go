package verify

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVerifyKeyFile checks the files verify --key-file reads: a public key
// or certificate as rsakey.ParsePublic reads them, PEM or DER, or a private
// key, whose public half is taken; and that it refuses what holds no RSA key.
func TestVerifyKeyFile(t *testing.T) {
	for _, tt := range []struct {
		file  string
		valid bool
	}{
		{"rsa2048-public.pem", true},
		{"rsa2048-public-pkcs1.pem", true},
		{"rsa2048-public.der", true},
		{"rsa2048-cert.der", true},
		{"rsa2048-pkcs8.pem", true},
		{"ec-p256-public.pem", false},
		{"README.md", false},
	} {
		data, err := os.ReadFile(filepath.Join("../../../../testdata/keys", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		pub, err := publicKey(data, "")
		if (err == nil) != tt.valid || tt.valid && pub.N.BitLen() != 2048 {
			t.Errorf("publicKey(%s) = %v, %v; want valid %v", tt.file, pub != nil, err, tt.valid)
		}
	}
}
