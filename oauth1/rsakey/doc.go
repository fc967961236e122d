// Package rsakey loads RSA private keys for the RSA-SHA1, RSA-SHA256 and
// RSA-SHA512 signature methods (RFC 5849 §3.4.3). [Parse] detects the format
// itself and accepts:
//
//   - PEM "RSA PRIVATE KEY": PKCS #1 (RFC 8017 appendix A.1.2), the output of
//     `openssl genrsa -traditional`;
//   - PEM "PRIVATE KEY": PKCS #8 (RFC 5208), the output of
//     `openssl genpkey` and OpenSSL 3's `openssl genrsa`;
//   - PEM "ENCRYPTED PRIVATE KEY": PKCS #8 encrypted with PBES2 (RFC 8018),
//     PBKDF2 and AES-CBC, the output of `openssl pkcs8 -topk8` and
//     `openssl genpkey -aes256`;
//   - PEM "OPENSSH PRIVATE KEY": the format of `ssh-keygen`, with or without
//     a passphrase;
//   - PKCS #12 (RFC 7292) DER, the ".p12" or ".pfx" file some providers
//     (Mastercard among them) issue, protected by a password;
//   - PKCS #1 or PKCS #8 DER without the PEM armour.
//
// PKCS #12 files are read with [software.sslmate.com/src/go-pkcs12], both
// those written with OpenSSL 3's defaults (PBES2, PBKDF2 and AES-256-CBC,
// SHA-256 MAC) and legacy ones (PBE-SHA1-3DES and RC2, SHA-1 MAC, from
// `openssl pkcs12 -legacy` and older tools). A file must hold a certificate
// beside the key, and a MAC.
//
// Deviation: PEM keys in the legacy "Proc-Type: 4,ENCRYPTED" form (RFC 1423,
// insecure by design and deprecated in [crypto/x509]) are rejected with
// [ErrUnsupported]. Convert them to encrypted PKCS #8:
//
//	openssl pkcs8 -topk8 -v2 aes-256-cbc -in old.pem -out new.pem
//
// [ParsePublic] reads the provider's side: a client's RSA public key, as PEM
// "PUBLIC KEY" (PKIX), "RSA PUBLIC KEY" (PKCS #1) or "CERTIFICATE" (X.509),
// or the same in DER. It refuses a modulus over [MaxPublicBits] (8192
// bits), as crypto/tls does, and Parse refuses an OpenSSH key encrypted
// with more than 64 bcrypt rounds before trying its passphrase: the time
// either costs grows with what the file asks for.
//
// This is a separate package so that programs signing with HMAC do not
// depend on golang.org/x/crypto and go-pkcs12.
//
// Errors returned by Parse name the problem and match one of [ErrFormat],
// [ErrPasswordRequired], [ErrIncorrectPassword], [ErrUnsupported] with
// [errors.Is], or are a [*KeyTypeError]. They never contain the password or
// any key material.
package rsakey
