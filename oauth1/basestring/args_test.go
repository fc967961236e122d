package basestring_test

import (
	"crypto/sha1"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/basestring"
)

// TestSwappedArguments checks that KeyMistake and Reproduce report a call
// whose base, signature and method are out of order, in every order, and
// never answer it as a mistake in the key, nor quote the signature (for
// PLAINTEXT, the secrets) in the Cause.
func TestSwappedArguments(t *testing.T) {
	for _, tt := range []struct{ method, sig string }{
		{"HMAC-SHA1", sha1Sig(enc(kCS)+"&", kBase)}, // in order: empty-token-secret
		{"hmac-sha256", b64(mac(sha1.New, enc(kCS)+"&", kBase))},
		{"PLAINTEXT", enc(kCS) + "&"},
		{"RSA-SHA1", "c2lnbmF0dXJl"},
	} {
		orders := []struct {
			name                    string
			base, signature, method string
		}{
			{"signature, base, method", tt.sig, kBase, tt.method},
			{"base, method, signature", kBase, tt.method, tt.sig},
			{"method, signature, base", tt.method, tt.sig, kBase},
			{"signature, method, base", tt.sig, tt.method, kBase},
			{"method, base, signature", tt.method, kBase, tt.sig},
		}
		for _, o := range orders {
			t.Run(tt.method+"/"+o.name, func(t *testing.T) {
				m, ok := basestring.KeyMistake(o.base, o.signature, o.method, kKey)
				if !ok || m.Kind != basestring.KeyUnchecked || !strings.Contains(m.Cause, "out of order") {
					t.Errorf("KeyMistake(%s) = %v, %v; want unchecked, out of order", o.name, m, ok)
				}
				if strings.Contains(m.Cause, tt.sig) {
					t.Errorf("KeyMistake(%s) = %q holds the signature", o.name, m)
				}
				noSecrets(t, m.String(), kKey)

				m, signed, ok := basestring.Reproduce(o.base, o.signature, o.method, kKey, basestring.Request{})
				if !ok || m.Kind != basestring.KeyUnchecked || signed != "" || !strings.Contains(m.Cause, "Reproduce") {
					t.Errorf("Reproduce(%s) = %v, %q, %v; want unchecked, out of order", o.name, m, signed, ok)
				}
				if strings.Contains(m.Cause, tt.sig) {
					t.Errorf("Reproduce(%s) = %q holds the signature", o.name, m)
				}
				noSecrets(t, m.String(), kKey)
			})
		}
	}
}

// TestArgumentsNotWhatItTakes checks the arguments that are in order but
// are not a base string, and that a base string left empty is allowed for
// PLAINTEXT, whose signature hashes none.
func TestArgumentsNotWhatItTakes(t *testing.T) {
	sig := sha1Sig(enc(kCS)+"&", kBase)
	for _, tt := range []struct{ name, base, sig, method, cause string }{
		{"empty base string", "", sig, "HMAC-SHA1", "base is empty"},
		{"no URI", "GET&x&y", sig, "HMAC-SHA1", "base is neither a base string nor a method name (7 bytes)"},
		{"two parts", "GET&https%3A%2F%2Fa.example%2F", sig, "HMAC-SHA1", "out of order"},
		{"another scheme", "GET&ftp%3A%2F%2Fa.example%2F&a%3Db", sig, "HMAC-SHA1", "out of order"},
		{"unknown method", kBase, sig, "HMAC-MD5", `signature method "HMAC-MD5" (want`},
		{"a secret for a method", kBase, "PLAINTEXT", enc(kCS) + "&" + enc(kTS), "out of order"},
		{"a long unknown method", kBase, sig, strings.Repeat("X", 33), "method of 33 bytes that is no method name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := basestring.KeyMistake(tt.base, tt.sig, tt.method, kKey)
			if !ok || m.Kind != basestring.KeyUnchecked || !strings.Contains(m.Cause, tt.cause) {
				t.Errorf("KeyMistake = %v, %v; want unchecked with %q", m, ok, tt.cause)
			}
			noSecrets(t, m.String(), kKey)
		})
	}
	m, ok := basestring.KeyMistake("", enc(kCS)+"&", "PLAINTEXT", kKey)
	if !ok || m.Kind != basestring.EmptyTokenSecret {
		t.Errorf("PLAINTEXT without a base string: %v, %v; want %s", m, ok, basestring.EmptyTokenSecret)
	}
	// The base strings of real providers pass: lowercase hex, a port, http.
	for _, base := range []string{"GET&http%3a%2f%2fa.example%3A8080%2F&", "PUT&HTTPS%3A%2F%2FA.EXAMPLE%2F&a%3Db"} {
		if m, ok := basestring.KeyMistake(base, sha1Sig(enc(kCS)+"&", base), "HMAC-SHA1", kKey); !ok || m.Kind != basestring.EmptyTokenSecret {
			t.Errorf("KeyMistake(%q) = %v, %v; want %s", base, m, ok, basestring.EmptyTokenSecret)
		}
	}
}
