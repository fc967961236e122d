package oauth1

// A Problem is a code of the OAuth Problem Reporting extension, such as
// "signature_invalid", as carried by oauth_problem.
type Problem string

// Problem codes of the OAuth Problem Reporting extension, as returned in
// a refusal: the server package writes them, and
// [CheckResponse] reads them into [ResponseError].Problem. The extension
// names no code for a provider's own failure; internal_error is this
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
	ProblemTokenUsed               Problem = "token_used"         // temporary credentials already exchanged
	ProblemPermissionUnknown       Problem = "permission_unknown" // exchanged before the resource owner approved
	ProblemPermissionDenied        Problem = "permission_denied"  // the resource owner refused (sent to the callback)

	// ProblemInternalError answers a request the provider could not
	// decide: with 500 Internal Server Error when a store or the
	// provider's configuration failed, or with 503 Service Unavailable
	// and Retry-After when a nonce or token store is down or full, which
	// a client may retry later.
	ProblemInternalError Problem = "internal_error"
)
