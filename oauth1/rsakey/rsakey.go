package rsakey

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

var (
	// ErrFormat means the input is empty, garbage, truncated, or holds no
	// key of the kind asked for: no private key for Parse (a certificate or
	// a public key alone, for example), no public key or certificate for
	// ParsePublic.
	ErrFormat = errors.New("rsakey: no key found")

	// ErrPasswordRequired means the key is encrypted and the password
	// passed to Parse was empty.
	ErrPasswordRequired = errors.New("rsakey: key is encrypted and no password was given")

	// ErrIncorrectPassword means the key is encrypted and the password
	// passed to Parse does not decrypt it.
	ErrIncorrectPassword = errors.New("rsakey: incorrect password")

	// ErrUnsupported means the key is in a recognised container whose
	// encryption this package cannot read. The wrapping message says how to
	// convert the file.
	ErrUnsupported = errors.New("rsakey: unsupported key encryption")
)

// A KeyTypeError reports a key that was read successfully but is not an RSA
// key, so it cannot sign or verify with RSA-SHA1/256/512.
type KeyTypeError struct {
	Type   string // the key found, such as "ECDSA P-256", "Ed25519" or "DSA"
	Public bool   // a public key, from ParsePublic
}

func (e *KeyTypeError) Error() string {
	kind := " private key"
	if e.Public {
		kind = " public key"
	}
	return "rsakey: found " + e.Type + kind + ", want RSA"
}

// Parse returns the RSA private key held in data, in any of the formats
// listed in the package documentation. Parse looks at the first PEM block
// whose type ends in "PRIVATE KEY" and skips other blocks, such as
// certificates; input without PEM armour is read as DER.
//
// The password decrypts OpenSSH, encrypted PKCS #8 and PKCS #12 keys. It is
// ignored for unencrypted keys, so a caller may always pass the one it has.
// An encrypted key with an empty password gives [ErrPasswordRequired].
func Parse(data []byte, password string) (*rsa.PrivateKey, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty input", ErrFormat)
	}
	block, others := findPEM(data)
	switch {
	case block != nil:
		return parsePEM(block, password)
	case len(others) > 0:
		return nil, noKeyInPEM(others)
	case isPKCS12(data):
		return parsePKCS12(data, password)
	}
	if key, err := parseDER(data); !errors.Is(err, ErrFormat) {
		return key, err
	}
	return nil, fmt.Errorf("%w: input is neither PEM, PKCS #1, PKCS #8 nor PKCS #12", ErrFormat)
}

// findPEM returns the first PEM block holding a private key, or the types of
// the other PEM blocks in data if there is none.
func findPEM(data []byte) (key *pem.Block, others []string) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, others
		}
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			return block, nil
		}
		others = append(others, block.Type)
	}
}

func noKeyInPEM(types []string) error {
	for _, t := range types {
		if strings.HasSuffix(t, "PUBLIC KEY") {
			return fmt.Errorf("%w: PEM block %q is a public key; signing needs the private key", ErrFormat, t)
		}
	}
	return fmt.Errorf("%w: PEM input has only %q blocks", ErrFormat, types)
}

func parsePEM(block *pem.Block, password string) (*rsa.PrivateKey, error) {
	if _, ok := block.Headers["DEK-Info"]; ok || block.Headers["Proc-Type"] == "4,ENCRYPTED" {
		// x509.DecryptPEMBlock is deprecated: RFC 1423 encryption has no
		// integrity check, so a wrong password can yield a wrong key.
		return nil, fmt.Errorf("%w: legacy PEM encryption (Proc-Type: 4,ENCRYPTED) is insecure; "+
			"convert the key to encrypted PKCS #8 with `openssl pkcs8 -topk8 -v2 aes-256-cbc -in OLD -out NEW`", ErrUnsupported)
	}
	switch block.Type {
	case "RSA PRIVATE KEY", "PRIVATE KEY":
		key, err := parseDER(block.Bytes)
		if errors.Is(err, ErrFormat) {
			return nil, fmt.Errorf("%w: malformed PEM block %q", ErrFormat, block.Type)
		}
		return key, err
	case "OPENSSH PRIVATE KEY":
		return parseOpenSSH(block, password)
	case "ENCRYPTED PRIVATE KEY":
		return parseEncryptedPKCS8(block.Bytes, password)
	case "EC PRIVATE KEY":
		if key, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
			return nil, &KeyTypeError{Type: keyType(key)}
		}
		return nil, &KeyTypeError{Type: "ECDSA"}
	case "DSA PRIVATE KEY":
		return nil, &KeyTypeError{Type: "DSA"}
	}
	return nil, fmt.Errorf("%w: unknown PEM block type %q", ErrFormat, block.Type)
}

