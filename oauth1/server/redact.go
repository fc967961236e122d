package server

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/countersign/countersign/oauth1/internal/redact"
)

// Registration, TemporaryCredentials and TokenCredentials print and log
// themselves redacted, as oauth1.Credentials does: each implements
// [fmt.Formatter], so that every fmt verb, flag and width prints the
// secrets (and a verification code) as REDACTED and quotes a field that
// holds a control character or invalid UTF-8, and [slog.LogValuer], so
// that slog's text and JSON handlers do too. slog calls LogValue only on
// the value it is given: it encodes a slice, a map or a struct that holds
// one with encoding/json, and formats it with fmt's %+v in text. So
// encoding/json leaves the secrets and the verification code out, in both
// directions (their fields are tagged `json:"-"`): a []TokenCredentials or
// a map of TemporaryCredentials logged with slog's JSON handler, or
// written by an API, holds no secret. A store keeps these fields itself, as
// redisstore does, or with encoding/gob, which writes every field.

var (
	_ fmt.Formatter  = Registration{}
	_ slog.LogValuer = Registration{}
	_ fmt.Formatter  = TemporaryCredentials{}
	_ slog.LogValuer = TemporaryCredentials{}
	_ fmt.Formatter  = TokenCredentials{}
	_ slog.LogValuer = TokenCredentials{}
)

// Format implements [fmt.Formatter]: Secret is redacted and the public key
// named by its size.
// CallbackSchemes and Callbacks, which hold no secret, are printed when
// they are not empty.
func (c Registration) Format(f fmt.State, verb rune) {
	plain, gosyntax := "", ""
	for _, l := range []struct {
		name string
		list []string
	}{{"CallbackSchemes", c.CallbackSchemes}, {"Callbacks", c.Callbacks}} {
		if len(l.list) == 0 {
			continue
		}
		fields := make([]string, len(l.list))
		for i, s := range l.list {
			fields[i] = redact.Field(s)
		}
		plain += fmt.Sprintf(" %s:%v", l.name, fields)
		gosyntax += fmt.Sprintf(", %s:%#v", l.name, l.list)
	}
	redact.Format(f, verb, "server.Registration",
		"{Secret:"+redact.Secret(c.Secret)+" PublicKey:"+redact.PublicKey(c.PublicKey)+plain+"}",
		"server.Registration{Secret:"+redact.Secret(c.Secret)+", PublicKey:"+redact.PublicKey(c.PublicKey)+gosyntax+"}")
}

// LogValue implements [slog.LogValuer].
func (c Registration) LogValue() slog.Value {
	attrs := []slog.Attr{slog.String("Secret", redact.Secret(c.Secret)), slog.String("PublicKey", redact.PublicKey(c.PublicKey))}
	if len(c.CallbackSchemes) > 0 {
		attrs = append(attrs, slog.Any("CallbackSchemes", c.CallbackSchemes))
	}
	if len(c.Callbacks) > 0 {
		attrs = append(attrs, slog.Any("Callbacks", c.Callbacks))
	}
	return slog.GroupValue(attrs...)
}

// Format implements [fmt.Formatter]: Secret and VerificationCode are
// redacted. Scope is printed when it is not empty.
func (t TemporaryCredentials) Format(f fmt.State, verb rune) {
	plain, gosyntax := scopeFields(t.Scope)
	redact.Format(f, verb, "server.TemporaryCredentials",
		"{Token:"+redact.Field(t.Token)+" Secret:"+redact.Secret(t.Secret)+" ConsumerKey:"+redact.Field(t.ConsumerKey)+
			" Callback:"+redact.Field(t.Callback)+" Expires:"+t.Expires.Format(time.RFC3339)+" User:"+redact.Field(t.User)+
			" VerificationCode:"+redact.Secret(t.VerificationCode)+plain+"}",
		"server.TemporaryCredentials{Token:"+strconv.Quote(t.Token)+", Secret:"+redact.Secret(t.Secret)+
			", ConsumerKey:"+strconv.Quote(t.ConsumerKey)+", Callback:"+strconv.Quote(t.Callback)+
			", Expires:"+strconv.Quote(t.Expires.Format(time.RFC3339))+", User:"+strconv.Quote(t.User)+
			", VerificationCode:"+redact.Secret(t.VerificationCode)+gosyntax+"}")
}

// scopeFields returns the Scope field of a record as Format prints it,
// plain and in Go syntax, or nothing for an empty scope.
func scopeFields(scope string) (plain, gosyntax string) {
	if scope == "" {
		return "", ""
	}
	return " Scope:" + redact.Field(scope), ", Scope:" + strconv.Quote(scope)
}

// LogValue implements [slog.LogValuer].
func (t TemporaryCredentials) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("Token", t.Token),
		slog.String("Secret", redact.Secret(t.Secret)),
		slog.String("ConsumerKey", t.ConsumerKey),
		slog.String("Callback", t.Callback),
		slog.Time("Expires", t.Expires),
		slog.String("User", t.User),
		slog.String("VerificationCode", redact.Secret(t.VerificationCode)),
		slog.String("Scope", t.Scope),
	)
}

// Format implements [fmt.Formatter]: Secret is redacted. Scope is printed
// when it is not empty.
func (t TokenCredentials) Format(f fmt.State, verb rune) {
	plain, gosyntax := scopeFields(t.Scope)
	redact.Format(f, verb, "server.TokenCredentials",
		"{Token:"+redact.Field(t.Token)+" Secret:"+redact.Secret(t.Secret)+" ConsumerKey:"+redact.Field(t.ConsumerKey)+" User:"+redact.Field(t.User)+plain+"}",
		"server.TokenCredentials{Token:"+strconv.Quote(t.Token)+", Secret:"+redact.Secret(t.Secret)+
			", ConsumerKey:"+strconv.Quote(t.ConsumerKey)+", User:"+strconv.Quote(t.User)+gosyntax+"}")
}

// LogValue implements [slog.LogValuer].
func (t TokenCredentials) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("Token", t.Token),
		slog.String("Secret", redact.Secret(t.Secret)),
		slog.String("ConsumerKey", t.ConsumerKey),
		slog.String("User", t.User),
		slog.String("Scope", t.Scope),
	)
}
