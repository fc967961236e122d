package oauth1

import (
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
)

// checkSignature compares sig with the signature of base in constant time.
// Its error never says what the expected signature was.
func (s *state) checkSignature(method string, base []byte, sig string, c Registration, tokenSecret string, macs *macCache) *ProblemError {
	invalid := func(err error) *ProblemError { return problem(ProblemSignatureInvalid, err) }
	rejected := func(err error) *ProblemError { return problem(ProblemSignatureMethodRejected, err) }
	if method == "PLAINTEXT" {
		if c.Secret == "" {
			return rejected(errors.New("no shared secret registered for the consumer")) // "&" would do
		}
		s.key = appendKey(s.key[:0], c.Secret, tokenSecret)
		ok := hmac.Equal(s.key, []byte(sig))
		clear(s.key)
		if !ok {
			return invalid(nil)
		}
		return nil
	}
	h, isRSA, ok := methodHash(method)
	if !ok {
		return rejected(fmt.Errorf("method %q is not supported", method))
	}
	if isRSA {
		if c.PublicKey == nil {
			return rejected(errors.New("no RSA public key registered for the consumer"))
		}
		raw, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			return invalid(errors.New("oauth_signature is not base64"))
		}
		if err := checkHash(h); err != nil {
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
	var err error
	if s.sig, err = macs.appendSign(s.sig[:0], s.key, s.sum[:], HMAC{Hash: h}, base, c.Secret, tokenSecret); err != nil {
		return rejected(err)
	}
	ok = hmac.Equal(s.sig, []byte(sig))
	clear(s.sig)
	if !ok {
		return invalid(nil)
	}
	return nil
}

// checkBodyHash compares oauth_body_hash with the hash of the body.
func (v *Verifier) checkBodyHash(s *state, r *http.Request, hasBody bool, got string, limit int64) error {
	raw, err := base64.StdEncoding.DecodeString(got)
	if err != nil {
		return problem(ProblemParameterRejected, errors.New("oauth_body_hash is not base64"), "oauth_body_hash")
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
			return problem(ProblemParameterRejected, errors.New("oauth_body_hash has an unknown length"), "oauth_body_hash")
		}
	}
	if !h.Available() || h.Size() != len(raw) {
		return problem(ProblemParameterRejected, errors.New("oauth_body_hash is not a "+hashName(h)+" hash"), "oauth_body_hash")
	}
	if err := checkHash(h); err != nil {
		return problem(ProblemParameterRejected, err, "oauth_body_hash")
	}
	var body []byte
	if hasBody {
		if body, err = s.readBody(r, limit); err != nil {
			return err
		}
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	if !hmac.Equal(d.Sum(sum[:0]), raw) {
		return &ProblemError{Problem: ProblemSignatureInvalid, Params: []string{"oauth_body_hash"}, Err: errors.New("the body does not match oauth_body_hash")}
	}
	return nil
}