// parseDER reads PKCS #8 or PKCS #1 DER whatever the PEM label says, since
// some tools write one under the other's label.
func parseDER(der []byte) (*rsa.PrivateKey, error) {
	if key, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return asRSA(key)
	}
	if key, err := x509.ParsePKCS1PrivateKey(der); err == nil {
		return key, nil
	}
	if key, err := x509.ParseECPrivateKey(der); err == nil {
		return nil, &KeyTypeError{Type: keyType(key)}
	}
	return nil, ErrFormat
}

// maxOpenSSHRounds bounds the bcrypt work an encrypted OpenSSH key can
// demand before its password is checked: each round costs about 10 ms, and
// ssh-keygen writes 16 unless told otherwise (-a).
const maxOpenSSHRounds = 64

// openSSHRounds returns the bcrypt rounds of an OpenSSH private key
// ("openssh-key-v1", PROTOCOL.key in OpenSSH's sources), or 0 when it names
// no bcrypt KDF or cannot be read; the ssh package reports a malformed key.
func openSSHRounds(b []byte) uint32 {
	const magic = "openssh-key-v1\x00"
	if !bytes.HasPrefix(b, []byte(magic)) {
		return 0
	}
	b = b[len(magic):]
	next := func() []byte { // an SSH string: uint32 length, then bytes
		if len(b) < 4 || uint64(binary.BigEndian.Uint32(b)) > uint64(len(b)-4) {
			b = nil
			return nil
		}
		n := binary.BigEndian.Uint32(b)
		v := b[4 : 4+n]
		b = b[4+n:]
		return v
	}
	next() // cipher name
	if string(next()) != "bcrypt" {
		return 0
	}
	b = next() // KDF options: salt, then rounds
	next()
	if len(b) < 4 {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func parseOpenSSH(block *pem.Block, password string) (*rsa.PrivateKey, error) {
	if n := openSSHRounds(block.Bytes); n > maxOpenSSHRounds {
		return nil, fmt.Errorf("%w: OpenSSH key encrypted with %d bcrypt rounds, more than %d; re-encrypt it with `ssh-keygen -p -a 16 -f KEY`", ErrFormat, n, maxOpenSSHRounds)
	}
	data := pem.EncodeToMemory(block)
	key, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if password == "" {
			return nil, fmt.Errorf("%w: OpenSSH key", ErrPasswordRequired)
		}
		key, err = ssh.ParseRawPrivateKeyWithPassphrase(data, []byte(password))
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, fmt.Errorf("%w: OpenSSH key", ErrIncorrectPassword)
		}
	}
	if err != nil {
		// The ssh package's messages name ciphers and key types, never key bytes.
		return nil, fmt.Errorf("%w: OpenSSH key: %v", ErrFormat, err)
	}
	return asRSA(key)
}

func asRSA(key any) (*rsa.PrivateKey, error) {
	if k, ok := key.(*rsa.PrivateKey); ok {
		return k, nil
	}
	return nil, &KeyTypeError{Type: keyType(key)}
}

// keyType names a private key for KeyTypeError.
func keyType(key any) string {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case ed25519.PrivateKey, *ed25519.PrivateKey:
		return "Ed25519"
	case *ecdh.PrivateKey:
		return "ECDH " + fmt.Sprint(k.Curve())
	}
	return fmt.Sprintf("%T", key) // e.g. *dsa.PrivateKey from an OpenSSH file
}
