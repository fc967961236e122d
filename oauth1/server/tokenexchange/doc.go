// Package tokenexchange carries OAuth 1.0a grants over to OAuth 2.0 on the
// provider's side: a [Handler] is a token endpoint for the token exchange
// grant of RFC 8693, to which a client sends proof of a 1.0a token
// credential (RFC 5849 §2.3) and gets an OAuth 2.0 token for the same
// client, user and scope, minted by the provider's own OAuth 2.0
// authorization server (an [Issuer]). The end user need not consent
// again.
//
// # Two shapes of proof
//
// A signed exchange (as Intuit's /v2/oauth2/tokens/migrate and Xero's
// /oauth/migrate take, and what Garmin's partners send) is a POST signed
// with the 1.0a consumer and token (RFC 5849 §3), verified by a
// [server.Verifier] built from the Handler's Consumers, Tokens and
// Settings, with all its checks: the signature, the timestamp window, the
// nonce (a replay is refused, on every instance with a shared NonceStore),
// and that the token is live token credentials of that consumer (one
// revoked is refused with invalid_request, as RFC 8693 §2.2.2 says of
// every subject_token refused). Its body, a form or a JSON
// object, may hold grant_type (only the token exchange one), scope,
// subject_token (the signing token), and the OAuth 2.0 client's
// client_id and client_secret, which must then authenticate a client
// mapped to the same consumer.
//
// An exchange with the token secret in the body is X's shape:
//
//	POST /2/oauth2/token
//	Authorization: Basic base64(client_id:client_secret)   (or client_id in the body, for a public client)
//	Content-Type: application/x-www-form-urlencoded
//
//	grant_type=urn:ietf:params:oauth:grant-type:token-exchange
//	&subject_token=<1.0a token>
//	&subject_token_type=urn:x:params:oauth:token-type:oauth1_token
//	&oauth_token_secret=<1.0a token secret>
//	&scope=<optional, space-delimited>
//
// The OAuth 2.0 client authenticates (RFC 6749 §2.3.1), found in the
// Handler's [ClientStore], which maps it to its 1.0a consumer key; the
// token must be live and issued to that consumer, and both secrets are
// compared in constant time. HTTP Basic credentials are taken
// form-decoded, as RFC 6749 §2.3.1 says (golang.org/x/oauth2 sends them
// so), and as sent (Python's requests and Authlib's client_secret_basic
// send them raw): a secret with '+', '%' or ':' works either way, both
// forms always compared. RFC 8693 §3's access_token type is taken as
// subject_token_type too: a 1.0a token credential is an access token of
// this provider.
//
// A scope asked for may only narrow the grant's (RFC 6749 §3.3); a wider
// one is invalid_scope. Delegation (actor_token, RFC 8693 §1.1) and other
// targets (resource, audience, §2.1) are refused.
//
// # Answers
//
// A token is answered as RFC 8693 §2.2.1 says: JSON with access_token,
// issued_token_type (urn:ietf:params:oauth:token-type:access_token),
// token_type, and expires_in, scope and refresh_token when the Issuer set
// them, which a golang.org/x/oauth2 client reads as it reads any token
// response. A refusal is RFC 6749 §5.2's JSON error (invalid_request,
// invalid_client with 401 and a WWW-Authenticate challenge,
// unsupported_grant_type, invalid_scope, and RFC 8693 §2.2.2's
// invalid_target), 405 with Allow: POST for another method than POST, or
// temporarily_unavailable with 503 and Retry-After while a store cannot
// answer. A subject_token refused (unknown, revoked, its secret wrong,
// issued to another client) is invalid_request, not RFC 6749's
// invalid_grant: RFC 8693 §2.2.2 says so. Every answer carries
// Cache-Control: no-store. No answer, and no error given to Observe,
// holds a secret or repeats what the request held.
//
// # Once
//
// A grant is exchanged once, across every instance that shares the
// [Store]: of exchanges racing for it, one claims it and calls the
// Issuer; the others wait for its answer. A repeat within the Handler's
// RepeatWindow (a client retrying after a lost response) gets the same
// token; later ones are refused with invalid_request. A signed repeat needs
// a fresh nonce, as every signed request does, so instances that share a
// Store must share their nonce store too: one whose Store is shared and
// whose Settings.Nonces is per-process refuses signed exchanges with
// server_error, since a signed exchange replayed to another instance
// (from an access log, say) would get the live token.
//
// The 1.0a token is revoked ([server.TokenStore].Revoke) when Grace, or
// RepeatWindow if longer, has passed since its exchange, on the Handler's
// clock: it keeps proving the grant for retries until then. The Store
// holds the revocations due, so that any instance sharing it makes them,
// whichever stopped: each Handler looks for them as it serves requests,
// at most once a second, and [Handler.RevokeDue] runs from a ticker for
// an endpoint that may see no request for a while. A revocation leaves
// the Store only once it succeeded; one that failed is tried again, and
// reaches Observe.
//
// The answer kept for repeats holds a live OAuth 2.0 token, so the store
// never sees it in clear: it is sealed with AES-256-GCM under a key
// derived (HKDF-SHA256) from the 1.0a token secret, which the store never
// holds, and is dropped once the RepeatWindow has passed. The record that
// the grant was exchanged, without the token, is kept until the 1.0a
// token is revoked, and a minute after: the revoked token refuses the
// grant from then on. A store keeps at most 16 exchanges of one grant
// (client and user) unrevoked, and revokes the oldest at once past that,
// so a client that authorizes and exchanges again and again cannot fill
// it. [MemoryStore] is the store of one process; module
// github.com/countersign/countersign/redisstore has ExchangeStore for
// many.
//
// # Counting
//
// Observe sees every outcome. A provider counts exchanges for its sunset
// report there, with sunset.Usage.RecordExchange
// ([github.com/countersign/countersign/oauth1/sunset.Usage.RecordExchange]):
//
//	h.Observe = func(r *http.Request, g tokenexchange.Grant, err error) {
//		if err == nil && !g.Repeat {
//			usage.RecordExchange(g.ConsumerKey, time.Now())
//		}
//	}
package tokenexchange
