package oauth1

import (
	"context"
)

// A Trace holds hooks that are called as requests are signed, in the manner
// of [net/http/httptrace]: attach one to a request's context with
// [WithTrace], and [Config.Sign], [Config.SignAt], the [Transport] (which
// signs a clone of each request with its context) and the token requests of
// the flow call it for every request they sign. Nil hooks are skipped.
//
// Hooks may be called concurrently from several goroutines, as the requests
// of a Transport are.
type Trace struct {
	// Signed is called after a request is signed and before it is sent,
	// with what was signed: the base string to log, or to compare with the
	// provider's when it answers signature_invalid (see
	// [github.com/countersign/countersign/oauth1/basestring.Diff]).
	Signed func(SignInfo)
}

// SignInfo describes a signed request. It holds neither the consumer or
// token secret nor oauth_signature (which PLAINTEXT makes of the secrets).
// BaseString does hold every signed request parameter, as the request on the
// wire does: an xAuth x_auth_password sent in the body is one of them.
type SignInfo struct {
	Method     string  // the request method
	URL        string  // the URL as it was before signing, without its user information
	BaseString string  // the signature base string (RFC 5849 §3.4.1)
	Params     []Param // the protocol parameters, except oauth_signature, in base string order

	// EmptyConsumerSecret and EmptyTokenSecret report a key with an empty
	// part: an empty consumer secret, and a token whose secret is empty.
	// OAuth allows both, but each is usually a variable that was not set,
	// and a provider that issued a secret refuses the signature. Neither
	// is reported for the RSA methods, whose key is the private key.
	EmptyConsumerSecret, EmptyTokenSecret bool
}

type traceKey struct{}

// WithTrace returns a context based on ctx whose requests report to t. If
// ctx carries a Trace already, t's hooks are called first, then the earlier
// ones, as with [net/http/httptrace.WithClientTrace].
func WithTrace(ctx context.Context, t *Trace) context.Context {
	if t == nil {
		return ctx
	}
	if old := contextTrace(ctx); old != nil {
		t = t.compose(old)
	}
	return context.WithValue(ctx, traceKey{}, t)
}

// compose returns a Trace whose hooks call t's and then old's.
func (t *Trace) compose(old *Trace) *Trace {
	switch {
	case t.Signed == nil:
		return old
	case old.Signed == nil:
		return t
	}
	first, then := t.Signed, old.Signed
	return &Trace{Signed: func(i SignInfo) {
		first(i)
		then(i)
	}}
}
