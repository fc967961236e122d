package basestring_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/basestring"
)

// TestKeyRedacted checks that a Key prints its secrets as REDACTED under
// every fmt verb, flag and width, by value, by pointer and inside
// exported fields, slices and maps, and logs them redacted with slog's text
// and JSON handlers.
func TestKeyRedacted(t *testing.T) {
	const cs, ts = "consumer-SECRET-value", "token-SECRET-value"
	k := basestring.Key{ConsumerKey: "ck-ident", ConsumerSecret: cs, Token: "tok-ident", TokenSecret: ts}
	forms := map[string]any{
		"value":  k,
		"ptr":    &k,
		"struct": struct{ X any }{k},
		"slice":  []any{k, &k},
		"map":    map[string]any{"k": k},
	}
	bad := []string{cs, ts, enc(cs), enc(ts), fmt.Sprintf("%x", cs), fmt.Sprintf("%X", ts), "SECRET"}
	check := func(what, got string) {
		t.Helper()
		for _, b := range bad {
			if strings.Contains(got, b) {
				t.Errorf("%s = %q: holds %q", what, got, b)
				return
			}
		}
	}
	for name, x := range forms {
		for _, r := range "abcdefghijklmnoqrstuvxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" {
			for _, flags := range []string{"", "+", "#", "-", " ", "0", "+#", "-40", "40", ".3", "#80", "08.2"} {
				d := "%" + flags + string(r)
				check(fmt.Sprintf("Sprintf(%q, %s)", d, name), fmt.Sprintf(d, x))
			}
		}
	}
	if got, want := fmt.Sprint(k), "{ConsumerKey:ck-ident ConsumerSecret:REDACTED Token:tok-ident TokenSecret:REDACTED PublicKey:nil}"; got != want {
		t.Errorf("Sprint(k) = %q; want %q", got, want)
	}
	if got, want := fmt.Sprintf("%#v", basestring.Key{ConsumerKey: "ck"}), `basestring.Key{ConsumerKey:"ck", ConsumerSecret:"", Token:"", TokenSecret:"", PublicKey:nil}`; got != want {
		t.Errorf("Sprintf(%%#v) = %q; want %q", got, want)
	}
	for _, h := range []struct {
		name string
		new  func(*bytes.Buffer) slog.Handler
	}{
		{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
		{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
	} {
		var buf bytes.Buffer
		slog.New(h.new(&buf)).Info("msg", "k", k, "p", &k, slog.Group("g", "k", k))
		check("slog "+h.name, buf.String())
		if !strings.Contains(buf.String(), "REDACTED") || !strings.Contains(buf.String(), "ck-ident") {
			t.Errorf("slog %s handler wrote %s; want the identifiers and REDACTED", h.name, buf.String())
		}
	}
}

// TestMistakeString checks what a Mistake prints: nothing for the zero
// Mistake, the kinds and the cause otherwise.
func TestMistakeString(t *testing.T) {
	for _, tt := range []struct {
		m    basestring.Mistake
		want string
	}{
		{basestring.Mistake{}, ""},
		{basestring.Mistake{Kind: basestring.SwappedSecrets}, "swapped-secrets"},
		{basestring.Mistake{Kind: basestring.SwappedSecrets, Cause: "the cause"}, "swapped-secrets: the cause"},
		{basestring.Mistake{Kind: basestring.SignatureEncoding, Cause: "two", Also: []basestring.MistakeKind{basestring.WrongHMACHash}}, "signature-encoding+wrong-hmac-hash: two"},
	} {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("%#v.String() = %q; want %q", tt.m, got, tt.want)
		}
		if got := fmt.Sprint(tt.m); got != tt.want {
			t.Errorf("Sprint(%#v) = %q; want %q", tt.m, got, tt.want)
		}
	}
}
