package server

import (
	"crypto"
	"time"
)

// Settings are how a [Verifier] or a [Provider] verifies requests, which
// both embed: the clock, the timestamp window, the signature methods, the
// nonce store, how the base string URI is rebuilt, and what a refusal
// says. The zero value means the defaults. Settings hold no credentials
// and no observer: those are the Verifier's Store and Observe, and the
// Provider's own stores and Observe, so that a Provider cannot be given
// settings it would ignore. A Settings value may be copied, and shared
// by a Verifier and a Provider.
type Settings struct {
	// Nonces records nonces for replay protection. Nil means one
	// MemoryNonceStore with the default sizes, shared by every Verifier
	// and Provider of the process whose Nonces is nil, however it is held
	// (a copy, a value in a map, one built per request): none accepts a
	// request that another accepted. Sharing it refuses only true replays,
	// since a nonce is keyed by client, token, nonce and timestamp, a
	// client being a consumer key and the registration (secret or public
	// key) it was verified with, so that tenants whose clients chose the
	// same consumer key share nothing; and each client has a bounded,
	// fair share of it, one for all the registrations of its key at one
	// tenant (a secret rotated counts against the same share), so that
	// none can fill it for the others (see MemoryNonceStore). Set Nonces for other sizes, or to a store shared
	// by the instances of a service, such as redisstore's, one per tenant.
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
	// request; see "The base string URI behind a proxy" in [Verifier].
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
	// "api.example.com" or "api.example.com:8443"; see "Pinning the host" in [Verifier].
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
	// A diagnosis costs 25 HMACs ([basestring.KeyMistake]) over the
	// base string (at most seven RSA verifications for the RSA methods),
	// and a signature that is not even the right length has its base
	// string built for it, so it is bounded: a base string over 64 KiB is not
	// diagnosed, nor a badly sized signature on a request whose query and
	// form body exceed 192 KiB or whose body length is not declared; and
	// the diagnoses of all the Verifiers in the program draw on a budget
	// of bytes hashed, for each consumer key 32 MiB at once and 512 KiB a
	// second after that, for all consumer keys together 64 MiB at once
	// and 4 MiB a second (under 15 ms of CPU a second). A refusal
	// past the bound costs what it costs without DiagnoseKeys, and its
	// KeyMistake is [basestring.KeyUnchecked], with a Cause that begins
	// "not diagnosed, for its cost" and says which bound it met. So a
	// flood of badly signed requests costs on average about what as many
	// valid verifications of them cost, and a client that debugs its
	// signatures gets about 2,000 diagnoses of a small request at once,
	// then about 40 a second (or, when its base string is checked too,
	// about 25 at once, then one every two seconds).
	//
	// When no key mistake makes an HMAC signature, the key is taken as
	// right and the client's base string as wrong: KeyMistake then names
	// the bug that makes the signature (Kind
	// [basestring.BaseStringDiffers]: spaces encoded as "+", the form body
	// left out, the default port kept, ...), with the base string the
	// client signed, as [basestring.Reproduce] finds them, for at most 48
	// more HMACs and the work of building the base strings it tries,
	// drawn on the same budget as the bytes HMAC-SHA512 hashes in its time
	// (768 KiB and 1 KiB a byte of the base string, query and form body,
	// at most 1.5 MiB: a check costs about what 80 diagnoses of a small
	// request do), and none for a base string, query or form body over 8
	// KiB.
	//
	// The budget is the program's and runs on the real clock, not on the
	// Verifier's Now: every Verifier of the process, and so every test of
	// one test binary, draws on it, and no exported call refills it. A
	// test that checks a diagnosis may therefore get KeyUnchecked ("not
	// diagnosed, for its cost") after other tests spent the budget: give
	// it a consumer key of its own (each key has its own 32 MiB), keep its
	// base strings small, and accept or retry after a second a Cause that
	// begins "not diagnosed, for its cost"; a test that floods a Verifier
	// with bad signatures belongs in a package (a test binary) of its own.
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
}
