package rsakey_test

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"encoding/binary"
	"github.com/countersign/countersign/oauth1/rsakey"
	"time"
)

const (
	keys     = "../../testdata/keys"
	password = "test-password"
)

func readKey(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(keys, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// original is the key every RSA fixture holds, read with the standard
// library alone so that Parse is not checked against itself.
func original(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	block, _ := pem.Decode(readKey(t, "rsa2048-pkcs1.pem"))
	if block == nil || block.Type != "RSA PRIVATE KEY" {
		t.Fatal("rsa2048-pkcs1.pem: no RSA PRIVATE KEY block")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func der(t *testing.T, name string) []byte {
	t.Helper()
	block, _ := pem.Decode(readKey(t, name))
	if block == nil {
		t.Fatalf("%s: no PEM block", name)
	}
	return block.Bytes
}

func TestParse(t *testing.T) {
	want := original(t)
	tests := []struct {
		name     string
		data     []byte
		password string
	}{
		{"rsa2048-pkcs1.pem", readKey(t, "rsa2048-pkcs1.pem"), ""},
		{"rsa2048-pkcs8.pem", readKey(t, "rsa2048-pkcs8.pem"), ""},
		{"rsa2048-openssh", readKey(t, "rsa2048-openssh"), ""},
		{"rsa2048-openssh-encrypted", readKey(t, "rsa2048-openssh-encrypted"), password},
		{"rsa2048-legacy.p12", readKey(t, "rsa2048-legacy.p12"), password},
		{"rsa2048-aes.p12", readKey(t, "rsa2048-aes.p12"), password},
		{"rsa2048-chain-aes.p12", readKey(t, "rsa2048-chain-aes.p12"), password},
		{"rsa2048-aes-empty-password.p12", readKey(t, "rsa2048-aes-empty-password.p12"), ""},
		{"rsa2048-pkcs8-encrypted.pem", readKey(t, "rsa2048-pkcs8-encrypted.pem"), password},
		{"rsa2048-pkcs8-sha1-aes128.pem", readKey(t, "rsa2048-pkcs8-sha1-aes128.pem"), password},
		// The password is ignored for unencrypted keys.
		{"rsa2048-pkcs1.pem with password", readKey(t, "rsa2048-pkcs1.pem"), password},
		{"rsa2048-openssh with password", readKey(t, "rsa2048-openssh"), password},
		// DER without PEM armour.
		{"PKCS #1 DER", der(t, "rsa2048-pkcs1.pem"), ""},
		{"PKCS #8 DER", der(t, "rsa2048-pkcs8.pem"), ""},
		// The key block after a certificate, as `openssl pkcs12 -nodes`
		// writes it, with its "Bag Attributes" text before each block.
		{"certificate then key", concat(
			[]byte("Bag Attributes\n    friendlyName: countersign-test\n"),
			readKey(t, "rsa2048-cert.pem"),
			readKey(t, "rsa2048-pkcs8.pem"),
		), ""},
		// Some tools write PKCS #1 under the PKCS #8 label.
		{"PKCS #1 labelled PRIVATE KEY", pem.EncodeToMemory(&pem.Block{
			Type: "PRIVATE KEY", Bytes: der(t, "rsa2048-pkcs1.pem"),
		}), ""},
	}
	for _, tt := range tests {
		got, err := rsakey.Parse(tt.data, tt.password)
		if err != nil {
			t.Errorf("Parse(%s) error = %v, want nil", tt.name, err)
			continue
		}
		if !got.Equal(want) {
			t.Errorf("Parse(%s) = key with N %x..., want N %x...", tt.name, got.N.Bytes()[:8], want.N.Bytes()[:8])
		}
		if got.E != want.E {
			t.Errorf("Parse(%s) = key with E %d, want E %d", tt.name, got.E, want.E)
		}
	}
}

func concat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		password string
		want     error  // sentinel, or nil for a *KeyTypeError
		keyType  string // KeyTypeError.Type when want is nil
		mention  string // a substring the message must contain
	}{
		{"nil", nil, "", rsakey.ErrFormat, "", "empty"},
		{"empty", []byte{}, password, rsakey.ErrFormat, "", "empty"},
		{"garbage", []byte("this is not a key\n"), "", rsakey.ErrFormat, "", "neither"},
		{"binary garbage", []byte{0x30, 0x03, 0x02, 0x01, 0x00}, "", rsakey.ErrFormat, "", ""},
		{"certificate only", readKey(t, "rsa2048-cert.pem"), "", rsakey.ErrFormat, "", "CERTIFICATE"},
		{"public key", readKey(t, "rsa2048-public.pem"), "", rsakey.ErrFormat, "", "public key"},
		{"truncated PEM body", pem.EncodeToMemory(&pem.Block{
			Type: "RSA PRIVATE KEY", Bytes: der(t, "rsa2048-pkcs1.pem")[:100],
		}), "", rsakey.ErrFormat, "", "malformed"},
		{"unknown PEM type", pem.EncodeToMemory(&pem.Block{
			Type: "FANCY PRIVATE KEY", Bytes: []byte{1, 2, 3},
		}), "", rsakey.ErrFormat, "", "FANCY"},
		{"truncated PKCS #12", readKey(t, "rsa2048-legacy.p12")[:1000], password, rsakey.ErrFormat, "", "neither"},

		{"OpenSSH without password", readKey(t, "rsa2048-openssh-encrypted"), "", rsakey.ErrPasswordRequired, "", "OpenSSH"},
		{"OpenSSH wrong password", readKey(t, "rsa2048-openssh-encrypted"), "wrong", rsakey.ErrIncorrectPassword, "", "OpenSSH"},
		{"PKCS #12 without password", readKey(t, "rsa2048-legacy.p12"), "", rsakey.ErrPasswordRequired, "", "PKCS #12"},
		{"PKCS #12 wrong password", readKey(t, "rsa2048-legacy.p12"), "wrong", rsakey.ErrIncorrectPassword, "", "PKCS #12"},

		{"PKCS #12 AES without password", readKey(t, "rsa2048-aes.p12"), "", rsakey.ErrPasswordRequired, "", "PKCS #12"},
		{"PKCS #12 AES wrong password", readKey(t, "rsa2048-aes.p12"), "wrong", rsakey.ErrIncorrectPassword, "", "PKCS #12"},
		{"PKCS #12 AES password outside the BMP", readKey(t, "rsa2048-aes.p12"), "\U0001F511", rsakey.ErrIncorrectPassword, "", "PKCS #12"},
		{"PKCS #12 MAC iterations", withMACIterations(t, readKey(t, "rsa2048-aes.p12"), 1<<30), password, rsakey.ErrUnsupported, "", "iteration count 1073741824"},
		{"PKCS #12 without MAC", withMACIterations(t, readKey(t, "rsa2048-aes.p12"), -1), "", rsakey.ErrUnsupported, "", "without a MAC"},
		{"legacy encrypted PEM", readKey(t, "rsa2048-pkcs1-encrypted.pem"), password, rsakey.ErrUnsupported, "", "openssl pkcs8 -topk8"},
		{"encrypted PKCS #8 without password", readKey(t, "rsa2048-pkcs8-encrypted.pem"), "", rsakey.ErrPasswordRequired, "", "PKCS #8"},
		{"encrypted PKCS #8 wrong password", readKey(t, "rsa2048-pkcs8-encrypted.pem"), "wrong", rsakey.ErrIncorrectPassword, "", "PKCS #8"},
		{"encrypted PKCS #8 PBES1", readKey(t, "rsa2048-pkcs8-pbes1.pem"), password, rsakey.ErrUnsupported, "", "PBES2"},
		{"encrypted PKCS #8 3DES", readKey(t, "rsa2048-pkcs8-des3.pem"), password, rsakey.ErrUnsupported, "", "AES-CBC"},
		{"encrypted PKCS #8 truncated", pem.EncodeToMemory(&pem.Block{
			Type: "ENCRYPTED PRIVATE KEY", Bytes: der(t, "rsa2048-pkcs8-encrypted.pem")[:200],
		}), password, rsakey.ErrFormat, "", "malformed"},

		{"EC PKCS #8", readKey(t, "ec-p256-pkcs8.pem"), "", nil, "ECDSA P-256", ""},
		{"EC SEC 1", readKey(t, "ec-p256-sec1.pem"), "", nil, "ECDSA P-256", ""},
		{"EC PKCS #12", readKey(t, "ec-p256-legacy.p12"), password, nil, "ECDSA P-256", ""},
		{"Ed25519 PKCS #8", readKey(t, "ed25519-pkcs8.pem"), "", nil, "Ed25519", ""},
		{"Ed25519 OpenSSH", readKey(t, "ed25519-openssh"), "", nil, "Ed25519", ""},
		{"Ed25519 PKCS #12", readKey(t, "ed25519-legacy.p12"), password, nil, "Ed25519", ""},
	}
	for _, tt := range tests {
		key, err := rsakey.Parse(tt.data, tt.password)
		if key != nil {
			t.Errorf("Parse(%s) = key, want nil", tt.name)
		}
		if err == nil {
			t.Errorf("Parse(%s) error = nil, want error", tt.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "rsakey: ") {
			t.Errorf("Parse(%s) error = %q, want prefix %q", tt.name, msg, "rsakey: ")
		}
		if tt.mention != "" && !strings.Contains(msg, tt.mention) {
			t.Errorf("Parse(%s) error = %q, want it to mention %q", tt.name, msg, tt.mention)
		}
		if tt.password != "" && strings.Contains(msg, tt.password) {
			t.Errorf("Parse(%s) error = %q contains the password", tt.name, msg)
		}
		if tt.want != nil {
			if !errors.Is(err, tt.want) {
				t.Errorf("Parse(%s) error = %q, want errors.Is %q", tt.name, msg, tt.want)
			}
			continue
		}
		var kt *rsakey.KeyTypeError
		if !errors.As(err, &kt) {
			t.Errorf("Parse(%s) error = %q (%T), want *KeyTypeError", tt.name, msg, err)
			continue
		}
		if want := (rsakey.KeyTypeError{Type: tt.keyType}); *kt != want {
			t.Errorf("Parse(%s) error = %+v, want %+v", tt.name, *kt, want)
		}
	}
}

// withMACIterations returns the PKCS #12 file p12 with its MAC iteration
// count set to n, or without its MAC when n is negative. The MAC no longer
// matches; Parse must refuse before it computes it.
func withMACIterations(t *testing.T, p12 []byte, n int) []byte {
	t.Helper()
	var pfx struct {
		Version  int
		AuthSafe asn1.RawValue
		MacData  struct {
			Mac        asn1.RawValue
			MacSalt    []byte
			Iterations int
		} `asn1:"optional"`
	}
	rest, err := asn1.Unmarshal(p12, &pfx)
	if err != nil || len(rest) > 0 {
		t.Fatalf("PKCS #12 fixture does not parse: %v", err)
	}
	var out []byte
	if n < 0 {
		out, err = asn1.Marshal(struct {
			Version  int
			AuthSafe asn1.RawValue
		}{pfx.Version, pfx.AuthSafe})
	} else {
		pfx.MacData.Iterations = n
		out, err = asn1.Marshal(pfx)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestErrorsAreDistinct guards against two sentinels matching one another,
// which would make branching on them meaningless.
func TestErrorsAreDistinct(t *testing.T) {
	sentinels := []error{rsakey.ErrFormat, rsakey.ErrPasswordRequired, rsakey.ErrIncorrectPassword, rsakey.ErrUnsupported}
	for i, a := range sentinels {
		for j, b := range sentinels {
			if i != j && errors.Is(a, b) {
				t.Errorf("errors.Is(%q, %q) = true, want false", a, b)
			}
		}
	}
}

// The error for a key with the wrong password must not reveal the key even
// when the password is a substring of key material.
func TestParseErrorHasNoKeyMaterial(t *testing.T) {
	data := readKey(t, "rsa2048-openssh-encrypted")
	_, err := rsakey.Parse(data, "wrong")
	if err == nil {
		t.Fatal("Parse(rsa2048-openssh-encrypted, wrong) error = nil, want error")
	}
	body := strings.Split(string(data), "\n")[1] // first base64 line
	if strings.Contains(err.Error(), body[:16]) {
		t.Errorf("Parse error = %q contains key bytes", err)
	}
}

// FuzzParse checks that no input makes Parse panic, and that every failure
// is an error this package documents.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"rsa2048-pkcs1.pem", "rsa2048-pkcs8-encrypted.pem", "rsa2048-openssh", "ec-p256-sec1.pem"} {
		data, err := os.ReadFile(filepath.Join(keys, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, password)
	}
	f.Fuzz(func(t *testing.T, data []byte, password string) {
		_, err := rsakey.Parse(data, password)
		if err == nil {
			return
		}
		var kt *rsakey.KeyTypeError
		if !errors.Is(err, rsakey.ErrFormat) && !errors.Is(err, rsakey.ErrPasswordRequired) &&
			!errors.Is(err, rsakey.ErrIncorrectPassword) && !errors.Is(err, rsakey.ErrUnsupported) &&
			!errors.As(err, &kt) {
			t.Errorf("Parse error = %q, want one of the documented errors", err)
		}
	})
}

// An encrypted OpenSSH key names its own bcrypt rounds, each about 10 ms:
// a file asking for 2,048 cost 20 s per parse before its password was
// checked. Keys asking for more than the bound are refused unread.
func TestParseOpenSSHRoundsBounded(t *testing.T) {
	block, _ := pem.Decode(readKey(t, "rsa2048-openssh-encrypted"))
	b := block.Bytes
	// openssh-key-v1\0, then the strings cipher, KDF name and KDF options
	// (salt, uint32 rounds): find the rounds by hand, apart from the code
	// under test.
	i := len("openssh-key-v1\x00")
	skip := func() int { n := int(binary.BigEndian.Uint32(b[i:])); i += 4 + n; return i - n }
	skip()
	if kdf := skip(); string(b[kdf:i]) != "bcrypt" {
		t.Fatalf("test key's KDF is %q, want bcrypt", b[kdf:i])
	}
	i += 4 // the options' length
	skip() // salt
	if got := binary.BigEndian.Uint32(b[i:]); got != 16 {
		t.Fatalf("test key has %d rounds, want ssh-keygen's 16", got)
	}
	binary.BigEndian.PutUint32(b[i:], 2048)
	start := time.Now()
	_, err := rsakey.Parse(pem.EncodeToMemory(block), "wrong")
	if err == nil || !strings.Contains(err.Error(), "2048 bcrypt rounds") {
		t.Errorf("Parse(2048 rounds) = %v, want an error naming the rounds", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Parse(2048 rounds) took %v", d)
	}
}
