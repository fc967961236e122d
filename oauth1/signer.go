package oauth1

import (
	"crypto"
	"crypto/fips140"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	_ "crypto/sha1" // register the hashes HMAC and RSA may be asked for
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"strconv"

	"github.com/countersign/countersign/percent"
)

// A Signer computes oauth_signature values: one signature method of RFC 5849
// §3.4. Method returns the method's wire name, such as "HMAC-SHA1". Sign
// signs the signature base string with the client's and the token's shared
// secrets (the token secret is empty when there is no token) and returns the
// signature before percent-encoding. A Signer must be safe for concurrent
// use and must not keep base after it returns.
type Signer interface {
	Method() string
	Sign(base []byte, consumerSecret, tokenSecret string) (string, error)
}

// HMAC implements HMAC-SHA1 (the zero value), HMAC-SHA256 and HMAC-SHA512
// (RFC 5849 §3.4.2) with [crypto/hmac]. The key is the percent-encoded
// consumer secret, "&", and the percent-encoded token secret; the "&" is
// there even when the token secret is empty.
//
// In FIPS 140-only mode (GODEBUG=fips140=only), HMAC-SHA1 and keys shorter
// than 112 bits are refused with an error.
type HMAC struct {
	Hash crypto.Hash // crypto.SHA1 (or zero), crypto.SHA256 or crypto.SHA512
}

// RSA implements RSA-SHA1 (the zero Hash), RSA-SHA256 and RSA-SHA512 with
// PKCS #1 v1.5 signatures (RFC 5849 §3.4.3). The shared secrets are not used.
// Key may be an *rsa.PrivateKey or any crypto.Signer whose public key is an
// *rsa.PublicKey and that signs PKCS #1 v1.5 when given a crypto.Hash as
// options, as keys held in an HSM or a cloud KMS do.
type RSA struct {
	Key  crypto.Signer
	Hash crypto.Hash // crypto.SHA1 (or zero), crypto.SHA256 or crypto.SHA512
}

// PlainText implements PLAINTEXT (RFC 5849 §3.4.4): the signature is the
// signing key itself. It is only safe over TLS, so Config refuses to sign a
// non-https request with it unless Config.AllowInsecurePlainText is set.
type PlainText struct{}

var (
	_ Signer = HMAC{}
	_ Signer = RSA{}
	_ Signer = PlainText{}
)

// methods lists the signature methods this package implements, with their
// hashes: the one place that pairs a wire name with a hash.
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

