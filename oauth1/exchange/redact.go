package exchange

import (
	"fmt"
	"log/slog"

	"github.com/countersign/countersign/oauth1/internal/redact"
)

// Format implements fmt.Formatter: every verb prints e with the client
// secret redacted.
func (e TokenExchange) Format(f fmt.State, verb rune) {
	s := fmt.Sprintf("{TokenURL:%s ClientID:%s ClientSecret:%s Scopes:%q SubjectTokenType:%s}",
		e.TokenURL, e.ClientID, redact.Secret(e.ClientSecret), e.Scopes, e.SubjectTokenType)
	redact.Format(f, verb, "exchange.TokenExchange", s, "exchange.TokenExchange"+s)
}

// LogValue implements slog.LogValuer, with the client secret redacted.
func (e TokenExchange) LogValue() slog.Value {
	return slog.GroupValue(slog.String("TokenURL", e.TokenURL), slog.String("ClientID", e.ClientID),
		slog.String("ClientSecret", redact.Secret(e.ClientSecret)), slog.Any("Scopes", e.Scopes))
}

// Format implements fmt.Formatter: every verb prints s with the client
// secret redacted, and its Config as oauth1 prints one, redacted too.
func (s Signed) Format(f fmt.State, verb rune) {
	cfg := "nil"
	if s.Config != nil {
		cfg = fmt.Sprintf("%v", *s.Config)
	}
	str := fmt.Sprintf("{Config:%s URL:%s Method:%s Body:%d ClientID:%s ClientSecret:%s Scopes:%q Names:%+v Extra:%q RefreshURL:%s}",
		cfg, s.URL, s.Method, s.Body, s.ClientID, redact.Secret(s.ClientSecret), s.Scopes, s.Names, s.Extra, s.RefreshURL)
	redact.Format(f, verb, "exchange.Signed", str, "exchange.Signed"+str)
}

// LogValue implements slog.LogValuer, with the secrets redacted.
func (s Signed) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("URL", s.URL), slog.String("ClientID", s.ClientID),
		slog.String("ClientSecret", redact.Secret(s.ClientSecret)), slog.Any("Scopes", s.Scopes), slog.String("RefreshURL", s.RefreshURL)}
	if s.Config != nil {
		attrs = append(attrs, slog.Any("Config", *s.Config))
	}
	return slog.GroupValue(attrs...)
}
