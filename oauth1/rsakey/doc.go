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
// Deviations: PKCS #12 files are read with [golang.org/x/crypto/pkcs12],
// which knows only the legacy PBE-SHA1-3DES/RC2 algorithms; files written
// with OpenSSL 3's default AES-256-CBC and PBKDF2 are rejected with
// [ErrUnsupported] and must be re-exported with `openssl pkcs12 -legacy`:
//
//	openssl pkcs12 -in old.p12 -nodes -out plain.pem
//	openssl pkcs12 -export -legacy -in plain.pem -out new.p12
//	rm plain.pem # it holds the key unencrypted
//
// PEM keys in the legacy "Proc-Type: 4,ENCRYPTED" form (RFC 1423, insecure by
// design and deprecated in [crypto/x509]) are also rejected with
// [ErrUnsupported]. Convert them to encrypted PKCS #8:
//
//	openssl pkcs8 -topk8 -v2 aes-256-cbc -in old.pem -out new.pem
//
// This is a separate package so that programs signing with HMAC do not
// depend on golang.org/x/crypto.
//
// Errors returned by Parse name the problem and match one of [ErrFormat],
// [ErrPasswordRequired], [ErrIncorrectPassword], [ErrUnsupported] with
// [errors.Is], or are a [*KeyTypeError]. They never contain the password or
// any key material.
package rsakey
