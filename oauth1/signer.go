package oauth1

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	_ "crypto/sha1" // register the hashes HMAC and RSA may be asked for
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"sync"

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
// (RFC 5849 §3.4.2). The key is the percent-encoded consumer secret, "&",
// and the percent-encoded token secret; the "&" is there even when the token
// secret is empty.
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

// methodName returns "prefix-SHA1" and so on, or "" for a hash that RFC 5849
// and its common extensions do not pair with the method. The names are
// constants: Method is on the signing hot path and must not allocate.
func methodName(prefix string, h crypto.Hash) string {
	i := 0
	switch h {
	case 0, crypto.SHA1:
	case crypto.SHA256:
		i = 1
	case crypto.SHA512:
		i = 2
	default:
		return ""
	}
	if prefix == "RSA" {
		return [...]string{"RSA-SHA1", "RSA-SHA256", "RSA-SHA512"}[i]
	}
	return [...]string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512"}[i]
}

func hashOrSHA1(h crypto.Hash) crypto.Hash {
	if h == 0 {
		return crypto.SHA1
	}
	return h
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

// Method returns "HMAC-SHA1", "HMAC-SHA256" or "HMAC-SHA512", or "" when
// Hash is none of those (Sign then returns an error).
func (s HMAC) Method() string { return methodName("HMAC", s.Hash) }

// Sign returns the base64 HMAC of base keyed with the two secrets.
func (s HMAC) Sign(base []byte, consumerSecret, tokenSecret string) (string, error) {
	if s.Method() == "" {
		return "", unsupportedHash("HMAC", s.Hash)
	}
	var sum [64]byte
	mac := appendHMAC(sum[:0], hashOrSHA1(s.Hash), base, consumerSecret, tokenSecret)
	return base64.StdEncoding.EncodeToString(mac), nil
}

// hmacPools hold reusable hash states and key buffers per hash, so that
// signing a request does not allocate the several objects that hmac.New does.
var hmacPools [crypto.SHA512 + 1]sync.Pool

type hmacState struct {
	hash crypto.Hash
	h    hash.Hash
	key  []byte // the signing key, then the padded block; cleared after use
	in   [64]byte
}

// appendHMAC appends HMAC-h(key, msg) (RFC 2104) to dst, where key is
// percent(consumerSecret) "&" percent(tokenSecret). It computes
// H((K ^ opad) || H((K ^ ipad) || msg)) with one pooled hash state; the
// tests check it against crypto/hmac and against openssl.
func appendHMAC(dst []byte, h crypto.Hash, msg []byte, consumerSecret, tokenSecret string) []byte {
	p := &hmacPools[h]
	st, _ := p.Get().(*hmacState)
	if st == nil {
		st = &hmacState{hash: h, h: h.New()}
	}
	defer p.Put(st)
	return st.append(dst, msg, consumerSecret, tokenSecret)
}

// append is appendHMAC with the hash state st.
func (st *hmacState) append(dst, msg []byte, consumerSecret, tokenSecret string) []byte {
	key := percent.AppendEncode(st.key[:0], consumerSecret)
	key = append(key, '&')
	key = percent.AppendEncode(key, tokenSecret)
	bs := st.h.BlockSize()
	if len(key) > bs {
		st.h.Reset()
		st.h.Write(key)
		key = st.h.Sum(key[:0])
	}
	n := len(key)
	key = slices.Grow(key, bs-n)[:bs]
	clear(key[n:])
	st.key = key

	xorPad(key, 0x36)
	st.h.Reset()
	st.h.Write(key)
	st.h.Write(msg)
	inner := st.h.Sum(st.in[:0])
	xorPad(key, 0x36^0x5c)
	st.h.Reset()
	st.h.Write(key)
	st.h.Write(inner)
	out := st.h.Sum(dst)
	// The pool must not hold key material: neither the key nor the hash's
	// midstate after the padded key, from which MACs could be computed.
	clear(key)
	st.h.Reset()
	return out
}

// xorPad XORs each byte of the padded key k, whose length is a hash's block
// size (a multiple of eight), with pad, eight bytes at a time.
func xorPad(k []byte, pad byte) {
	w := uint64(pad) * 0x0101010101010101
	for i := 0; i+8 <= len(k); i += 8 {
		binary.LittleEndian.PutUint64(k[i:], binary.LittleEndian.Uint64(k[i:])^w)
	}
}

// sign signs s.base with s.signer. HMAC, the common case, writes its
// signature into pooled memory instead of a new string; the result is then
// valid until s is reused.
func (s *state) sign(consumerSecret, tokenSecret string) (string, error) {
	h, ok := s.signer.(HMAC)
	if !ok || h.Method() == "" {
		return s.signer.Sign(s.base, consumerSecret, tokenSecret)
	}
	// The hash state travels with the pooled state: one pool, not two.
	if hh := hashOrSHA1(h.Hash); s.hmac == nil || s.hmac.hash != hh {
		s.hmac = &hmacState{hash: hh, h: hh.New()}
	}
	mac := s.hmac.append(s.mac[:0], s.base, consumerSecret, tokenSecret)
	s.sig = base64.StdEncoding.AppendEncode(s.sig[:0], mac)
	return unsafeString(s.sig), nil
}

// Method returns "RSA-SHA1", "RSA-SHA256" or "RSA-SHA512", or "" when Hash
// is none of those (Sign then returns an error).
func (s RSA) Method() string { return methodName("RSA", s.Hash) }

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
	h := hashOrSHA1(s.Hash)
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
	return percent.Encode(consumerSecret) + "&" + percent.Encode(tokenSecret), nil
}
