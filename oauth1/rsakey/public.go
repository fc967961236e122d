package rsakey

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// ParsePublic returns the RSA public key held in data, as a provider
// receives it from a client (Jira and others show it as PEM): PEM
// "PUBLIC KEY" (PKIX SubjectPublicKeyInfo, RFC 5280 §4.1, the output of
// `openssl rsa -pubout`), PEM "RSA PUBLIC KEY" (PKCS #1, RFC 8017 appendix
// A.1.1, `openssl rsa -RSAPublicKey_out`) or PEM "CERTIFICATE" (X.509, whose
// subject key is taken; its validity is not checked). ParsePublic uses the
// first such block and skips others; input without PEM armour is read as
// DER of any of the three.
//
// A private key is refused rather than reduced to its public half: it does
// not belong with a provider. So is a key over [MaxPublicBits]. Errors match [ErrFormat] with [errors.Is], or
// are a [*KeyTypeError] with Public set.
func ParsePublic(data []byte) (*rsa.PublicKey, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrFormat)
	}
	var others []string
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		switch t := block.Type; {
		case t == "PUBLIC KEY" || t == "RSA PUBLIC KEY" || t == "CERTIFICATE":
			key, err := parsePublicDER(t, block.Bytes)
			if errors.Is(err, ErrFormat) {
				return nil, fmt.Errorf("%w: malformed PEM block %q", ErrFormat, t)
			}
			return key, err
		case strings.HasSuffix(t, "PRIVATE KEY"):
			return nil, fmt.Errorf("%w: PEM block %q is a private key; a provider needs only the public key "+
				"(`openssl rsa -in KEY -pubout`)", ErrFormat, t)
		}
		others = append(others, block.Type)
	}
	switch {
	case len(others) > 0:
		return nil, fmt.Errorf("%w: PEM input has only %q blocks, want PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", ErrFormat, others)
	case bytes.HasPrefix(data, []byte("ssh-")):
		return nil, fmt.Errorf("%w: OpenSSH public key; convert it with `ssh-keygen -e -m PKCS8 -f KEY.pub`", ErrFormat)
	}
	for _, t := range []string{"PUBLIC KEY", "RSA PUBLIC KEY", "CERTIFICATE"} {
		if key, err := parsePublicDER(t, data); !errors.Is(err, ErrFormat) {
			return key, err
		}
	}
	return nil, fmt.Errorf("%w: input is neither PEM nor DER of a public key or certificate", ErrFormat)
}

// MaxPublicBits is the largest RSA modulus ParsePublic accepts, as crypto/tls
// does: checking a signature costs time that grows with the cube of the
// key's size, and a registered key is chosen by the client. It is the
// bound the signers and the server apply too.
//
// Its value is a promise of v1: every v1.x accepts keys of up to 8192 bits
// and refuses larger ones, the bound crypto/tls keeps, so a key that works
// with one v1 release works with all of them. Only a major version may
// change it.
const MaxPublicBits = 8192

// parsePublicDER reads der as the PEM type t says.
func parsePublicDER(t string, der []byte) (*rsa.PublicKey, error) {
	k, err := parsePublicDERAny(t, der)
	if err == nil && k.N.BitLen() > MaxPublicBits {
		return nil, fmt.Errorf("rsakey: RSA public key of %d bits is larger than %d bits", k.N.BitLen(), MaxPublicBits)
	}
	return k, err
}

func parsePublicDERAny(t string, der []byte) (*rsa.PublicKey, error) {
	var key any
	switch t {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			return nil, ErrFormat
		}
		key = k
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(der)
		if err != nil {
			return nil, ErrFormat
		}
		return k, nil
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(der)
		if err != nil {
			return nil, ErrFormat
		}
		if c.PublicKey == nil { // an algorithm crypto/x509 does not know
			return nil, &KeyTypeError{Type: c.PublicKeyAlgorithm.String(), Public: true}
		}
		key = c.PublicKey
	}
	if k, ok := key.(*rsa.PublicKey); ok {
		return k, nil
	}
	return nil, &KeyTypeError{Type: publicKeyType(key), Public: true}
}

func publicKeyType(key any) string {
	switch k := key.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case ed25519.PublicKey:
		return "Ed25519"
	case *ecdh.PublicKey:
		return "ECDH " + fmt.Sprint(k.Curve())
	}
	if t := fmt.Sprintf("%T", key); t != "*dsa.PublicKey" { // crypto/dsa is deprecated
		return t
	}
	return "DSA"
}
