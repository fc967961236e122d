package oauth1

// A Problem is a code of the OAuth Problem Reporting extension, such as
// "signature_invalid", as carried by oauth_problem.
type Problem string

// Problem codes of the OAuth Problem Reporting extension, as returned in
// a refusal: the server package writes them, and
// [CheckResponse] reads them into [ResponseError].Problem. The extension
// names no code for a provider's own failure, nor for a body that does not
// match its oauth_body_hash; internal_error and body_hash_invalid are this
// module's.
const (
	ProblemVersionRejected         Problem = "version_rejected"
	ProblemParameterAbsent         Problem = "parameter_absent"
	ProblemParameterRejected       Problem = "parameter_rejected"
	ProblemTimestampRefused        Problem = "timestamp_refused"
	ProblemNonceUsed               Problem = "nonce_used"
	ProblemSignatureMethodRejected Problem = "signature_method_rejected"
	ProblemSignatureInvalid        Problem = "signature_invalid"
	ProblemConsumerKeyUnknown      Problem = "consumer_key_unknown"
	ProblemTokenRejected           Problem = "token_rejected"
	ProblemTokenRevoked            Problem = "token_revoked"      // token credentials revoked: authorize again
	ProblemTokenUsed               Problem = "token_used"         // temporary credentials already exchanged
	ProblemPermissionUnknown       Problem = "permission_unknown" // exchanged before the resource owner approved
	ProblemPermissionDenied        Problem = "permission_denied"  // the resource owner refused (sent to the callback)

	// ProblemInternalError answers a request the provider could not
	// decide: with 500 Internal Server Error when a store or the
	// provider's configuration failed, or with 503 Service Unavailable
	// and Retry-After when a nonce or token store is down or full, which
	// a client may retry later.
	ProblemInternalError Problem = "internal_error"

	// ProblemBodyHashInvalid answers, with 401 Unauthorized, a request
	// whose body does not match its oauth_body_hash (the Request Body Hash
	// extension): the signature, over the same base string, may be right,
	// and the body was changed after signing or hashed otherwise. A
	// provider of another library answers it signature_invalid.
	ProblemBodyHashInvalid Problem = "body_hash_invalid"
)

// A ProblemReport is what the OAuth Problem Reporting extension says about
// a refused request: a provider sends it with a status other than 2xx, as
// the parameters of a form-encoded body or of a WWW-Authenticate: OAuth
// challenge. The server package's ProblemError writes one and
// [ResponseError] reads one, both with these fields, so that a refusal and
// the client's view of it compare field by field. The zero value reports
// nothing.
type ProblemReport struct {
	Problem Problem // oauth_problem, such as "signature_invalid"

	// ParamsAbsent and ParamsRejected name the parameters of a
	// parameter_absent or parameter_rejected problem, as
	// oauth_parameters_absent and oauth_parameters_rejected list them.
	ParamsAbsent, ParamsRejected []string

	// MinTimestamp and MaxTimestamp are the oauth_acceptable_timestamps
	// of a timestamp_refused problem, zero when it has none: the Unix
	// times the provider would accept, which show how far off the
	// client's clock is.
	MinTimestamp, MaxTimestamp int64

	// Advice is oauth_problem_advice, text for a human that says what to
	// change. The server package's advice never holds a secret or the base
	// string.
	Advice string
}
