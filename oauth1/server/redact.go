package server

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/countersign/countersign/oauth1/internal/redact"
)

var (
	_ fmt.Formatter  = Registration{}
	_ slog.LogValuer = Registration{}
)

// String and GoString redact Secret, as oauth1.Credentials' do, so that a Registration
// can be logged with any fmt verb.
func (c Registration) String() string {
	return "{Secret:" + redact.Secret(c.Secret) + " PublicKey:" + redact.PublicKey(c.PublicKey) + "}"
}

func (c Registration) GoString() string {
	return "server.Registration{Secret:" + redact.Secret(c.Secret) + ", PublicKey:" + redact.PublicKey(c.PublicKey) + "}"
}

// Format implements [fmt.Formatter], as [oauth1.Credentials.Format] does.
func (c Registration) Format(f fmt.State, verb rune) {
	redact.Format(f, verb, "server.Registration", c.String(), c.GoString())
}

// LogValue implements [slog.LogValuer].
func (c Registration) LogValue() slog.Value {
	return slog.GroupValue(slog.String("Secret", redact.Secret(c.Secret)), slog.String("PublicKey", redact.PublicKey(c.PublicKey)))
}

// MarshalJSON writes the redacted form: a Registration is looked up from a
// store, never stored from its JSON.
func (c Registration) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ Secret, PublicKey string }{redact.Secret(c.Secret), redact.PublicKey(c.PublicKey)})
}
