package basestring

import (
	"fmt"
	"log/slog"
	"strconv"

	"github.com/countersign/countersign/oauth1/internal/redact"
)

// A Key prints and logs itself with its secrets redacted, as
// oauth1.Credentials does: every fmt verb, flag and width prints the
// identifiers, REDACTED for each secret set (`""` for one that is not) and
// the public key by its size; slog logs the same fields.

var (
	_ fmt.Formatter  = Key{}
	_ slog.LogValuer = Key{}
)

// Format implements [fmt.Formatter]: every verb prints the consumer key and
// the token, with the secrets redacted.
func (k Key) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "basestring.Key", k.text(), k.goText())
}

// LogValue implements [slog.LogValuer]: a group of the fields, with the
// secrets redacted.
func (k Key) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("ConsumerKey", k.ConsumerKey),
		slog.String("ConsumerSecret", redact.Secret(k.ConsumerSecret)),
		slog.String("Token", k.Token),
		slog.String("TokenSecret", redact.Secret(k.TokenSecret)),
		slog.String("PublicKey", redact.PublicKey(k.PublicKey)),
	)
}

func (k Key) text() string {
	return "{ConsumerKey:" + k.ConsumerKey + " ConsumerSecret:" + redact.Secret(k.ConsumerSecret) +
		" Token:" + k.Token + " TokenSecret:" + redact.Secret(k.TokenSecret) + " PublicKey:" + redact.PublicKey(k.PublicKey) + "}"
}

func (k Key) goText() string {
	return "basestring.Key{ConsumerKey:" + strconv.Quote(k.ConsumerKey) + ", ConsumerSecret:" + redact.Secret(k.ConsumerSecret) +
		", Token:" + strconv.Quote(k.Token) + ", TokenSecret:" + redact.Secret(k.TokenSecret) + ", PublicKey:" + redact.PublicKey(k.PublicKey) + "}"
}
