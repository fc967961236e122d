package server

import (
	"net/http"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// Verification is what a [Verifier] found in a request it accepted.
type Verification struct {
	ConsumerKey     string // oauth_consumer_key
	Token           string // oauth_token; empty for two-legged and temporary credential requests
	SignatureMethod string // oauth_signature_method, such as "HMAC-SHA1"

	// User is the resource owner the token credentials belong to, as the
	// CredentialStore's record of the token says (for a [Provider], who
	// approved them); empty for requests without a token.
	User string

	// Scope is what the grant of the token credentials is for, as the
	// CredentialStore's record of the token says (for a [Provider], as
	// the resource owner approved it); empty for requests without a token.
	Scope string

	// Params holds every protocol parameter of the request except
	// oauth_signature, decoded, wherever it was sent, in the order
	// received: oauth_callback and oauth_verifier, for the endpoints of
	// §2, are read from here.
	Params []oauth1.Param

	BaseString string // the signature base string that was verified
}

// param returns the value of the parameter name in ps, or "".
func param(ps []oauth1.Param, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// defaultWindow is the timestamp window of a Verifier whose Window is zero.
const defaultWindow = 5 * time.Minute

// defaultMethods are the signature methods a Verifier accepts when its
// SignatureMethods field is nil; PLAINTEXT is not among them. Unexported, so that no
// package can change what every other Verifier accepts.
var defaultMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512"}

// A Verifier checks OAuth 1.0a signed requests on the provider side: the
// protocol parameters, the signature (recomputing the base string with the
// code that signs requests, and comparing in constant time), the timestamp
// window and, through a [NonceStore], that the request is not a replay.
//
// Only Store is required. A Verifier is safe for concurrent use and must
// not be modified after first use; it holds no lock or cache of its own, so
// copying one, to derive a Verifier with other settings, is fine: a copy
// refuses the replays of what the original accepted (see Nonces).
//
// # The base string URI behind a proxy
//
// The signature covers the URL the client used, so the Verifier must
// rebuild it from what the server received: the path and query exactly as
// in the request line, the host from the Host header, and the scheme from
// the connection (https when r.TLS is set). Behind a proxy that terminates
// TLS, the connection says http while the client signed https: set Scheme
// to "https" when every request comes through such a proxy, or
// SchemeHeader to "X-Forwarded-Proto" when the proxy sets that header. Of
// a header that a chain of proxies appended to ("https, http", or several
// header lines), the Verifier takes the last value, the one the proxy
// nearest to it added; a proxy that passes the client's value on without
// adding its own must not be trusted with SchemeHeader. The proxy must pass
// the Host header through unchanged.
//
// # Pinning the host
//
// A request is signed for one URL, but nothing in it stops a replay to
// another service that knows the same credentials: a request accepted by
// api-a.example, resent to api-b.example with its Host header unchanged,
// carries a valid signature there too, and a nonce that api-b's store has
// never seen. Set Host (and Scheme) to the name clients sign for, and the
// Verifier refuses requests whose Host header names another host, with
// the parameter_rejected problem naming Host. Instances that serve one name
// accept each other's requests by design, so they must share one
// NonceStore: with a store per instance, each instance accepts a request
// once.
type Verifier struct {
	// Store looks up consumer secrets, public keys and token secrets.
	Store CredentialStore

	// Settings are how requests are verified: the clock, timestamp
	// window, signature methods, nonce store, scheme, host and the rest;
	// the zero value means the defaults. They are embedded, so that
	// v.Window reads as a field of the Verifier.
	Settings

	// Observe, if set, is called by Middleware for every request, before
	// the answer is written: v is what Verify found, nil if it refused
	// the request; err is why, if it did. Refusals are answered with as
	// little detail as the protocol allows, and errors that are not the
	// client's (a store down, a Verifier without Store) with none: log
	// them here. A [*ProblemError]'s BaseString and KeyMistake, never
	// sent to the client (the BaseString is, with SendBaseString), are
	// worth logging too. Verify itself does not call it.
	Observe func(r *http.Request, v *Verification, err error)
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v *Verifier) window() time.Duration {
	if v.Window > 0 {
		return v.Window
	}
	return defaultWindow
}

func (v *Verifier) nonceStore() NonceStore {
	if v.Nonces != nil {
		return v.Nonces
	}
	return &defaultNonces
}

func (v *Verifier) maxBodyBytes() int64 { return wire.BodyLimit(v.MaxBodyBytes) }
