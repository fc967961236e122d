package oauth1

import (
	"crypto"
	"crypto/rsa"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/oauth1/internal/redact"
)

// The types that hold secrets or keys (Credentials, Config and RSA) print
// and log themselves redacted. Each implements [fmt.Formatter], so that
// every verb, flag and width prints the redacted text (%v, %s, %q, %x and %X
// as a string; %#v in Go syntax; any other verb as fmt prints a bad verb:
// %!d(oauth1.Credentials={Token:k Secret:REDACTED}); a field that holds
// a control character or invalid UTF-8, such as a token a hostile provider
// sent, is printed quoted, so that it cannot forge a log line), and
// [slog.LogValuer], so that slog's text and JSON handlers log the same
// fields. A struct,
// slice or map that holds one prints it redacted too, as long as the field
// is exported: fmt prints unexported fields without calling methods. So does
// fmt's bad-verb path, taken by %p with an operand that is not a pointer and
// by %w with one that is not an error: it prints the fields as they are, and
// go vet's printf check reports both.
//
// JSON is a serialization, not a log format: encoding/json writes
// Credentials and Config as they are, secrets included, and leaves out
// keys (Config.Signer, RSA.Key). slog's JSON handler calls LogValue on the
// value it is given, but encodes a struct or slice that merely holds one
// with encoding/json.

var (
	_ fmt.Formatter  = Credentials{}
	_ slog.LogValuer = Credentials{}
	_ fmt.Formatter  = Config{}
	_ slog.LogValuer = Config{}
	_ fmt.Formatter  = RSA{}
	_ slog.LogValuer = RSA{}
)

// Format implements [fmt.Formatter]: every verb prints the token with the
// secret redacted.
func (c Credentials) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.Credentials", c.text(), c.goText())
}

// LogValue implements [slog.LogValuer]: a group of Token and the redacted
// Secret.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("Token", c.Token), slog.String("Secret", redact.Secret(c.Secret)))
}

func (c Credentials) text() string {
	return "{Token:" + redact.Field(c.Token) + " Secret:" + redact.Secret(c.Secret) + "}"
}

func (c Credentials) goText() string {
	return "oauth1.Credentials{Token:" + strconv.Quote(c.Token) + ", Secret:" + redact.Secret(c.Secret) + "}"
}

// Format implements [fmt.Formatter]: the consumer secret is redacted and
// the signature method named without its key.
func (c Config) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.Config", c.text(), c.goText())
}

// LogValue implements [slog.LogValuer].
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("ConsumerKey", c.ConsumerKey),
		slog.String("ConsumerSecret", redact.Secret(c.ConsumerSecret)),
		slog.String("Signer", signerText(c.Signer)),
		slog.String("Realm", c.Realm),
		slog.String("Delivery", c.Delivery.text()),
		slog.String("RequestTokenURL", urlText(c.Endpoint.RequestTokenURL)),
		slog.String("AuthorizeURL", urlText(c.Endpoint.AuthorizeURL)),
		slog.String("AccessTokenURL", urlText(c.Endpoint.AccessTokenURL)),
	)
}

func (c Config) text() string {
	return "{ConsumerKey:" + redact.Field(c.ConsumerKey) + " ConsumerSecret:" + redact.Secret(c.ConsumerSecret) + " Signer:" + signerText(c.Signer) +
		" Realm:" + redact.Field(c.Realm) + " Delivery:" + c.Delivery.text() +
		" Endpoint:{" + urlText(c.Endpoint.RequestTokenURL) + " " + urlText(c.Endpoint.AuthorizeURL) + " " +
		urlText(c.Endpoint.AccessTokenURL) + " " + c.Endpoint.TokenMethod + "}" +
		" Callback:" + urlText(c.Callback) + " HTTPClient:" + clientText(c) + "}"
}

func (c Config) goText() string {
	return "oauth1.Config{ConsumerKey:" + strconv.Quote(c.ConsumerKey) + ", ConsumerSecret:" + redact.Secret(c.ConsumerSecret) + ", Signer:" + signerText(c.Signer) +
		", Realm:" + strconv.Quote(c.Realm) + ", Delivery:" + c.Delivery.text() + ", ...}"
}

// Format implements [fmt.Formatter]: the method and the key's size, never
// the key.
func (s RSA) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.RSA", s.text(), s.goText())
}

// LogValue implements [slog.LogValuer].
func (s RSA) LogValue() slog.Value {
	return slog.GroupValue(slog.String("Key", signingKeyText(s)), slog.String("Hash", hashText(s.Hash)))
}

func (s RSA) text() string {
	return "{Key:" + signingKeyText(s) + " Hash:" + hashText(s.Hash) + "}"
}

func (s RSA) goText() string {
	return "oauth1.RSA{Key:" + signingKeyText(s) + ", Hash:" + hashGoText(s.Hash) + "}"
}

// signerText names a signature method without its key.
func signerText(s Signer) string {
	switch s := s.(type) {
	case nil:
		return "nil"
	case RSA:
		return s.text()
	case *RSA:
		if s != nil {
			return s.text()
		}
	case HMAC:
		return hmacText(s)
	case *HMAC:
		if s != nil {
			return hmacText(*s)
		}
	case Plaintext, *Plaintext:
		return s.SignatureMethod()
	}
	return fmt.Sprintf("%T", s) // a Signer of the caller's: its fields are its own
}

// hmacText names an HMAC method with its ConsumerSecretOnly quirk, if set:
// it changes the key, so a printed Config must show it (it is no secret).
func hmacText(s HMAC) string {
	if s.ConsumerSecretOnly {
		return s.SignatureMethod() + "(ConsumerSecretOnly)"
	}
	return s.SignatureMethod()
}

func signingKeyText(s RSA) string {
	switch k := s.Key.(type) {
	case nil:
		return "nil"
	case *rsa.PrivateKey:
		if k != nil {
			return redact.PublicKey(&k.PublicKey)
		}
	}
	// Public is not called: an HSM's or KMS's key may go to the network.
	return fmt.Sprintf("%T", s.Key)
}

func clientText(c Config) string {
	if c.HTTPClient == nil {
		return "nil"
	}
	return "set"
}

// urlText returns a URL with its password, if any, replaced by "xxxxx".
func urlText(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

func hashText(h crypto.Hash) string {
	if h == 0 {
		return "SHA-1" // the zero value signs RSA-SHA1
	}
	return mac.HashName(h) // h.String() panics on a value crypto does not know
}

// hashGoText is h as Go source writes it: crypto.SHA1 for the zero value,
// whose method it is.
func hashGoText(h crypto.Hash) string {
	switch h {
	case 0, crypto.SHA1:
		return "crypto.SHA1"
	case crypto.SHA256:
		return "crypto.SHA256"
	case crypto.SHA512:
		return "crypto.SHA512"
	}
	return "crypto.Hash(" + strconv.Itoa(int(h)) + ")"
}
