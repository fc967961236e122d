package oauth1

import (
	"crypto"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"github.com/countersign/countersign/oauth1/internal/redact"
	"log/slog"
	"net/url"
	"strconv"
)

// The types that hold secrets or keys print and log themselves redacted.
// Each implements [fmt.Formatter], so that every verb, flag and width prints
// the redacted text (a verb other than %v, %s, %q, %x and %X prints it as
// fmt prints a bad verb: %!d(oauth1.Credentials={Token:k Secret:REDACTED})),
// and [slog.LogValuer], so that slog's handlers log the same fields. A
// struct or slice that holds one prints it redacted too, as long as the
// field is exported: fmt prints unexported fields without calling methods.
// So does fmt's bad-verb path, taken by %p with an operand that is not a
// pointer and by %w with one that is not an error (fmt.Errorf("%w", tok)):
// it prints the fields as they are, and go vet's printf check reports both.

var (
	_ fmt.Formatter  = Credentials{}
	_ slog.LogValuer = Credentials{}
	_ fmt.Formatter  = Config{}
	_ slog.LogValuer = Config{}
	_ fmt.Formatter  = (*Transport)(nil)
	_ slog.LogValuer = (*Transport)(nil)
	_ fmt.Formatter  = RSA{}
	_ slog.LogValuer = RSA{}
)

// String returns the token with the secret redacted. json.Marshal, unlike
// fmt and slog, writes the secret: storing a token is what it is for.
func (c Credentials) String() string {
	return "{Token:" + c.Token + " Secret:" + redact.Secret(c.Secret) + "}"
}

func (c Credentials) GoString() string {
	return "oauth1.Credentials{Token:" + strconv.Quote(c.Token) + ", Secret:" + redact.Secret(c.Secret) + "}"
}

// Format implements [fmt.Formatter]: every verb prints String or, for %#v,
// GoString.
func (c Credentials) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.Credentials", c.String(), c.GoString())
}

// LogValue implements [slog.LogValuer]: a group of Token and the redacted
// Secret.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("Token", c.Token), slog.String("Secret", redact.Secret(c.Secret)))
}

// signerText names a signature method without its key.
func signerText(s Signer) string {
	switch s := s.(type) {
	case nil:
		return "nil"
	case RSA:
		return s.String()
	case *RSA:
		if s != nil {
			return s.String()
		}
	case HMAC, Plaintext, *HMAC, *Plaintext:
		return s.Method()
	}
	return fmt.Sprintf("%T", s) // a Signer of the caller's: its fields are its own
}

// String names the method and the key's size, never the key.
func (s RSA) String() string {
	return "{Key:" + signingKeyText(s) + " Hash:" + hashText(s.Hash) + "}"
}

func (s RSA) GoString() string {
	return "oauth1.RSA{Key:" + signingKeyText(s) + ", Hash:" + hashText(s.Hash) + "}"
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

// Format implements [fmt.Formatter]: no verb prints key material.
func (s RSA) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.RSA", s.String(), s.GoString())
}

// LogValue implements [slog.LogValuer].
func (s RSA) LogValue() slog.Value {
	return slog.GroupValue(slog.String("Key", signingKeyText(s)), slog.String("Hash", hashText(s.Hash)))
}

// MarshalJSON writes the key's size and the hash, never the key.
func (s RSA) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Key, Hash string }{signingKeyText(s), hashText(s.Hash)})
}

// String describes c with the consumer secret redacted and the signature
// method named without its key.
func (c Config) String() string {
	return "{Consumer:" + c.Consumer.String() + " Signer:" + signerText(c.Signer) +
		" Realm:" + c.Realm + " Delivery:" + c.Delivery.String() +
		" Endpoint:{" + urlText(c.Endpoint.RequestTokenURL) + " " + urlText(c.Endpoint.AuthorizeURL) + " " +
		urlText(c.Endpoint.AccessTokenURL) + " " + c.Endpoint.TokenMethod + "}" +
		" Callback:" + urlText(c.Callback) + " HTTPClient:" + clientText(c) + "}"
}

