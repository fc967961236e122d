// Package server is the server side of OAuth 1.0a (RFC 5849 §1 names the
// roles client and server): it verifies signed requests and issues
// credentials. Clients need only package
// [github.com/countersign/countersign/oauth1], which does not import this
// one, so a program that only signs requests does not link it.
//
// A [Verifier] checks an incoming request with the same base string code
// the client signs with: the protocol parameters, the signature (in
// constant time), the timestamp window and, through a [NonceStore], that
// the request is not a replay. It finds secrets and public keys in a
// [CredentialStore]; [Consumers] is one for two-legged providers and LTI 1.1
// tools, which know only clients:
//
//	v := &server.Verifier{Store: server.Consumers{"key": {Secret: "secret"}}}
//	mux.Handle("/api/", v.Middleware(api)) // the handler reads server.FromContext(r.Context())
//
// A refused request is a [*ProblemError] with a code of the OAuth Problem
// Reporting extension ([oauth1.Problem]) in its [oauth1.ProblemReport],
// the fields a client's [oauth1.ResponseError] reads back under the same
// names; [Verifier.WriteError] answers it.
// The error's BaseString, never sent to the client, is what the client
// should have signed: compare it with the client's, for instance with
// package [github.com/countersign/countersign/oauth1/basestring]. When the
// base strings agree, the key differs: a Verifier with DiagnoseKeys names
// how in the error's KeyMistake, for the operator only. A sandbox's
// Verifier with SendBaseString sends the base string to the client, whose
// [oauth1.ResponseError] then names the difference itself.
//
// A [Provider] adds the endpoints that issue credentials (§2): the
// temporary credential and token request handlers, and Authorize and Deny
// for the provider's own consent page. It verifies with Verifiers of its
// own, built from its [Settings] (those a Verifier has too, without a
// store or an observer: the Provider looks credentials up in its own
// stores and has an Observe of its own), and keeps
// temporary credentials in a [TemporaryStore] and token credentials, until
// they are revoked ([Provider.Revoke], [Provider.RevokeGrant]), in a
// [TokenStore]: [MemoryTemporaryStore] and [MemoryTokenStore] for one
// process, or shared stores, such as the Redis ones of module
// github.com/countersign/countersign/redisstore, for several instances,
// which also need a shared NonceStore. Every store call is passed the
// Provider's clock, and a store that cannot be reached says so with
// [ErrStoreUnavailable], which is answered 503 with Retry-After; package
// [github.com/countersign/countersign/oauth1/oauth1test] checks a store
// against its interface's contract.
//
// # Who uses what
//
// A provider reads this package (56 exported names: types, functions,
// methods, variables and constants) and the vocabulary it shares with
// clients in package oauth1: [oauth1.Param], [oauth1.Problem] and its codes,
// [oauth1.ProblemReport], [oauth1.ParseAuthHeader]. A client reads only package oauth1 (67).
package server
