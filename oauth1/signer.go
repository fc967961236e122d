package oauth1

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	_ "crypto/sha1" // register the hashes HMAC and RSA may be asked for
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/percent"
)

// A Signer computes oauth_signature values: one signature method of RFC 5849
// §3.4. SignatureMethod returns the method's wire name, such as "HMAC-SHA1". Sign
// signs the signature base string with the client's and the token's shared
// secrets (the token secret is empty when there is no token) and returns the
// signature before percent-encoding. A Signer must be safe for concurrent
// use and must not keep base after it returns.
type Signer interface {
	SignatureMethod() string
	Sign(base []byte, consumerSecret, tokenSecret string) (string, error)
}

// HMAC implements HMAC-SHA1 (the zero value), HMAC-SHA256 and HMAC-SHA512
// (RFC 5849 §3.4.2) with [crypto/hmac]. The key is the percent-encoded
// consumer secret, "&", and the percent-encoded token secret; the "&" is
// there even when the token secret is empty.
//
// In FIPS 140-only mode (GODEBUG=fips140=only), HMAC-SHA1 and keys shorter
// than 112 bits are refused with an error.
//
// Signing and verification reuse HMAC states already keyed with a pair of
// secrets, from one cache shared by the program that holds up to 1,024
// pairs (with their hash). A pair leaves it, in the order pairs came, once
// 1,024 others have come in after it, however often it is used; a rotated
// secret is never signed with, since the pair is the key of its state.
//
// ConsumerSecretOnly keys the HMAC with the percent-encoded consumer secret
// alone, without the "&" that §3.4.2 requires: WooCommerce's legacy REST
// API v1 and v2 (/wc-api/v1, /wc-api/v2) check signatures with that key,
// while its legacy v3 and its WordPress REST API (/wp-json/wc/...) follow
// the RFC. Such requests have no token: Sign returns an error when the
// token secret is not empty. The keyed states of these signers are not
// cached.
type HMAC struct {
	Hash               crypto.Hash // crypto.SHA1 (or zero), crypto.SHA256 or crypto.SHA512
	ConsumerSecretOnly bool        // key: the consumer secret alone, no "&" (WooCommerce legacy v1, v2)
}

// RSA implements RSA-SHA1 (the zero Hash), RSA-SHA256 and RSA-SHA512 with
// PKCS #1 v1.5 signatures (RFC 5849 §3.4.3). The shared secrets are not used.
// Key may be an *rsa.PrivateKey or any crypto.Signer whose public key is an
// *rsa.PublicKey and that signs PKCS #1 v1.5 when given a crypto.Hash as
// options, as keys held in an HSM or a cloud KMS do.
//
// fmt, under every verb, and slog print an RSA as the key's size and the
// hash, never the key. JSON leaves Key out too: it writes only Hash.
type RSA struct {
	Key  crypto.Signer `json:"-"`
	Hash crypto.Hash   // crypto.SHA1 (or zero), crypto.SHA256 or crypto.SHA512
}

// Plaintext implements PLAINTEXT (RFC 5849 §3.4.4): the signature is the
// signing key itself. It is only safe over TLS, so Config refuses to sign a
// non-https request with it unless Config.AllowInsecurePlaintext is set.
type Plaintext struct{}

var (
	_ Signer = HMAC{}
	_ Signer = RSA{}
	_ Signer = Plaintext{}
)

// SignerFor returns the Signer for a signature method's wire name, such as
// "HMAC-SHA256" or "PLAINTEXT", for configurations that name the method as
// text. key is the private key of the RSA methods and is ignored by the
// others.
func SignerFor(method string, key crypto.Signer) (Signer, error) {
	if method == "PLAINTEXT" {
		return Plaintext{}, nil
	}
	h, isRSA, ok := mac.MethodHash(method)
	switch {
	case !ok:
		return nil, fmt.Errorf("oauth1: unknown signature method %q", method)
	case !isRSA:
		return HMAC{Hash: h}, nil
	case key == nil:
		return nil, errors.New("oauth1: " + method + " needs a private key")
	}
	return RSA{Key: key, Hash: h}, nil
}

// SignatureMethod returns "HMAC-SHA1", "HMAC-SHA256" or "HMAC-SHA512", or "" when
// Hash is none of those (Sign then returns an error).
func (s HMAC) SignatureMethod() string { return mac.MethodName(false, s.Hash) }

// Sign returns the base64 HMAC of base keyed with the two secrets.
func (s HMAC) Sign(base []byte, consumerSecret, tokenSecret string) (string, error) {
	if s.SignatureMethod() == "" {
		return "", mac.UnsupportedHash("HMAC", s.Hash)
	}
	var sum [64]byte
	if s.ConsumerSecretOnly {
		sig, err := s.appendSecretOnly(nil, sum[:], base, consumerSecret, tokenSecret)
		return string(sig), err
	}
	sig, err := mac.AppendSign(nil, nil, sum[:], s.Hash, base, consumerSecret, tokenSecret)
	return string(sig), err
}

// appendSecretOnly appends the HMAC of base keyed with the encoded consumer
// secret alone (HMAC.ConsumerSecretOnly). It keys a fresh state each time:
// the quirk is for WooCommerce's legacy API, and keeps the cache's key the
// one of §3.4.2.
func (s HMAC) appendSecretOnly(dst, sum, base []byte, consumerSecret, tokenSecret string) ([]byte, error) {
	if tokenSecret != "" {
		return dst, errors.New("oauth1: " + s.SignatureMethod() + ": ConsumerSecretOnly signs requests without a token, but the token secret is not empty")
	}
	key := percent.AppendEncode(nil, consumerSecret)
	m, err := mac.New(s.Hash, key)
	clear(key)
	if err != nil {
		return dst, err
	}
	return mac.AppendHMAC(dst, sum, m, base), nil
}

// SignatureMethod returns "RSA-SHA1", "RSA-SHA256" or "RSA-SHA512", or "" when Hash
// is none of those (Sign then returns an error).
func (s RSA) SignatureMethod() string { return mac.MethodName(true, s.Hash) }

// Sign returns the base64 PKCS #1 v1.5 signature of the hash of base.
func (s RSA) Sign(base []byte, _, _ string) (string, error) {
	m := s.SignatureMethod()
	if m == "" {
		return "", mac.UnsupportedHash("RSA", s.Hash)
	}
	if s.Key == nil {
		return "", errors.New("oauth1: " + m + ": no private key (RSA.Key is nil)")
	}
	if _, ok := s.Key.Public().(*rsa.PublicKey); !ok {
		return "", errors.New("oauth1: " + m + ": key is not an RSA key")
	}
	h, _, _ := mac.MethodHash(m)
	if err := mac.CheckHash(h); err != nil {
		return "", err
	}
	d := h.New()
	d.Write(base)
	var sum [64]byte
	sig, err := s.Key.Sign(rand.Reader, d.Sum(sum[:0]), h)
	if err != nil {
		return "", fmt.Errorf("oauth1: %s: signing failed: %w", m, err)
	}
	return base64.StdEncoding.EncodeToString(sig), nil
}

// SignatureMethod returns "PLAINTEXT".
func (Plaintext) SignatureMethod() string { return "PLAINTEXT" }

// Sign returns percent(consumerSecret) "&" percent(tokenSecret).
func (Plaintext) Sign(_ []byte, consumerSecret, tokenSecret string) (string, error) {
	return string(mac.AppendKey(nil, consumerSecret, tokenSecret)), nil
}