// methodName returns the wire name of the HMAC or RSA method with hash h
// (zero is SHA-1), or "" when there is none.
func methodName(rsa bool, h crypto.Hash) string {
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

// methodHash returns the hash of the HMAC or RSA method named name.
func methodHash(name string) (h crypto.Hash, rsa, ok bool) {
	for _, m := range methods {
		if m.name == name {
			return m.hash, m.rsa, true
		}
	}
	return 0, false, false
}

// SignerFor returns the Signer for a signature method's wire name, such as
// "HMAC-SHA256" or "PLAINTEXT", for configurations that name the method as
// text. key is the private key of the RSA methods and is ignored by the
// others.
func SignerFor(method string, key crypto.Signer) (Signer, error) {
	if method == "PLAINTEXT" {
		return PlainText{}, nil
	}
	h, isRSA, ok := methodHash(method)
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

// signerMethod returns s.Method(), or an error naming what is wrong when
// it is empty.
func signerMethod(s Signer) (string, error) {
	if m := s.Method(); m != "" {
		return m, nil
	}
	switch m := s.(type) {
	case HMAC:
		return "", unsupportedHash("HMAC", m.Hash)
	case RSA:
		return "", unsupportedHash("RSA", m.Hash)
	}
	return "", fmt.Errorf("oauth1: signer %T has an empty Method name", s)
}

// unsupportedHash names the hash by number: crypto.Hash.String panics on
// values it does not know, and bad input must never panic.
func unsupportedHash(prefix string, h crypto.Hash) error {
	return errors.New("oauth1: " + prefix + ": unsupported hash " + hashName(h))
}

func hashName(h crypto.Hash) string {
	if h > 0 && h < 20 { // the range crypto.Hash.String knows
		return h.String()
	}
	return "crypto.Hash(" + strconv.Itoa(int(h)) + ")"
}

// errFIPSOnly is what a hash or key refused in FIPS 140-only mode returns:
// crypto/hmac and crypto/sha1 panic instead.
func errFIPSOnly(what string) error {
	return errors.New("oauth1: " + what + " is not allowed in FIPS 140-only mode (GODEBUG=fips140=only)")
}

// checkHash refuses SHA-1 in FIPS 140-only mode, where hashing with it panics.
func checkHash(h crypto.Hash) error {
	if h == crypto.SHA1 && fips140.Enforced() {
		return errFIPSOnly("SHA-1")
	}
	return nil
}

// Method returns "HMAC-SHA1", "HMAC-SHA256" or "HMAC-SHA512", or "" when
// Hash is none of those (Sign then returns an error).
func (s HMAC) Method() string { return methodName(false, s.Hash) }

// Sign returns the base64 HMAC of base keyed with the two secrets.
func (s HMAC) Sign(base []byte, consumerSecret, tokenSecret string) (string, error) {
	key := appendKey(nil, consumerSecret, tokenSecret)
	mac, err := s.new(key)
	clear(key)
	if err != nil {
		return "", err
	}
	var sum [64]byte
	return string(appendHMAC(nil, sum[:0], mac, base)), nil
}

// new returns a crypto/hmac hash keyed with key, which it does not keep.
func (s HMAC) new(key []byte) (hash.Hash, error) {
	m := s.Method()
	if m == "" {
		return nil, unsupportedHash("HMAC", s.Hash)
	}
	h, _, _ := methodHash(m)
	if fips140.Enforced() {
		if err := checkHash(h); err != nil {
			return nil, err
		}
		if len(key) < 112/8 {
			return nil, errFIPSOnly(m + " with a key shorter than 112 bits")
		}
	}
	return hmac.New(h.New, key), nil
}

// appendKey appends the signing key of §3.4.2 and §3.4.4:
// percent(consumerSecret) "&" percent(tokenSecret).
func appendKey(dst []byte, consumerSecret, tokenSecret string) []byte {
	dst = percent.AppendEncode(dst, consumerSecret)
	dst = append(dst, '&')
	return percent.AppendEncode(dst, tokenSecret)
}

// appendHMAC appends the base64 HMAC of base with mac, a fresh or reset
// keyed hash; sum is scratch space for the MAC.
func appendHMAC(dst, sum []byte, mac hash.Hash, base []byte) []byte {
	mac.Write(base)
	sum = mac.Sum(sum[:0])
	dst = base64.StdEncoding.AppendEncode(dst, sum)
	clear(sum)
	return dst
}

// Method returns "RSA-SHA1", "RSA-SHA256" or "RSA-SHA512", or "" when Hash
// is none of those (Sign then returns an error).
func (s RSA) Method() string { return methodName(true, s.Hash) }

// Sign returns the base64 PKCS #1 v1.5 signature of the hash of base.
func (s RSA) Sign(base []byte, _, _ string) (string, error) {
	m := s.Method()
	if m == "" {
		return "", unsupportedHash("RSA", s.Hash)
	}
	if s.Key == nil {
		return "", errors.New("oauth1: " + m + ": no private key (RSA.Key is nil)")
	}
	if _, ok := s.Key.Public().(*rsa.PublicKey); !ok {
		return "", errors.New("oauth1: " + m + ": key is not an RSA key")
	}
	h, _, _ := methodHash(m)
	if err := checkHash(h); err != nil {
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

// Method returns "PLAINTEXT".
func (PlainText) Method() string { return "PLAINTEXT" }

// Sign returns percent(consumerSecret) "&" percent(tokenSecret).
func (PlainText) Sign(_ []byte, consumerSecret, tokenSecret string) (string, error) {
	return string(appendKey(nil, consumerSecret, tokenSecret)), nil
}

// hashBody returns the base64 hash of body, for oauth_body_hash.
func hashBody(h crypto.Hash, body []byte) (string, error) {
	if h != crypto.SHA1 && h != crypto.SHA256 && h != crypto.SHA512 {
		return "", errors.New("unsupported hash " + hashName(h))
	}
	if err := checkHash(h); err != nil {
		return "", err
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	return base64.StdEncoding.EncodeToString(d.Sum(sum[:0])), nil
}
