package server

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is what a [CredentialStore] returns, possibly wrapped, for a
// consumer key or token it does not know. The Verifier reports it as the
// consumer_key_unknown or token_rejected problem; any other lookup error
// is an internal error.
var ErrNotFound = errors.New("oauth1: credentials not found")

// ErrStoreUnavailable is how every store of this package (a
// [CredentialStore], [ConsumerStore], [NonceStore], [TemporaryStore] or
// [TokenStore]) says it cannot answer now: a database or Redis that cannot
// be reached, times out or refuses writes. A store returns an error that
// wraps it and, for the operator, the cause. The request is refused, and
// [Verifier.WriteError] answers 503 Service Unavailable with Retry-After
// (10 seconds, as for [ErrStoreFull]), so that clients try again; any other error from a store is answered 500.
var ErrStoreUnavailable = errors.New("oauth1: store unavailable")

// A Registration is what a provider registered for a client (RFC 5849
// §1.1, "client credentials"): the shared secret for
// the HMAC and PLAINTEXT methods, and the public key for the RSA methods
// (RFC 5849 §3.4.3, registered with the provider out of band). Either may
// be empty; a request signed with a method whose key is missing is refused
// with the signature_method_rejected problem.
type Registration struct {
	Secret    string `json:"-"` // left out of JSON, as every secret here
	PublicKey *rsa.PublicKey

	// CallbackSchemes lists the schemes other than http and https that a
	// [Provider] accepts in the client's oauth_callback, such as a native
	// app's private-use scheme ("com.example.app", RFC 8252 §7.1). Empty
	// means http and https only.
	CallbackSchemes []string

	// Callbacks, if not empty, lists the callbacks registered for the
	// client: a [Provider] refuses, with parameter_rejected, an
	// oauth_callback that matches none of them. A registered callback
	// matches a callback with the same scheme and host (compared
	// case-insensitively, the default port of http and https dropped)
	// and port, and:
	//
	//   - when the registered path ends in "/", a path that begins with
	//     it, and whose rest, percent-decoded until it no longer changes
	//     (four times at most), holds no dot segment ("." or "..", also
	//     "..." or ".. ", or followed by ";"), no backslash, no slash, '?'
	//     or '#' made by decoding, no control character and nothing that
	//     is not UTF-8 (so no overlong encoding of '.' or '/', such as
	//     %c0%ae);
	//   - otherwise the same path, compared byte for byte.
	//
	// A registered callback with a query matches only that query, byte
	// for byte; one without, any query. "oob" matches "oob".
	//
	// A registered http callback whose host is a loopback IP literal,
	// such as "http://127.0.0.1/cb" or "http://[::1]/cb", and that names
	// no port, matches a callback to the same IP literal on any port, as
	// RFC 8252 §7.3 requires for native apps, which listen on a port the
	// system picks. The host must be that literal, byte for byte:
	// "localhost" gets no such rule (RFC 8252 §8.3 advises against it:
	// the name may resolve elsewhere than the loopback interface), and
	// must be registered with its port. A registered entry that is not an
	// absolute URL without userinfo and fragment matches nothing.
	Callbacks []string
}

// A ConsumerStore looks up client registrations by consumer key, for a
// [Provider]. Consumer returns an error wrapping [ErrNotFound] for an
// unknown key; now is the clock of the Provider or Verifier, read once for
// the request, as every store method is given it (a store may use it for
// registrations that expire). Implementations must be safe for concurrent use. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestConsumerStore, for implementations.
type ConsumerStore interface {
	Consumer(ctx context.Context, consumerKey string, now time.Time) (Registration, error)
}

// A CredentialStore looks up the credentials a [Verifier] needs, by consumer
// key and by token. Both methods return an error wrapping [ErrNotFound] for
// an unknown key or token, and one wrapping [ErrStoreUnavailable] when the
// store cannot be reached; an error that also wraps [ErrTokenRevoked] is
// answered token_revoked. TokenCredentials returns the record of token,
// its Secret and ConsumerKey filled in: the Verifier refuses a token whose
// ConsumerKey is not the request's, a token issued to another client, and
// passes the record's User and Scope on in [Verification]. now is the
// Verifier's clock, read once for the request: a store may use it for
// credentials that expire. A Verifier that
// checks requests to protected resources must know access tokens only (a
// [Provider] does that for the tokens it issues). Implementations must be
// safe for concurrent use. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestCredentialStore, for implementations.
type CredentialStore interface {
	ConsumerStore
	TokenCredentials(ctx context.Context, consumerKey, token string, now time.Time) (TokenCredentials, error)
}

// Consumers is a [ConsumerStore] for [Provider.Consumers], and a
// [CredentialStore] that knows no tokens: for two-legged providers and LTI
// 1.1 tools, whose requests carry no oauth_token (one that does is refused
// with token_rejected). It is safe for concurrent use as long as it is not
// modified.
type Consumers map[string]Registration

var _ CredentialStore = Consumers(nil)

// Consumer returns the registration for consumerKey.
func (c Consumers) Consumer(_ context.Context, consumerKey string, _ time.Time) (Registration, error) {
	r, ok := c[consumerKey]
	if !ok {
		return Registration{}, fmt.Errorf("%w: consumer key %q", ErrNotFound, consumerKey)
	}
	return r, nil
}

// TokenCredentials knows no token: it always returns an error wrapping
// [ErrNotFound].
func (c Consumers) TokenCredentials(_ context.Context, _, token string, _ time.Time) (TokenCredentials, error) {
	return TokenCredentials{}, fmt.Errorf("%w: token %q (this store has no tokens)", ErrNotFound, token)
}
