package rsakey

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/asn1"
	"errors"
	"fmt"
	"hash"
)

// Object identifiers of RFC 8018 (PKCS #5 v2.1) and NIST's AES modes.
var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
)

// maxIterations bounds the PBKDF2 work an input file can demand before its
// password is checked. OpenSSL 3 writes 2048 iterations, Java 10000.
const maxIterations = 1 << 20

type algorithmIdentifier struct {
	Algorithm  asn1.ObjectIdentifier
	Parameters asn1.RawValue `asn1:"optional"`
}

// encryptedPrivateKeyInfo is RFC 5958 §3.
type encryptedPrivateKeyInfo struct {
	Algorithm     algorithmIdentifier
	EncryptedData []byte
}

// pbes2Params is RFC 8018 appendix A.4.
type pbes2Params struct {
	KeyDerivationFunc algorithmIdentifier
	EncryptionScheme  algorithmIdentifier
}

// pbkdf2Params is RFC 8018 appendix A.2; only the "specified" salt choice
// exists in practice.
type pbkdf2Params struct {
	Salt           []byte
	IterationCount int
	KeyLength      int                 `asn1:"optional"`
	PRF            algorithmIdentifier `asn1:"optional"`
}

// parseEncryptedPKCS8 decrypts an "ENCRYPTED PRIVATE KEY" block: PBES2 with
// PBKDF2 (HMAC-SHA1/256/512) and AES-CBC, which is what OpenSSL 3's
// `openssl pkcs8 -topk8` and `openssl genpkey -aes256` write.
func parseEncryptedPKCS8(der []byte, password string) (*rsa.PrivateKey, error) {
	var info encryptedPrivateKeyInfo
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, fmt.Errorf("%w: malformed encrypted PKCS #8", ErrFormat)
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("%w: encrypted PKCS #8 with scheme %v; only PBES2 is supported: "+
			"re-encrypt it with `openssl pkcs8 -topk8 -v2 aes-256-cbc`", ErrUnsupported, info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, fmt.Errorf("%w: malformed PBES2 parameters", ErrFormat)
	}
	if !params.KeyDerivationFunc.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("%w: PBES2 key derivation %v; only PBKDF2 is supported",
			ErrUnsupported, params.KeyDerivationFunc.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KeyDerivationFunc.Parameters.FullBytes, &kdf); err != nil {
		return nil, fmt.Errorf("%w: malformed PBKDF2 parameters", ErrFormat)
	}
	var prf func() hash.Hash
	switch alg := kdf.PRF.Algorithm; {
	case len(alg) == 0, alg.Equal(oidHMACSHA1): // RFC 8018's DEFAULT
		prf = sha1.New
	case alg.Equal(oidHMACSHA256):
		prf = sha256.New
	case alg.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("%w: PBKDF2 pseudorandom function %v", ErrUnsupported, alg)
	}
	var keyLen int
	switch alg := params.EncryptionScheme.Algorithm; {
	case alg.Equal(oidAES128CBC):
		keyLen = 16
	case alg.Equal(oidAES192CBC):
		keyLen = 24
	case alg.Equal(oidAES256CBC):
		keyLen = 32
	default:
		return nil, fmt.Errorf("%w: PBES2 cipher %v; only AES-CBC is supported: "+
			"re-encrypt it with `openssl pkcs8 -topk8 -v2 aes-256-cbc`", ErrUnsupported, alg)
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != keyLen {
		return nil, fmt.Errorf("%w: PBKDF2 key length %d does not fit the cipher", ErrFormat, kdf.KeyLength)
	}
	if kdf.IterationCount < 1 || kdf.IterationCount > maxIterations {
		return nil, fmt.Errorf("%w: PBKDF2 iteration count %d out of range", ErrUnsupported, kdf.IterationCount)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.EncryptionScheme.Parameters.FullBytes, &iv); err != nil || len(iv) != aes.BlockSize {
		return nil, fmt.Errorf("%w: malformed AES-CBC parameters", ErrFormat)
	}
	data := info.EncryptedData
	if len(data) == 0 || len(data)%aes.BlockSize != 0 {
		return nil, fmt.Errorf("%w: encrypted PKCS #8 length is not a multiple of the AES block size", ErrFormat)
	}
	if password == "" {
		return nil, fmt.Errorf("%w: encrypted PKCS #8", ErrPasswordRequired)
	}

	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.IterationCount, keyLen)
	if err != nil { // only in FIPS 140-3 mode, for short passwords or salts
		return nil, fmt.Errorf("%w: PBKDF2 refused the parameters", ErrUnsupported)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("rsakey: %w", err) // unreachable: keyLen is 16, 24 or 32
	}
	plain := make([]byte, len(data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(plain, data)
	plain, ok := unpad(plain)
	if !ok {
		// Without a MAC, bad padding is how a wrong password shows.
		return nil, fmt.Errorf("%w: encrypted PKCS #8", ErrIncorrectPassword)
	}
	k, err := parseDER(plain)
	if errors.Is(err, ErrFormat) {
		// Correct-looking padding by chance (about 1 in 256) over garbage.
		return nil, fmt.Errorf("%w: encrypted PKCS #8", ErrIncorrectPassword)
	}
	return k, err
}

// unpad removes PKCS #7 padding (RFC 5652 §6.3). It compares in constant
// time because the bytes are decrypted key material.
func unpad(b []byte) ([]byte, bool) {
	n := int(b[len(b)-1])
	if n == 0 || n > aes.BlockSize || n > len(b) {
		return nil, false
	}
	pad := b[len(b)-n:]
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(n)
	}
	if subtle.ConstantTimeCompare(pad, want) != 1 {
		return nil, false
	}
	return b[:len(b)-n], true
}
