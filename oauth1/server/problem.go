package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// A ProblemError is a refused request, described with a code of the OAuth
// Problem Reporting extension. Its message and fields never hold a secret or
// the signature the Verifier expected.
type ProblemError struct {
	Problem oauth1.Problem // one of the Problem* codes

	// Params names the absent or rejected parameters, for parameter_absent
	// and parameter_rejected (and oauth_body_hash for signature_invalid
	// when the body does not match its hash).
	Params []string

	// MinTimestamp and MaxTimestamp are the acceptable oauth_timestamp
	// values at the time of a timestamp_refused problem.
	MinTimestamp, MaxTimestamp int64

	// BaseString is the signature base string the Verifier computed, when
	// it got that far. It is what the client should have signed; it holds
	// no secret, and comparing it with the client's is how a
	// signature_invalid problem is diagnosed. It is not sent to the client.
	// It is empty for a base string over 1 MiB, which a refusal does not
	// copy, so that a hostile request costs no more memory than its body.
	BaseString string

	// KeyMistake is what [basestring.KeyMistake] found wrong with the key
	// or the encoding of a signature the Verifier refused with
	// signature_invalid, when its DiagnoseKeys is set: its Kind names the
	// mistake ("empty-token-secret", "swapped-secrets", ...) and its Cause
	// explains it. Its Kind is empty when the Verifier did not look. It
	// holds no secret and is never sent to the client: it tells the
	// operator what the client did wrong with the secrets.
	KeyMistake basestring.Mistake

	// StatusCode is the HTTP status of the refusal. The Verifier and the
	// Provider set it as RFC 5849 §3.2 says: 400 Bad Request for malformed
	// requests (missing, duplicated or unsupported parameters or methods)
	// and 401 Unauthorized for bad credentials, signatures, timestamps and
	// nonces. [Verifier.WriteError] uses that status when it is zero.
	StatusCode int

	Err error // the underlying error, if any, such as a *oauth1.AuthHeaderError
}

func (e *ProblemError) Error() string {
	var b strings.Builder
	b.WriteString("oauth1: request refused: ")
	b.WriteString(string(e.Problem))
	if len(e.Params) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(e.Params, ", "))
		b.WriteString(")")
	}
	if e.Problem == oauth1.ProblemTimestampRefused {
		fmt.Fprintf(&b, " (acceptable %d-%d)", e.MinTimestamp, e.MaxTimestamp)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.KeyMistake.Kind != "" {
		b.WriteString(" (key mistake: ")
		b.WriteString(string(e.KeyMistake.Kind))
		b.WriteString(")")
	}
	return b.String()
}

func (e *ProblemError) Unwrap() error { return e.Err }

// statusFor is the HTTP status of problem code (RFC 5849 §3.2).
func statusFor(code oauth1.Problem) int {
	switch code {
	case oauth1.ProblemVersionRejected, oauth1.ProblemParameterAbsent, oauth1.ProblemParameterRejected, oauth1.ProblemSignatureMethodRejected:
		return http.StatusBadRequest
	}
	return http.StatusUnauthorized
}

// body returns the application/x-www-form-urlencoded problem report:
// oauth_problem and, where they apply, oauth_parameters_absent,
// oauth_parameters_rejected, oauth_acceptable_timestamps and
// oauth_acceptable_versions, and, when sendBase is set (see
// Verifier.SendBaseString), the oauth_signature_base_string of a
// signature_invalid problem. KeyMistake and Err are never in it.
func (e *ProblemError) body(sendBase bool) string {
	b := wire.AppendPair(nil, "oauth_problem", string(e.Problem))
	list := func(name string) {
		b = wire.AppendPair(append(b, '&'), name, strings.Join(e.Params, "&"))
	}
	switch e.Problem {
	case oauth1.ProblemParameterAbsent:
		list("oauth_parameters_absent")
	case oauth1.ProblemParameterRejected:
		list("oauth_parameters_rejected")
	case oauth1.ProblemTimestampRefused:
		b = append(b, "&oauth_acceptable_timestamps="...)
		b = strconv.AppendInt(b, e.MinTimestamp, 10)
		b = append(b, "%2D"...)
		b = strconv.AppendInt(b, e.MaxTimestamp, 10)
	case oauth1.ProblemVersionRejected:
		b = append(b, "&oauth_acceptable_versions=1.0%2D1.0"...)
	case oauth1.ProblemSignatureInvalid:
		// Not for a body that does not match its hash (Params names
		// oauth_body_hash): the base strings agree, and the client would
		// look for a difference in the key.
		if sendBase && e.BaseString != "" && len(e.Params) == 0 {
			b = wire.AppendPair(append(b, '&'), "oauth_signature_base_string", e.BaseString)
		}
	}
	return string(b)
}

func problem(code oauth1.Problem, err error, params ...string) *ProblemError {
	return &ProblemError{Problem: code, Params: params, Err: err, StatusCode: statusFor(code)}
}
