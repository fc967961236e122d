// Package mac holds what signing and verifying share about signature
// methods: the table that pairs wire names with hashes, the HMAC of RFC 5849
// §3.4.2 with its key, the body hash, the checks of FIPS 140-only mode, and
// a cache of keyed HMAC states.
package mac

import (
	"crypto"
	"crypto/fips140"
	"crypto/hmac"
	_ "crypto/sha1" // register the hashes HMAC and RSA may be asked for
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/base64"
	"errors"
	"hash"
	"strconv"

	"github.com/countersign/countersign/percent"
)

// methods lists the HMAC and RSA signature methods with their hashes: the
// one place that pairs a wire name with a hash.
var methods = [...]struct {
	name string
	rsa  bool
	hash crypto.Hash
}{
	{"HMAC-SHA1", false, crypto.SHA1},
	{"HMAC-SHA256", false, crypto.SHA256},
	{"HMAC-SHA512", false, crypto.SHA512},
	{"RSA-SHA1", true, crypto.SHA1},
	{"RSA-SHA256", true, crypto.SHA256},
	{"RSA-SHA512", true, crypto.SHA512},
}

// MethodName returns the wire name of the HMAC or RSA method with hash h
// (zero is SHA-1), or "" when there is none.
func MethodName(rsa bool, h crypto.Hash) string {
	if h == 0 {
		h = crypto.SHA1
	}
	for _, m := range methods {
		if m.rsa == rsa && m.hash == h {
			return m.name
		}
	}
	return ""
}

// MethodHash returns the hash of the HMAC or RSA method named name.
func MethodHash(name string) (h crypto.Hash, rsa, ok bool) {
	for _, m := range methods {
		if m.name == name {
			return m.hash, m.rsa, true
		}
	}
	return 0, false, false
}

// MaxRSABits is the largest RSA modulus a signature is checked with, as in
// crypto/tls: a registered key is chosen by the client.
const MaxRSABits = 8192

// UnsupportedHash names the hash by number: crypto.Hash.String panics on
// values it does not know, and bad input must never panic.
func UnsupportedHash(prefix string, h crypto.Hash) error {
	return errors.New("oauth1: " + prefix + ": unsupported hash " + HashName(h))
}

// HashName is h.String() for the hashes crypto knows, and a number otherwise.
func HashName(h crypto.Hash) string {
	if h > 0 && h < 20 { // the range crypto.Hash.String knows
		return h.String()
	}
	return "crypto.Hash(" + strconv.Itoa(int(h)) + ")"
}

// ErrFIPSOnly is what a hash or key refused in FIPS 140-only mode returns:
// crypto/hmac and crypto/sha1 panic instead.
func ErrFIPSOnly(what string) error {
	return errors.New("oauth1: " + what + " is not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
}

// CheckHash refuses SHA-1 in FIPS 140-only mode, where hashing with it panics.
func CheckHash(h crypto.Hash) error {
	if h == crypto.SHA1 && fips140.Enforced() {
		return ErrFIPSOnly("SHA-1")
	}
	return nil
}

// New returns a crypto/hmac hash of h keyed with key, which it does not
// keep. h is SHA-1 (or zero), SHA-256 or SHA-512.
func New(h crypto.Hash, key []byte) (hash.Hash, error) {
	m := MethodName(false, h)
	if m == "" {
		return nil, UnsupportedHash("HMAC", h)
	}
	if h == 0 {
		h = crypto.SHA1
	}
	if fips140.Enforced() {
		if err := CheckHash(h); err != nil {
			return nil, err
		}
		if len(key) < 112/8 {
			return nil, ErrFIPSOnly(m + " with a key shorter than 112 bits")
		}
	}
	return hmac.New(h.New, key), nil
}

// AppendKey appends the signing key of §3.4.2 and §3.4.4:
// percent(consumerSecret) "&" percent(tokenSecret).
func AppendKey(dst []byte, consumerSecret, tokenSecret string) []byte {
	dst = percent.AppendEncode(dst, consumerSecret)
	dst = append(dst, '&')
	return percent.AppendEncode(dst, tokenSecret)
}

// AppendHMAC appends the base64 HMAC of base with m, a fresh or reset keyed
// hash; sum is scratch space for the MAC, cleared after use.
func AppendHMAC(dst, sum []byte, m hash.Hash, base []byte) []byte {
	m.Write(base)
	sum = m.Sum(sum[:0])
	dst = base64.StdEncoding.AppendEncode(dst, sum)
	clear(sum)
	return dst
}

// HashBody returns the base64 hash of body, for oauth_body_hash.
func HashBody(h crypto.Hash, body []byte) (string, error) {
	if h != crypto.SHA1 && h != crypto.SHA256 && h != crypto.SHA512 {
		return "", errors.New("unsupported hash " + HashName(h))
	}
	if err := CheckHash(h); err != nil {
		return "", err
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	return base64.StdEncoding.EncodeToString(d.Sum(sum[:0])), nil
}
