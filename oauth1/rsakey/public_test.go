package rsakey_test

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/rsakey"
)

func TestParsePublic(t *testing.T) {
	want := &original(t).PublicKey
	tests := []struct {
		name string
		data []byte
	}{
		{"PEM PUBLIC KEY (PKIX)", readKey(t, "rsa2048-public.pem")},
		{"PEM RSA PUBLIC KEY (PKCS #1)", readKey(t, "rsa2048-public-pkcs1.pem")},
		{"PEM CERTIFICATE", readKey(t, "rsa2048-cert.pem")},
		{"PKIX DER", readKey(t, "rsa2048-public.der")},
		{"PKCS #1 DER", der(t, "rsa2048-public-pkcs1.pem")},
		{"certificate DER", readKey(t, "rsa2048-cert.der")},
		// As Jira shows it, after other text and blocks.
		{"after other blocks", concat(
			[]byte("Consumer key: countersign\n"),
			pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: []byte{1}}),
			readKey(t, "rsa2048-public.pem"),
		)},
	}
	for _, tt := range tests {
		got, err := rsakey.ParsePublic(tt.data)
		if err != nil {
			t.Errorf("ParsePublic(%s) error = %v, want nil", tt.name, err)
			continue
		}
		if !got.Equal(want) {
			t.Errorf("ParsePublic(%s) = key with N %x..., want N %x...", tt.name, got.N.Bytes()[:8], want.N.Bytes()[:8])
		}
	}
}

func TestParsePublicErrors(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		keyType string // KeyTypeError.Type, or "" for ErrFormat
		mention string
	}{
		{"nil", nil, "", "empty"},
		{"garbage", []byte("this is not a key\n"), "", "neither PEM nor DER"},
		{"binary garbage", []byte{0x30, 0x03, 0x02, 0x01, 0x00}, "", "neither PEM nor DER"},
		{"private key", readKey(t, "rsa2048-pkcs1.pem"), "", "is a private key"},
		{"PKCS #8 private key", readKey(t, "rsa2048-pkcs8.pem"), "", "is a private key"},
		{"PKCS #8 DER private key", der(t, "rsa2048-pkcs8.pem"), "", "neither PEM nor DER"},
		{"wrong PEM type", pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: []byte{1}}), "", `"X509 CRL"`},
		{"truncated PUBLIC KEY", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der(t, "rsa2048-public.pem")[:100]}), "", "malformed"},
		{"truncated CERTIFICATE", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der(t, "rsa2048-cert.pem")[:100]}), "", "malformed"},
		{"PKCS #1 under the PKIX label", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der(t, "rsa2048-public-pkcs1.pem")}), "", "malformed"},
		{"OpenSSH", []byte("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ test\n"), "", "ssh-keygen -e"},
		{"EC PUBLIC KEY", readKey(t, "ec-p256-public.pem"), "ECDSA P-256", ""},
		{"EC CERTIFICATE", readKey(t, "ec-p256-cert.pem"), "ECDSA P-256", ""},
		{"Ed25519 PUBLIC KEY", readKey(t, "ed25519-public.pem"), "Ed25519", ""},
		{"DSA PUBLIC KEY", readKey(t, "dsa1024-public.pem"), "DSA", ""},
	}
	for _, tt := range tests {
		key, err := rsakey.ParsePublic(tt.data)
		if key != nil || err == nil {
			t.Errorf("ParsePublic(%s) = %v, %v; want nil, error", tt.name, key, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "rsakey: ") {
			t.Errorf("ParsePublic(%s) error = %q, want prefix %q", tt.name, msg, "rsakey: ")
		}
		if tt.mention != "" && !strings.Contains(msg, tt.mention) {
			t.Errorf("ParsePublic(%s) error = %q, want it to mention %q", tt.name, msg, tt.mention)
		}
		if tt.keyType == "" {
			if !errors.Is(err, rsakey.ErrFormat) {
				t.Errorf("ParsePublic(%s) error = %q, want errors.Is ErrFormat", tt.name, msg)
			}
			continue
		}
		var kt *rsakey.KeyTypeError
		if !errors.As(err, &kt) {
			t.Errorf("ParsePublic(%s) error = %q (%T), want *KeyTypeError", tt.name, msg, err)
			continue
		}
		if want := (rsakey.KeyTypeError{Type: tt.keyType, Public: true}); *kt != want {
			t.Errorf("ParsePublic(%s) error = %+v, want %+v", tt.name, *kt, want)
		}
		if want := "rsakey: found " + tt.keyType + " public key, want RSA"; msg != want {
			t.Errorf("ParsePublic(%s) error = %q, want %q", tt.name, msg, want)
		}
	}
}

// FuzzParsePublic checks that no input makes ParsePublic panic, and that
// every failure is an error this package documents.
func FuzzParsePublic(f *testing.F) {
	for _, name := range []string{"rsa2048-public.pem", "rsa2048-public-pkcs1.pem", "rsa2048-cert.pem", "ec-p256-public.pem"} {
		f.Add(readKey(f, name))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := rsakey.ParsePublic(data)
		var kt *rsakey.KeyTypeError
		if err != nil && !errors.Is(err, rsakey.ErrFormat) && !errors.As(err, &kt) {
			t.Errorf("ParsePublic error = %q, want ErrFormat or *KeyTypeError", err)
		}
	})
}

// A registered public key is chosen by the client, and checking a signature
// costs time that grows with the cube of its size: keys over MaxPublicBits
// are refused, in every encoding, and one of exactly that size is not.
func TestParsePublicRefusesHugeKeys(t *testing.T) {
	key := func(bits int) *rsa.PublicKey {
		n := new(big.Int).Lsh(big.NewInt(1), uint(bits-1))
		n.SetBit(n, 0, 1) // odd, bits long; not a real modulus, which parsing does not check
		return &rsa.PublicKey{N: n, E: 65537}
	}
	encodings := map[string]func(*rsa.PublicKey) []byte{
		"PKCS #1 PEM": func(k *rsa.PublicKey) []byte {
			return pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(k)})
		},
		"PKIX PEM": func(k *rsa.PublicKey) []byte {
			der, err := x509.MarshalPKIXPublicKey(k)
			if err != nil {
				t.Fatal(err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		},
		"PKCS #1 DER": x509.MarshalPKCS1PublicKey,
	}
	for name, enc := range encodings {
		if _, err := rsakey.ParsePublic(enc(key(rsakey.MaxPublicBits))); err != nil {
			t.Errorf("%s: ParsePublic(%d bits) = %v, want the key", name, rsakey.MaxPublicBits, err)
		}
		for _, bits := range []int{rsakey.MaxPublicBits + 1, 262144} {
			_, err := rsakey.ParsePublic(enc(key(bits)))
			if err == nil || !strings.Contains(err.Error(), strconv.Itoa(bits)+" bits") {
				t.Errorf("%s: ParsePublic(%d bits) = %v, want an error naming the size", name, bits, err)
			}
		}
	}
}
