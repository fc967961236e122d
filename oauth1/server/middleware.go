package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

type verificationKey struct{}

// FromContext returns the Verification that [Verifier.Middleware]
// stored in the context of the request it passed on.
func FromContext(ctx context.Context) (*Verification, bool) {
	v, ok := ctx.Value(verificationKey{}).(*Verification)
	return v, ok
}

// Middleware returns a handler that verifies each request and passes it on
// to next, with the [Verification] in its context (see [FromContext]),
// or answers it with [Verifier.WriteError]. next can read the body. It
// calls v.Observe, if set, for every request, before either.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, err := v.Verify(r)
		if v.Observe != nil {
			v.Observe(r, ver, err)
		}
		if err != nil {
			v.WriteError(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verificationKey{}, ver)))
	})
}

// WriteError answers a request that Verify refused, and is how a Provider
// answers every refusal. A [*ProblemError] gets its StatusCode (or, when
// that is zero, the status of its Problem), a WWW-Authenticate challenge
// with v.Realm and the OAuth Problem Reporting form, its ProblemReport
// (oauth_problem and, where they are set, oauth_parameters_absent,
// oauth_parameters_rejected, oauth_acceptable_timestamps and
// oauth_problem_advice; oauth_acceptable_versions for version_rejected; and
// with v.SendBaseString the oauth_signature_base_string of a
// signature_invalid problem; never its KeyMistake or its Err); a body too
// large gets 413; a store that cannot be reached ([ErrStoreUnavailable])
// or a full nonce, temporary or token credential store ([ErrStoreFull])
// 503 with Retry-After: 10 (seconds), one policy for every store (see
// retryAfter); any other error 500, with no detail: both with the
// [oauth1.ProblemInternalError] code.
func (v *Verifier) WriteError(w http.ResponseWriter, err error) {
	var pe *ProblemError
	status, body := http.StatusInternalServerError, "oauth_problem="+string(oauth1.ProblemInternalError)
	switch {
	case errors.As(err, &pe):
		status, body = pe.StatusCode, pe.body(v.SendBaseString)
		if status == 0 {
			status = statusFor(pe.Problem)
		}
		w.Header().Set("WWW-Authenticate", string(wire.AppendQuoted([]byte("OAuth realm="), v.Realm)))
	case errors.Is(err, oauth1.ErrBodyTooLarge):
		status, body = http.StatusRequestEntityTooLarge, "oauth_problem=parameter_rejected"
	case errors.Is(err, ErrStoreUnavailable), errors.Is(err, ErrStoreFull):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", wire.FormType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(body))
}

// retryAfter is the Retry-After, in seconds, of every 503 a store's
// refusal gets, full or unavailable, whichever the store: a client cannot
// tell them apart, and needs none. Ten seconds is long enough that retries
// do not add to the load of a store in trouble, and short enough that a
// client retries many times within the ten minutes an approval kept by a
// refused exchange lives (the default TemporaryTTL), and within the
// window of a nonce store full of a burst. A store that stays full longer
// (token credentials wait for revocations) costs a refused client one
// cheap request every ten seconds.
const retryAfter = "10"
