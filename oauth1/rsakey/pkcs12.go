package rsakey

import (
	"crypto/rsa"
	"encoding/asn1"
	"errors"
	"fmt"
	"strings"

	"software.sslmate.com/src/go-pkcs12"
)

// oidPBMAC1 is the MAC algorithm of RFC 9579, which OpenSSL 3.4 writes
// with -pbmac1_pbkdf2.
var oidPBMAC1 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 14}

// pfx is the PFX PDU of RFC 7292 §4, down to the MAC's iteration count.
type pfx struct {
	Version  int
	AuthSafe asn1.RawValue
	MacData  macData `asn1:"optional"`
}

type macData struct {
	Mac struct {
		Algorithm algorithmIdentifier
		Digest    []byte
	}
	MacSalt    []byte
	Iterations int `asn1:"optional,default:1"`
}

// isPKCS12 reports whether data starts like a PFX PDU: a SEQUENCE whose
// first element is the INTEGER 3.
func isPKCS12(data []byte) bool {
	var p struct {
		Version  int
		AuthSafe asn1.RawValue
		MacData  asn1.RawValue `asn1:"optional"`
	}
	_, err := asn1.Unmarshal(data, &p)
	return err == nil && p.Version == 3
}

// checkMAC bounds the work the file's MAC demands. The MAC is checked
// before anything is decrypted, and covers every later iteration count: a
// file that passes it was written by someone who knows the password.
func checkMAC(data []byte) error {
	var p pfx
	if _, err := asn1.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("%w: malformed PKCS #12", ErrFormat)
	}
	alg := p.MacData.Mac.Algorithm
	n := p.MacData.Iterations
	switch {
	case len(alg.Algorithm) == 0:
		return fmt.Errorf("%w: PKCS #12 without a MAC: its contents cannot be checked", ErrUnsupported)
	case alg.Algorithm.Equal(oidPBMAC1):
		var params struct {
			KeyDerivationFunc algorithmIdentifier
			MessageAuthScheme algorithmIdentifier
		}
		var kdf pbkdf2Params
		if _, err := asn1.Unmarshal(alg.Parameters.FullBytes, &params); err != nil {
			return fmt.Errorf("%w: malformed PBMAC1 parameters in PKCS #12", ErrFormat)
		}
		if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil {
			return fmt.Errorf("%w: malformed PBMAC1 parameters in PKCS #12", ErrFormat)
		}
		n = kdf.IterationCount
	}
	if n < 1 || n > maxIterations {
		return fmt.Errorf("%w: PKCS #12 MAC iteration count %d out of range", ErrUnsupported, n)
	}
	return nil
}

// parsePKCS12 reads PKCS #12 files with both the legacy algorithms
// (PBE-SHA1-3DES, RC2, SHA-1 MAC) and OpenSSL 3's defaults (PBES2 with
// PBKDF2 and AES-256-CBC, SHA-256 MAC).
func parsePKCS12(data []byte, password string) (*rsa.PrivateKey, error) {
	if err := checkMAC(data); err != nil {
		return nil, err
	}
	for _, r := range password {
		if r > 0xFFFF {
			// RFC 7292 appendix B.1 encodes passwords as BMPString.
			return nil, fmt.Errorf("%w: PKCS #12 file (its password cannot hold characters beyond U+FFFF)", ErrIncorrectPassword)
		}
	}
	key, _, _, err := pkcs12.DecodeChain(data, password)
	var notImpl pkcs12.NotImplementedError
	switch {
	case errors.Is(err, pkcs12.ErrIncorrectPassword), errors.Is(err, pkcs12.ErrDecryption):
		if password == "" {
			return nil, fmt.Errorf("%w: PKCS #12 file", ErrPasswordRequired)
		}
		return nil, fmt.Errorf("%w: PKCS #12 file", ErrIncorrectPassword)
	case errors.As(err, &notImpl):
		return nil, fmt.Errorf("%w: PKCS #12 (%v)", ErrUnsupported, err)
	case err != nil && strings.Contains(err.Error(), "certificate missing"):
		return nil, fmt.Errorf("%w: PKCS #12 file without a certificate; re-export it with the key's certificate "+
			"(`openssl pkcs12 -export -inkey KEY -in CERT`)", ErrUnsupported)
	case err != nil && strings.Contains(err.Error(), "unknown algorithm"):
		return nil, &KeyTypeError{Type: "non-RSA"} // such as DSA, which crypto/x509 does not parse
	case err != nil:
		// go-pkcs12's messages name structures and algorithms, never key bytes.
		return nil, fmt.Errorf("%w: malformed PKCS #12: %v", ErrFormat, err)
	}
	return asRSA(key)
}
