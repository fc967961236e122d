package server

import (
	"crypto"
	"errors"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"net/http"
	"time"
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

	// Params holds every protocol parameter of the request except
	// oauth_signature, decoded, wherever it was sent: oauth_callback and
	// oauth_verifier, for the endpoints of §2, are read from here.
	Params []oauth1.Param

	BaseString string // the signature base string that was verified
}

// Get returns the value of the protocol parameter name, or "".
func (v *Verification) Get(name string) string {
	for _, p := range v.Params {
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
	// Store looks up consumer secrets, public keys and token secrets. A
	// Provider's Verifier leaves it nil: the Provider has its own stores.
	Store CredentialStore

	// Nonces records nonces for replay protection. Nil means one
	// MemoryNonceStore with the default sizes, shared by every Verifier
	// and Provider of the process whose Nonces is nil, however it is held
	// (a copy, a value in a map, one built per request): none accepts a
	// request that another accepted. Sharing it refuses only true replays,
	// since a nonce is keyed by consumer key, token, nonce and timestamp,
	// and each consumer key has a bounded share of it, so that one client
	// cannot fill it for the others. Set Nonces for other sizes, or to a
	// store shared by the instances of a service, such as redisstore's.
	// PLAINTEXT requests without a timestamp and nonce are not recorded
	// and have no replay protection (see SignatureMethods).
	Nonces NonceStore

	// SignatureMethods lists the accepted signature methods; nil means every HMAC
	// and RSA method (HMAC-SHA1/256/512, RSA-SHA1/256/512). PLAINTEXT, if listed, is accepted only over https
	// (RFC 5849 §3.4.4) unless AllowInsecurePlaintext is set.
	//
	// A PLAINTEXT request may omit oauth_timestamp and oauth_nonce (§3.1),
	// and one that does has no replay protection: with no timestamp to
	// check and no nonce to record, the Verifier accepts it again each time
	// it is sent, for as long as the credentials are valid. Whoever obtains
	// such a request (from a log, a proxy that terminates TLS, or the
	// client's own storage) holds the secrets anyway, since PLAINTEXT sends
	// them. A PLAINTEXT request that sends a timestamp has it checked and
	// its nonce recorded like any other.
	SignatureMethods       []string
	AllowInsecurePlaintext bool

	// Window is how far oauth_timestamp may be from the current time, in
	// either direction; zero means five minutes. Nonces are remembered for
	// as long as their timestamp is acceptable.
	Window time.Duration

	// Now is the clock; nil means time.Now. Tests set a fixed clock.
	Now func() time.Time

	// Scheme, if set, is the scheme of the base string URI of every
	// request; see "The base string URI behind a proxy".
	Scheme string

	// SchemeHeader, if set, names a request header (such as
	// X-Forwarded-Proto) whose last value, http or https, is the scheme of
	// the base string URI; it takes precedence over Scheme and the
	// connection. When the header is absent, or its last value is neither
	// http nor https, Scheme or the connection decides. Set it only when a
	// trusted proxy always sets or appends to the header.
	SchemeHeader string

	// Host, if set, is the host, with its port if that is not the
	// scheme's default, that every request must be addressed to, such as
	// "api.example.com" or "api.example.com:8443"; see "Pinning the host".
	// A request whose Host header names another host, once both are
	// normalized as the base string URI normalizes them (lowercase, default
	// port dropped), is refused with parameter_rejected (Host). Empty
	// means any host: the Host header alone makes the base string URI.
	Host string

	// RequireToken refuses requests without oauth_token (two-legged
	// requests and temporary credential requests).
	RequireToken bool

	// BodyHash, if nonzero, requires an oauth_body_hash computed with this
	// hash on every request whose body is not form-encoded (the Request Body
	// Hash extension; LTI 1.1 uses crypto.SHA1). When zero, oauth_body_hash
	// is checked when present, with the SHA-1, SHA-256 or SHA-512 hash its
	// length implies. oauth_body_hash on a form-encoded body is always
	// refused, as the extension requires.
	BodyHash crypto.Hash

	// MaxBodyBytes limits how much of a body is read, for form parameters
	// and body hashes; zero means 4 MiB, as for
	// [oauth1.Config.MaxBodyBytes], and no limit goes above 256 MiB.
	MaxBodyBytes int64

	// Realm is sent in the WWW-Authenticate header of refusals.
	Realm string

	// DiagnoseKeys, if set, has Verify name the mistake in the key of a
	// request it refuses with signature_invalid, in the refusal's
	// [ProblemError].KeyMistake: an empty token secret, the secrets
	// swapped, a secret with a trailing newline, a signature in hex, and
	// the rest [basestring.KeyMistake] tries with the secrets the
	// Verifier looked up. The operator sees it through Observe; it is
	// never sent to the client.
	//
	// A diagnosis costs up to [basestring.MaxKeyTries] HMACs over the
	// base string (at most seven RSA verifications for the RSA methods),
	// and a signature that is not even the right length has its base
	// string built for it, so it is bounded: a base string over 64 KiB is not
	// diagnosed, nor a badly sized signature on a request whose query and
	// form body exceed 192 KiB or whose body length is not declared; and
	// the diagnoses of all the Verifiers in the program draw on a budget
	// of bytes hashed, for each consumer key 2 MiB at once and 512 KiB a
	// second after that, for all consumer keys together 16 MiB at once
	// and 4 MiB a second (under 15 ms of CPU a second). A refusal
	// past the bound costs what it costs without DiagnoseKeys, and its
	// KeyMistake is [basestring.KeyUnchecked], with a Cause that begins
	// "not diagnosed, for its cost" and says which bound it met. So a
	// flood of badly signed requests costs on average about what as many
	// valid verifications of them cost, and a client that debugs its
	// signatures gets about 150 diagnoses of a small request at once,
	// then about 40 a second.
	//
	// When no key mistake makes an HMAC signature, the key is taken as
	// right and the client's base string as wrong: KeyMistake then names
	// the bug that makes the signature (Kind
	// [basestring.BaseStringDiffers]: spaces encoded as "+", the form body
	// left out, the default port kept, ...), with the base string the
	// client signed, as [basestring.Reproduce] finds them, for at most 48
	// more HMACs, drawn on the same budget, and none for a base string,
	// query or form body over 8 KiB.
	DiagnoseKeys bool

	// SendBaseString, if set, has [Verifier.WriteError] send the base
	// string the Verifier computed back to the client, as the parameter
	// oauth_signature_base_string of the problem report of a
	// signature_invalid refusal, so that the client can compare it with
	// the one it signed ([oauth1.ResponseError] does); a body that does
	// not match its oauth_body_hash is refused without it. It is meant for
	// sandboxes and development. The base string reveals nothing the
	// client did not send (its method, path, query, form body and
	// protocol parameters; never a secret or the signature) except the
	// scheme, host and port the provider saw, which show how it is
	// deployed (behind a proxy that terminates TLS, say), and that the
	// base string is computed at all: it tells an attacker exactly what
	// to sign. Leave it off in production.
	SendBaseString bool

	// Observe, if set, is called by Middleware for every request, before
	// the answer is written: v is what Verify found, nil if it refused
	// the request; err is why, if it did. Refusals are answered with as
	// little detail as the protocol allows, and errors that are not the
	// client's (a store down, a Verifier without Store) with none: log
	// them here. A [*ProblemError]'s BaseString and KeyMistake, never
	// sent to the client (the BaseString is, with SendBaseString), are
	// worth logging too. Verify itself does not call it. A Provider's
	// Verifier leaves it nil: the Provider has its own Observe.
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

// Verify checks the OAuth signature of r and returns what it found. A
// refused request is a [*ProblemError]; other errors come from the
// CredentialStore or the NonceStore, or are [oauth1.ErrBodyTooLarge].
//
// Verify reads a form-encoded body (and, for oauth_body_hash, any body) and
// replaces r.Body with an in-memory copy, so that the handler can still
// read it. The nonce is recorded only once everything else checks out: a
// refused request never uses up its nonce.
func (v *Verifier) Verify(r *http.Request) (*Verification, error) {
	if v.Store == nil {
		return nil, errors.New("oauth1: Verifier.Store is nil")
	}
	if r == nil || r.URL == nil {
		return nil, errors.New("oauth1: Verify: nil request or URL")
	}
	s := getState()
	defer putState(s)
	q := &found{s: s, r: r, limit: v.maxBodyBytes()}
	if err := q.collect(); err != nil {
		return nil, err
	}
	// A form body is read only for a consumer the store knows, when the
	// header or the query names it: else only a body can name it.
	if q.form && q.hasBody && q.sent&sentConsumerKey != 0 {
		if err := v.lookupConsumer(q); err != nil {
			return nil, err
		}
	}
	if err := q.collectBody(); err != nil {
		return nil, err
	}
	// Cheap checks first, then the lookups, the signature and the nonce.
	if err := v.checkRequired(q); err != nil {
		return nil, err
	}
	if err := v.checkTime(q); err != nil {
		return nil, err
	}
	if err := v.lookup(q); err != nil {
		return nil, err
	}
	if err := v.checkSigned(q); err != nil {
		return nil, err
	}
	if err := v.useNonce(q); err != nil {
		return nil, err
	}
	return q.verification(), nil
}
