package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/redact"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// A ProblemError is a refused request, described with a code of the OAuth
// Problem Reporting extension. Its message and fields never hold a secret or
// the signature the Verifier expected.
type ProblemError struct {
	// ProblemReport is what [Verifier.WriteError] sends: the Problem (one
	// of the oauth1.Problem* codes), the parameters absent or rejected,
	// the acceptable timestamps and the Advice. A client's
	// [oauth1.CheckResponse] reads it back into the same fields of
	// [oauth1.ResponseError]. Advice is text for the client's developer:
	// the Verifier and the Provider set it to a fixed sentence, never to
	// what a store or a callback said; one set by hand must hold no
	// secret.
	oauth1.ProblemReport

	// BaseString is the signature base string the Verifier computed, when
	// it got that far. It is what the client should have signed; it holds
	// no secret, and comparing it with the client's is how a
	// signature_invalid problem is diagnosed. It is not sent to the client.
	// It is empty for a base string over 64 KiB, which a refusal does not
	// copy: a form's base string takes up to five times the body, and a
	// refusal, which any client can have, must not keep that much.
	BaseString string

	// KeyMistake is what [basestring.KeyMistake] found wrong with the key
	// or the encoding of a signature the Verifier refused with
	// signature_invalid, when its DiagnoseKeys is set: its Kind names the
	// mistake ("empty-token-secret", "swapped-secrets", ...), its Also any
	// other mistake made with it, and its Cause explains them. Its Kind is
	// empty when the Verifier did not look, and unchecked when it did not
	// for the cost (see DiagnoseKeys). It
	// holds no secret and is never sent to the client: it tells the
	// operator what the client did wrong with the secrets, or, with Kind
	// basestring.BaseStringDiffers, with the base string.
	KeyMistake basestring.Mistake

	// StatusCode is the HTTP status of the refusal. The Verifier and the
	// Provider set it as RFC 5849 §3.2 says: 400 Bad Request for malformed
	// requests (missing, duplicated or unsupported parameters or methods)
	// and 401 Unauthorized for bad credentials, signatures, timestamps and
	// nonces. [Verifier.WriteError] answers with it or, when it is zero,
	// with the status of its Problem.
	StatusCode int

	// Err is the underlying error, if any: why the Verifier refused
	// (a malformed Authorization header, a *oauth1.AuthHeaderError; a wrong
	// verification code, the error of CheckCallback, ...) or what a store
	// said. It is for the operator: WriteError never sends it.
	Err error
}

// Error describes the refusal for the operator's log, on one line of
// bounded size: parameter names, which a client chooses, are printed as
// they are when made of letters, digits and "-._~:/", and otherwise quoted
// with their control characters escaped; at most 8 names of each list, each
// cut to 64 bytes, and at most 1 KiB of Err's message, quoted the same way
// when it holds a control character or invalid UTF-8.
func (e *ProblemError) Error() string {
	var b strings.Builder
	b.WriteString("oauth1: request refused: ")
	b.WriteString(redact.Name(string(e.Problem)))
	for _, ps := range [...][]string{e.ParamsAbsent, e.ParamsRejected} {
		if len(ps) > 0 {
			b.WriteString(" (")
			b.WriteString(redact.Names(ps))
			b.WriteString(")")
		}
	}
	if e.Problem == oauth1.ProblemTimestampRefused {
		fmt.Fprintf(&b, " (acceptable %d-%d)", e.MinTimestamp, e.MaxTimestamp)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(redact.Printable(e.Err.Error(), redact.MaxErrLen))
	}
	if e.KeyMistake.Kind != "" {
		b.WriteString(" (key mistake: ")
		b.WriteString(string(e.KeyMistake.Kind))
		for _, k := range e.KeyMistake.Also {
			b.WriteString(", ")
			b.WriteString(string(k))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (e *ProblemError) Unwrap() error { return e.Err }

// problem returns the refusal code, for err; params are the parameters
// absent, for parameter_absent, or rejected, for any other code.
func problem(code oauth1.Problem, err error, params ...string) *ProblemError {
	pe := &ProblemError{ProblemReport: oauth1.ProblemReport{Problem: code}, Err: err, StatusCode: statusFor(code)}
	if code == oauth1.ProblemParameterAbsent {
		pe.ParamsAbsent = params
	} else {
		pe.ParamsRejected = params
	}
	return pe
}

// advise returns e with the advice a, a fixed sentence.
func (e *ProblemError) advise(a string) *ProblemError {
	e.Advice = a
	return e
}

// statusFor is the HTTP status of problem code (RFC 5849 §3.2).
func statusFor(code oauth1.Problem) int {
	switch code {
	case oauth1.ProblemVersionRejected, oauth1.ProblemParameterAbsent, oauth1.ProblemParameterRejected, oauth1.ProblemSignatureMethodRejected:
		return http.StatusBadRequest
	}
	return http.StatusUnauthorized
}

// body returns the application/x-www-form-urlencoded problem report:
// oauth_problem and, where they are set, oauth_parameters_absent,
// oauth_parameters_rejected, oauth_acceptable_timestamps and
// oauth_problem_advice; oauth_acceptable_versions for version_rejected;
// and, when sendBase is set (see Verifier.SendBaseString), the
// oauth_signature_base_string of a signature_invalid problem. KeyMistake
// and Err are never in it.
func (e *ProblemError) body(sendBase bool) string {
	b := wire.AppendPair(nil, "oauth_problem", string(e.Problem))
	if len(e.ParamsAbsent) > 0 {
		b = wire.AppendPair(append(b, '&'), "oauth_parameters_absent", strings.Join(e.ParamsAbsent, "&"))
	}
	if len(e.ParamsRejected) > 0 {
		b = wire.AppendPair(append(b, '&'), "oauth_parameters_rejected", strings.Join(e.ParamsRejected, "&"))
	}
	if e.MinTimestamp != 0 || e.MaxTimestamp != 0 {
		b = append(b, "&oauth_acceptable_timestamps="...)
		b = strconv.AppendInt(b, e.MinTimestamp, 10)
		b = append(b, "%2D"...)
		b = strconv.AppendInt(b, e.MaxTimestamp, 10)
	}
	if e.Problem == oauth1.ProblemVersionRejected {
		b = append(b, "&oauth_acceptable_versions=1.0%2D1.0"...)
	}
	if e.Advice != "" {
		b = wire.AppendPair(append(b, '&'), "oauth_problem_advice", e.Advice)
	}
	// Not for body_hash_invalid: the base strings agree, and a client
	// would look for a difference in the key.
	if sendBase && e.Problem == oauth1.ProblemSignatureInvalid && e.BaseString != "" {
		b = wire.AppendPair(append(b, '&'), "oauth_signature_base_string", e.BaseString)
	}
	return string(b)
}
