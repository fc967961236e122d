// Package oauth1 is the client side of OAuth 1.0a (RFC 5849): it signs HTTP
// requests and runs the three-legged flow. OAuth 1.0a is still spoken by the
// X (Twitter) API v1.1/v2 user context, Jira and Atlassian application links,
// NetSuite, WooCommerce, Mastercard, Garmin, Flickr and others.
//
// A [Config] holds the client (consumer) credentials and the signature
// method; [Credentials] hold a token and its secret. Signing a request is one
// call:
//
//	cfg := &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret}
//	req, _ := http.NewRequest("GET", "https://api.x.com/2/users/me", nil)
//	err := cfg.Sign(req, &oauth1.Credentials{Token: token, Secret: tokenSecret})
//
// Sign uses the current time and a random nonce from crypto/rand; [Config.SignAt]
// takes both explicitly, for tests and published vectors, and
// [Config.BaseString] returns the exact signature base string (§3.4.1) that
// SignAt signs, which is where every "invalid signature" investigation starts.
//
// # What is signed
//
// The signature base string is built exactly as RFC 5849 §3.4.1 says:
//
//   - the method, uppercased;
//   - the base string URI: scheme and host lowercased, the port dropped only
//     when it is the scheme's default, the path as sent on the wire (its
//     escaped form), no query and no fragment. The host too is the one
//     net/http sends: an internationalized name in Punycode, converted by
//     the same golang.org/x/net function net/http calls, without UTS #46
//     mapping (bücher.example is signed as xn--bcher-kva.example, and
//     BÜCHER.example keeps its Ü), and an IPv6 address without its zone;
//   - the parameters: the query string and, only when the Content-Type is
//     application/x-www-form-urlencoded, the form body, both decoded with form
//     rules ("+" is a space) by this package's own parser, which splits on "&"
//     alone and keeps duplicates and empty values; plus the oauth_* protocol
//     parameters except oauth_signature, and never "realm". Every name and
//     value is percent-encoded with [percent.Encode] and the pairs are sorted
//     by name, then value, byte-wise.
//
// A malformed escape in the query or body is an error: a request is never
// signed with a parameter set that differs from the one on the wire.
// Bodies of other types (JSON, XML, multipart) are not part of the signature;
// set [Config.BodyHash] to cover them with the oauth_body_hash extension.
//
// # Signature methods
//
// [HMAC] (HMAC-SHA1, the zero value; HMAC-SHA256; HMAC-SHA512), [RSA]
// (RSA-SHA1/256/512 with PKCS #1 v1.5, over any [crypto.Signer], so keys held
// in an HSM or KMS work) and [Plaintext]. Package
// [github.com/countersign/countersign/oauth1/rsakey] loads RSA keys from PEM,
// OpenSSH and PKCS #12 files. Any other method implements [Signer].
//
// # Delivery
//
// Protocol parameters go in the Authorization header by default (§3.5.1), in
// a fixed order: realm first, then the oauth_* parameters sorted by name, as
// the X API documentation shows them. [QueryString] and [FormBody] deliver
// them in the query or the form body instead (§3.5.2, §3.5.3).
//
// # Clients and the three-legged flow
//
// Most programs never call Sign: [Config.Client] returns an *http.Client
// whose [Transport] signs every request it sends. The Transport never
// modifies the caller's request, signs each request it is given afresh (a
// redirect gets a new nonce and timestamp; [http.Transport]'s own replay of
// a request on a dead kept-alive connection reuses them), signs a redirect
// only to the original scheme, host and port or a host in
// [Transport.RedirectHosts], and reads a body only when the signature
// covers it — form bodies, and any body when [Config.BodyHash] is set — up
// to [Config.MaxBodyBytes], failing rather than signing a truncated body.
//
// [Config.RequestToken], [Config.AuthorizationURL], [ParseCallback] and
// [Config.AccessToken] run the redirection-based flow of RFC 5849 §2 against
// the URLs in [Config.Endpoint]; package
// [github.com/countersign/countersign/oauth1/providers] holds the X API's and
// other providers', with their realm rules and quirks. Each token request
// returns a [TokenResponse]: the Credentials issued, and the provider's
// other values, which never hold the token or its secret. A token endpoint
// that answers with an error status
// yields a [*ResponseError] carrying the status, the oauth_problem and a
// bounded excerpt of the body, scrubbed of signatures and secrets;
// [CheckResponse] makes the same error of any other answer. The other
// exchanges at the access token URL have methods of their own:
// [Config.XAuthToken] (a password for token credentials) and
// [Config.RenewToken] (the OAuth Session 1.0 extension).
//
// When a provider refuses a signature, a [Trace] attached to the request's
// context with [WithTrace] receives the base string each request was signed
// over, to log or to compare with the provider's. A provider that sends its
// own base string back with the refusal (a sandbox, such as a
// server.Verifier with SendBaseString) makes the comparison itself: for a
// request a [Transport] or the flow signed, the [*ResponseError] names the
// first difference and its likely cause. [Config.Now] and
// [Config.Nonce] make every request reproducible in tests.
//
// # Examples
//
// ExampleConfig_SignAt_quickstart and ExampleConfig_SignAt_authorizingARequest
// reproduce the X API documentation's two worked examples of a status update
// ("Creating a signature", signature hCtSmYh+iHYCEqBWrE7C7hYmtUk=, and
// "Authorizing a request", whose Authorization header they match byte for
// byte; both in the repository's testdata/vectors). Example_x,
// Example_netSuite and the other provider Examples sign for the real
// services, so they have no Output and go test only compiles them.
//
// # WebAssembly
//
// This package and the other signing packages ([percent],
// [github.com/countersign/countersign/oauth1/basestring],
// [github.com/countersign/countersign/oauth1/providers] and
// [github.com/countersign/countersign/oauth1/rsakey]) build for js/wasm and
// wasip1, with no cgo and no system call beyond what crypto/rand and the
// Go runtime need. Their tests run there in CI: under Node for js/wasm, and
// under the wazero runtime for wasip1. In a browser, a [Transport] sends
// through the browser's fetch, which keeps the Authorization header of a
// cross-origin request only when the server allows it (CORS).
//
// # Who uses what
//
// This package is the client: someone who only signs requests reads its 67
// exported names (types, functions, methods, variables and constants), of
// which [Problem] and its fifteen codes, [ProblemReport], [Param],
// [ParseAuthHeader] and [AuthHeaderError] are the vocabulary both sides share. Package
// [github.com/countersign/countersign/oauth1/server] (56 names) verifies
// incoming requests with the same base string code and issues credentials;
// it imports this package, never the reverse, so a program that only signs
// does not link it. Package
// [github.com/countersign/countersign/oauth1/oauth1test] builds a complete
// fake provider for tests, [github.com/countersign/countersign/oauth1/rsakey]
// loads RSA keys, and [github.com/countersign/countersign/oauth1/basestring]
// explains why two base strings differ.
package oauth1
