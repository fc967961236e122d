package oauth1

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/countersign/countersign/percent"
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
}

type traceKey struct{}

// WithTrace returns a context based on ctx whose requests report to t. If
// ctx carries a Trace already, t's hooks are called first, then the earlier
// ones, as with [net/http/httptrace.WithClientTrace].
func WithTrace(ctx context.Context, t *Trace) context.Context {
	if t == nil {
		return ctx
	}
	if old := ContextTrace(ctx); old != nil {
		t = t.compose(old)
	}
	return context.WithValue(ctx, traceKey{}, t)
}

// ContextTrace returns the Trace of ctx, or nil if it has none.
func ContextTrace(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
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

// signTrace is a Signed call in waiting: SignAt makes it before signing,
// while the URL is still the caller's, and calls it once signing succeeded.
type signTrace struct {
	hook func(SignInfo)
	info SignInfo
}

// startTrace returns nil unless r's context has a Signed hook. It builds the
// base string with the public BaseString, so that the hook sees exactly what
// SignAt signs; a failure there is SignAt's failure too, reported by it.
func (c *Config) startTrace(r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param) *signTrace {
	if r == nil || r.URL == nil {
		return nil
	}
	tr := ContextTrace(r.Context())
	if tr == nil || tr.Signed == nil {
		return nil
	}
	base, err := c.BaseString(r, tok, t, nonce, extra...)
	if err != nil {
		return nil
	}
	u := *r.URL
	u.User = nil
	extra = c.withParams(extra)
	return &signTrace{hook: tr.Signed, info: SignInfo{
		Method:     r.Method,
		URL:        u.String(),
		BaseString: base,
		Params:     protocolParams(base, extra),
	}}
}

func (st *signTrace) finish(err *error) {
	if *err == nil {
		st.hook(st.info)
	}
}

// protocolParams returns the parameters of the base string that are
// protocol parameters: those named oauth_* (§3.4.1.3.1 reserves the prefix)
// and the extra ones, decoded.
func protocolParams(base string, extra []Param) []Param {
	_, rest, _ := strings.Cut(base, "&")
	_, enc, _ := strings.Cut(rest, "&")
	all, err := percent.Decode(enc)
	if err != nil || all == "" {
		return nil
	}
	var ps []Param
	for pair := range strings.SplitSeq(all, "&") {
		n, v, _ := strings.Cut(pair, "=")
		name, err1 := percent.Decode(n)
		value, err2 := percent.Decode(v)
		if err1 != nil || err2 != nil {
			continue // the base string encodes every name and value; unreachable
		}
		if strings.HasPrefix(name, "oauth_") || isExtra(name, extra) {
			ps = append(ps, Param{Name: name, Value: value})
		}
	}
	return ps
}

func isExtra(name string, extra []Param) bool {
	for _, p := range extra {
		if p.Name == name {
			return true
		}
	}
	return false
}
