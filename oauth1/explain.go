package oauth1

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// This file explains a signature_invalid refusal on the client's side: a
// provider that sends back the base string it computed (a sandbox's
// server.Verifier with SendBaseString does) lets the client compare it
// with the one it signed, and name the first difference.

// baseStringParam is the problem report parameter that carries the
// provider's base string.
const baseStringParam = "oauth_signature_base_string"

// sentKey is the context key of the record a Transport adds to
// resp.Request of a refused request it signed (a status of 400 or more),
// where CheckResponse finds it.
type sentKey struct{}

// A sentRecord is what a Transport signed: the base string, and the
// Config and token it signed with, whose secrets a provider's base string
// must not hold (see setBaseString).
type sentRecord struct {
	base string
	c    *Config
	tok  *Credentials
}

// sentOf returns the record of the request resp answers, or nil.
func sentOf(resp *http.Response) *sentRecord {
	if resp.Request == nil {
		return nil
	}
	rec, _ := resp.Request.Context().Value(sentKey{}).(*sentRecord)
	return rec
}

// withSent returns ctx with rec in it.
func withSent(ctx context.Context, rec *sentRecord) context.Context {
	return context.WithValue(ctx, sentKey{}, rec)
}

// setBaseString takes the provider's base string from body, the whole
// body of a refusal (never a part of it: a base string cut short would be
// compared as one), and, when signed (the base string the client signed)
// is known, describes how they differ for Error. secrets are those the
// request was signed with.
//
// A base string is the method, URL and parameters of the request: it never
// holds oauth_signature, which §3.4.1.3.1 leaves out, nor a secret. One
// that holds oauth_signature, oauth_token_secret, or any spelling of the
// secrets is not a base string as this package computes them: it is
// dropped, as a body that names oauth_token_secret is.
func (e *ResponseError) setBaseString(body []byte, signed string, secrets ...string) {
	if e.Problem != ProblemSignatureInvalid {
		return
	}
	var base string
	for _, kv := range strings.Split(string(body), "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k != baseStringParam {
			continue
		}
		d, err := percent.DecodeForm(v)
		if err != nil || base != "" {
			return // malformed, or sent twice: which one would be the provider's?
		}
		base = d
	}
	if base == "" || ascii.IndexFold([]byte(base), "oauth_token_secret") >= 0 || !bytes.Equal(scrubEcho([]byte(base), secrets...), []byte(base)) {
		return
	}
	e.BaseString = base
	if signed != "" {
		e.diagnosis = diagnose(base, signed)
	}
}

// diagnose names the first difference between the provider's base string
// and the one the client signed, as "oauth1 diff" does.
func diagnose(provider, signed string) string {
	ds := basestring.Diff(provider, signed)
	if len(ds) == 0 {
		return "the provider's base string is the one signed, so the key or the signature's encoding differs: " +
			"the secrets, or how the client used them (an empty token secret, the secrets swapped, a trailing newline, ...)"
	}
	d := ds[0]
	var b strings.Builder
	b.WriteString("the provider's base string differs from the one signed: ")
	b.WriteString(d.Kind.String())
	if d.Name != "" {
		b.WriteString(" " + strconv.Quote(d.Name))
	}
	if sensitiveName(d.Name) {
		// A cause may quote part of the value.
		b.WriteString(" (its value is left out: it may be a password)")
	} else {
		b.WriteString(": " + d.Cause)
	}
	if n := len(ds) - 1; n > 0 {
		b.WriteString("; " + strconv.Itoa(n) + " more difference")
		if n > 1 {
			b.WriteString("s")
		}
		b.WriteString(" in ResponseError.BaseString")
	}
	return b.String()
}

// sensitiveName reports whether the parameter name looks like one whose
// value is a credential, such as xAuth's x_auth_password.
func sensitiveName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"password", "passwd", "secret", "credential"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