func (c Config) GoString() string {
	return "oauth1.Config{Consumer:" + c.Consumer.GoString() + ", Signer:" + signerText(c.Signer) +
		", Realm:" + strconv.Quote(c.Realm) + ", Delivery:" + c.Delivery.String() + ", ...}"
}

// Format implements [fmt.Formatter], as [Credentials.Format] does.
func (c Config) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.Config", c.String(), c.GoString())
}

// LogValue implements [slog.LogValuer].
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Any("Consumer", c.Consumer),
		slog.String("Signer", signerText(c.Signer)),
		slog.String("Realm", c.Realm),
		slog.String("Delivery", c.Delivery.String()),
		slog.String("RequestTokenURL", urlText(c.Endpoint.RequestTokenURL)),
		slog.String("AccessTokenURL", urlText(c.Endpoint.AccessTokenURL)),
	)
}

// MarshalJSON writes what LogValue logs, so that a Config inside a value
// that slog's JSON handler or encoding/json writes stays redacted.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Consumer                                      struct{ Token, Secret string }
		Signer, Realm, Delivery                       string
		RequestTokenURL, AuthorizeURL, AccessTokenURL string
	}{
		struct{ Token, Secret string }{c.Consumer.Token, redact.Secret(c.Consumer.Secret)},
		signerText(c.Signer), c.Realm, c.Delivery.String(),
		urlText(c.Endpoint.RequestTokenURL), urlText(c.Endpoint.AuthorizeURL), urlText(c.Endpoint.AccessTokenURL),
	})
}

func clientText(c Config) string {
	if c.HTTPClient == nil {
		return "nil"
	}
	return "set"
}

// urlText drops a URL's password, which net/url's Redacted would print as
// "xxxxx".
func urlText(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// String describes t with its secrets redacted. A Transport is not copied
// (it keeps a pool of keyed MACs), so its methods take a pointer; fmt prints
// a Transport value field by field, reaching its Config and Token through
// pointers, whose methods redact them.
func (t *Transport) String() string {
	if t == nil {
		return "<nil>"
	}
	return "{Config:" + configText(t.Config) + " Token:" + tokenText(t.Token) +
		" Base:" + fmt.Sprintf("%T", t.Base) + " RedirectHosts:" + fmt.Sprint(t.RedirectHosts) + "}"
}

func (t *Transport) GoString() string {
	if t == nil {
		return "(*oauth1.Transport)(nil)"
	}
	return "&" + "oauth1.Transport{Config:" + configText(t.Config) + ", Token:" + tokenText(t.Token) + ", ...}"
}

// Format implements [fmt.Formatter], as [Credentials.Format] does.
func (t *Transport) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "oauth1.Transport", t.String(), t.GoString())
}

// LogValue implements [slog.LogValuer].
func (t *Transport) LogValue() slog.Value {
	if t == nil {
		return slog.StringValue("<nil>")
	}
	attrs := []slog.Attr{slog.String("Token", tokenText(t.Token))}
	if t.Config != nil {
		attrs = append(attrs, slog.Any("Config", *t.Config))
	}
	return slog.GroupValue(attrs...)
}

// MarshalJSON writes the redacted form, as [Config.MarshalJSON] does.
func (t *Transport) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	return json.Marshal(struct {
		Config *Config
		Token  string
	}{t.Config, tokenText(t.Token)})
}

func configText(c *Config) string {
	if c == nil {
		return "nil"
	}
	return "&" + c.String()
}

func tokenText(tok *Credentials) string {
	if tok == nil {
		return "nil"
	}
	return "&" + tok.String()
}

func hashText(h crypto.Hash) string {
	if h == 0 {
		return "0" // SHA-1, the zero value's
	}
	return h.String()
}
