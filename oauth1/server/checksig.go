package server

import (
	"crypto"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/mac"
	"net/http"
)

// malformedSignature refuses, before the base string is built, a
// signature of an HMAC or RSA method that is not the base64 of as many
// bytes as the method's signatures have: no base string can match it, and
// building one costs a few times the size of the request. Other problems,
// such as a key that is missing, are left to checkSignature.
func malformedSignature(method string, sig []byte, c Registration) *ProblemError {
	h, isRSA, ok := mac.MethodHash(method)
	if !ok || !h.Available() {
		return nil
	}
	size := h.Size()
	if isRSA {
		if c.PublicKey == nil || c.PublicKey.N == nil || c.PublicKey.N.BitLen() > mac.MaxRSABits {
			return nil
		}
		size = (c.PublicKey.N.BitLen() + 7) / 8
	}
	if len(sig) != base64.StdEncoding.EncodedLen(size) {
		return problem(oauth1.ProblemSignatureInvalid, fmt.Errorf("oauth_signature is not the base64 of %d bytes, as %s signatures are", size, method))
	}
	if !validBase64(sig, size) {
		return problem(oauth1.ProblemSignatureInvalid, errors.New("oauth_signature is not base64"))
	}
	return nil
}

// validBase64 reports whether sig is the standard base64 of size bytes,
// decoding it into a buffer as small as the size: one for the largest RSA
// key, zeroed on every call, costs more than the decoding.
func validBase64(sig []byte, size int) bool {
	var small [64]byte
	buf := small[:]
	if size > len(small) {
		buf = make([]byte, size) // an RSA signature, whose check costs far more
	}
	n, err := base64.StdEncoding.Decode(buf, sig)
	return err == nil && n == size
}

// checkSignature compares sig with the signature of base in constant time.
// Its error never says what the expected signature was.
func (s *state) checkSignature(method string, base, sig []byte, c Registration, tokenSecret string) *ProblemError {
	invalid := func(err error) *ProblemError { return problem(oauth1.ProblemSignatureInvalid, err) }
	rejected := func(err error) *ProblemError { return problem(oauth1.ProblemSignatureMethodRejected, err) }
	if method == "PLAINTEXT" {
		if c.Secret == "" {
			return rejected(errors.New("no shared secret registered for the consumer")) // "&" would do
		}
		s.Key = mac.AppendKey(s.Key[:0], c.Secret, tokenSecret)
		ok := subtle.ConstantTimeCompare(s.Key, sig) == 1
		clear(s.Key)
		if !ok {
			return invalid(nil)
		}
		return nil
	}
	h, isRSA, ok := mac.MethodHash(method)
	if !ok {
		return rejected(fmt.Errorf("method %q is not supported", method))
	}
	if isRSA {
		if c.PublicKey == nil || c.PublicKey.N == nil {
			return rejected(errors.New("no RSA public key registered for the consumer"))
		}
		if n := c.PublicKey.N.BitLen(); n > mac.MaxRSABits {
			// Checking costs time that grows with the cube of the size.
			return rejected(fmt.Errorf("the registered RSA key of %d bits is larger than %d bits", n, mac.MaxRSABits))
		}
		raw, err := base64.StdEncoding.AppendDecode(nil, sig)
		if err != nil {
			return invalid(errors.New("oauth_signature is not base64"))
		}
		if err := mac.CheckHash(h); err != nil {
			return rejected(err)
		}
		d := h.New()
		d.Write(base)
		var sum [64]byte
		if rsa.VerifyPKCS1v15(c.PublicKey, h, d.Sum(sum[:0]), raw) != nil {
			return invalid(nil)
		}
		return nil
	}
	if c.Secret == "" {
		// An empty secret would make an HMAC anybody can compute.
		return rejected(errors.New("no shared secret registered for the consumer"))
	}
	// The MACs are compared as bytes, the signature decoded rather than the
	// MAC encoded; strictly, so that only the one base64 text of a MAC is
	// accepted, as when the texts were compared.
	var raw [64]byte
	n, decoded := 0, false
	if len(sig) == base64.StdEncoding.EncodedLen(h.Size()) {
		var err error
		n, err = strictBase64.Decode(raw[:], sig)
		decoded = err == nil
	}
	var err error
	if s.Sig, err = mac.AppendSum(s.Sig[:0], s.Key, h, base, c.Secret, tokenSecret); err != nil {
		return rejected(err)
	}
	ok = decoded && n == len(s.Sig) && subtle.ConstantTimeCompare(s.Sig, raw[:n]) == 1
	clear(s.Sig)
	if !ok {
		return invalid(nil)
	}
	return nil
}

// strictBase64 refuses the base64 texts that differ only in the bits
// the padding leaves over.
var strictBase64 = base64.StdEncoding.Strict()

// checkBodyHash compares oauth_body_hash with the hash of the body.
func (v *Verifier) checkBodyHash(s *state, r *http.Request, hasBody bool, got string, limit int64) error {
	raw, err := base64.StdEncoding.DecodeString(got)
	if err != nil {
		return problem(oauth1.ProblemParameterRejected, errors.New("oauth_body_hash is not base64"), "oauth_body_hash")
	}
	h := v.BodyHash
	if h == 0 {
		switch len(raw) {
		case 20:
			h = crypto.SHA1
		case 32:
			h = crypto.SHA256
		case 64:
			h = crypto.SHA512
		default:
			return problem(oauth1.ProblemParameterRejected, errors.New("oauth_body_hash has an unknown length"), "oauth_body_hash")
		}
	}
	if !h.Available() || h.Size() != len(raw) {
		return problem(oauth1.ProblemParameterRejected, errors.New("oauth_body_hash is not a "+mac.HashName(h)+" hash"), "oauth_body_hash")
	}
	if err := mac.CheckHash(h); err != nil {
		return problem(oauth1.ProblemParameterRejected, err, "oauth_body_hash")
	}
	var body []byte
	if hasBody {
		if body, err = s.ReadBody(r, limit); err != nil {
			return err
		}
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	if subtle.ConstantTimeCompare(d.Sum(sum[:0]), raw) != 1 {
		return problem(oauth1.ProblemBodyHashInvalid, errors.New("the body does not match oauth_body_hash")).
			advise("The body does not match oauth_body_hash: it was changed after signing, or hashed with another algorithm.")
	}
	return nil
}
