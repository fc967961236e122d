// Package exchange carries a grant made with OAuth 1.0a over to OAuth 2.0:
// it trades a user's stored [oauth1.Credentials] for an [oauth2.Token] of
// golang.org/x/oauth2 at the provider's migration endpoint, so that nobody
// has to consent again when the provider retires OAuth 1.0a, and it returns
// an [oauth2.TokenSource] that keeps the new token fresh with its refresh
// token through x/oauth2's own refresh.
//
// Providers publish two shapes of exchange, and each has a type:
//
//   - [TokenExchange]: the 1.0a token and its secret travel in the body of
//     an OAuth 2.0 token request, with OAuth 2.0 client authentication. This
//     is X's token exchange ([X] is its preset): POST
//     https://api.x.com/2/oauth2/token, form-encoded grant_type
//     urn:ietf:params:oauth:grant-type:token-exchange, subject_token (the
//     1.0a token), subject_token_type
//     urn:x:params:oauth:token-type:oauth1_token, oauth_token_secret and an
//     optional scope; a confidential client authenticates with HTTP Basic,
//     a public one sends client_id in the body. The answer is JSON:
//     access_token, refresh_token, expires_in, scope and token_type. An
//     exchange run again for the same user invalidates the pair the one
//     before issued, and an app may run 10,000 exchanges in 15 minutes.
//     See https://docs.x.com/fundamentals/authentication/oauth-2-0/oauth-1-0a-token-exchange.
//   - [Signed]: the exchange request itself is signed with OAuth 1.0a, the
//     consumer's and the token's credentials, by an [oauth1.Config]; its
//     body, JSON or form, holds the OAuth 2.0 client's id, secret and scope.
//     Intuit's POST https://developer.api.intuit.com/v2/oauth2/tokens/migrate
//     (a JSON body of scope, redirect_uri, client_id and client_secret; see
//     https://developer.intuit.com/app/developer/qbo/docs/develop/authentication-and-authorization/migration
//     and https://blogs.intuit.com/2019/10/22/oauth-1-0-migration-step-7-migrate-existing-users-in-about-2-hours/)
//     and Xero's POST https://api.xero.com/oauth/migrate?tenantType=ORGANISATION
//     (a JSON body of scope, client_id and client_secret, signed with the
//     partner app's RSA-SHA1 key; see https://developer.xero.com/documentation/oauth2/migrate
//     and Xero's own script, https://github.com/XeroAPI/xero-ruby-token-migration-script)
//     are this shape; the Examples configure both. Garmin's partners are
//     told of a signed exchange too, but its body is not published where we
//     can read it: there is no preset for it, and Signed's fields (method,
//     URL, body format, field names, extra fields) are there to express it.
//
// A provider's refusal is an [*Error]: the RFC 6749 §5.2 error, error
// description and error URI, the status, and the Retry-After of a 429,
// which the TokenSource honours by waiting (within its context) before it
// tries again. Exchange itself does not retry: the caller decides, and the
// oauth1 command's migrate does, for a 429 only.
//
// No secret leaves: an Error holds no 1.0a secret, consumer secret or
// OAuth 2.0 client secret, even when the provider echoes the request back
// in its body (the echo is scrubbed, in any of the encodings oauth1's
// ResponseError recognises); TokenExchange and Signed print and log with
// their client secret redacted; a network error names the endpoint
// without its query's protocol parameters; and the client follows no
// redirect, which would resend a body of secrets to another URL.
//
// For a database dump of tokens, the oauth1 command's migrate runs the
// exchanges with a bounded concurrency and rate, resumes an interrupted run
// without exchanging a token twice, and never writes a secret:
//
//	oauth1 migrate --provider x --client-id ID --out tokens2.jsonl tokens1.jsonl
//
// Store what Exchange returns at once: for X, the pair is the only one
// valid for that user from then on, and its refresh token is single-use,
// so every token the TokenSource returns with a new RefreshToken must be
// stored in its turn.
package exchange
