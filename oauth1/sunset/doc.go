// Package sunset helps a provider retire OAuth 1.0a, and a client's
// developer notice it in time.
//
// # Provider side
//
// A [Policy] announces the retirement on every OAuth 1.0a response, from
// the date the provider sets, with the Deprecation header of RFC 9745 (an
// RFC 9651 Date, "@" and Unix seconds), the Sunset header of RFC 8594 (an
// HTTP-date) and a Link to the migration guide with the relations
// "deprecation" (RFC 9745 §3) and "sunset" (RFC 8594 §6):
//
//	Deprecation: @1780272000
//	Sunset: Thu, 31 Dec 2026 23:59:59 GMT
//	Link: <https://developer.example.com/oauth2-migration>; rel="deprecation"
//	Link: <https://developer.example.com/oauth2-migration>; rel="sunset"
//
// With Announce set, it sends them months before the deprecation itself,
// a Deprecation date in the future, as both RFCs let a provider do. It
// refuses OAuth 1.0a requests during scheduled brownouts (401
// Unauthorized) and after the cut-off (410 Gone) with an OAuth Problem
// Reporting answer that a client's [oauth1.CheckResponse] reads:
// oauth_problem=version_rejected, the problem code of an OAuth version the
// provider no longer accepts, and advice that names the dates and the link.
// Its [Policy.Handler] goes around the handlers that serve OAuth 1.0a, a
// server.Verifier's or a server.Provider's, so that a refusal costs no
// verification; check the Policy with [Policy.Validate] first:
//
//	retire := sunset.Policy{Deprecation: dep, Sunset: cutoff, Link: guide}
//	if err := retire.Validate(); err != nil {
//		log.Fatal(err)
//	}
//	mux.Handle("/api/", retire.Handler(p.Middleware(api)))
//	mux.Handle("POST /oauth/access_token", retire.Handler(p.AccessTokenHandler()))
//
// A [Usage] counts who still uses OAuth 1.0a: the requests of each
// consumer key, its exchanges for OAuth 2.0 tokens, and when it was last
// seen, from the Observe hook of a Verifier or a Provider, which sees which
// consumer signed a request (see [Usage] for the hook). It counts only
// requests whose signature was verified, so a flood of unknown keys does
// not grow it, and holds at most MaxClients keys, counting what it could
// not hold in [Usage.Dropped]. Counting costs a map lookup and two atomic
// operations a request, without a lock. [Usage.Flush] adds the counts to a
// store shared by a service's instances, such as the Usage of package
// [github.com/countersign/countersign/redisstore].
//
// # Client side
//
// A [Transport] reads the headers of every response a client receives,
// the successful ones first of all, and calls a hook or logs a warning
// once per host. [Read] reads them from any response into a [Notice];
// [oauth1.ResponseError]'s message names them too, and so does the command
// oauth1 response. Reading is bounded, whatever a provider sends.
//
// Package sunset imports no provider code: a client that reads notices
// does not link package server.
//
// # Retiring OAuth 1.0a
//
// A provider walks its clients across in five steps; the package's
// example RetiringOAuth1 runs them, both sides, in one process.
//
//  1. Announce. Set a [Policy] with Announce months ahead, a Deprecation
//     date, the Sunset (the cut-off) and a Link to the migration guide,
//     check it with [Policy.Validate], and put [Policy.Handler] around
//     every handler that serves OAuth 1.0a. Every response then carries
//     the headers, successful ones first of all.
//  2. Count. Record each verified request in a [Usage] from the Observe
//     hook of the Verifier or Provider, and flush it to a store shared by
//     the instances (redisstore's Usage): [Usage.Clients] says who still
//     signs with OAuth 1.0a, and when each was last seen.
//  3. Exchange. Serve an RFC 8693 token exchange with the Handler of
//     package [github.com/countersign/countersign/oauth1/server/tokenexchange]:
//     it takes the proof of a 1.0a grant (a signed request, or X's shape
//     with the token and its secret in the body), hands the grant to the
//     provider's own OAuth 2.0 server through one small interface, answers
//     each grant once across every instance, revokes the 1.0a token after
//     a grace period, and counts exchanges with [Usage.RecordExchange].
//     The revocations due are kept in its Store, so that any instance
//     makes them on time, whichever stops; run its RevokeDue from a
//     ticker too. Instances share the Store and the nonce store together
//     (redisstore's ExchangeStore and NonceStore): with the Store shared
//     and nonces per instance, a signed exchange replayed to another
//     instance would get the live OAuth 2.0 token, so the Handler refuses
//     signed exchanges so configured.
//  4. Brown out. Schedule [Brownout] windows before the cut-off: the
//     clients [Usage] still counts hear it as refusals they cannot miss.
//  5. Cut off. From Sunset on, the Handler answers 410 Gone.
//
// A client's developer hears it and crosses over in three steps:
//
//  1. Notice. Put a [Transport] around the signing transport: its Notify
//     hook (or a warning logged once per host) reports the first response
//     that announces a retirement. [oauth1.ResponseError] names it on a
//     refusal too, and the command oauth1 response reads it from a saved
//     response.
//  2. Exchange. Trade each stored 1.0a token for an OAuth 2.0 token with
//     package [github.com/countersign/countersign/oauth1/exchange] (X's
//     exchange, or a provider's OAuth-1-signed one, as Intuit and Xero
//     publish it), or for a whole database dump with the command
//     oauth1 migrate, which resumes where an interrupted run stopped and
//     never exchanges a token twice.
//  3. Switch. Call the API with the OAuth 2.0 token through a
//     golang.org/x/oauth2 client, whose TokenSource refreshes it.
//
// An LTI 1.1 tool moving to LTI 1.3 checks the platform's migration claim
// with package [github.com/countersign/countersign/oauth1/lti1p1].
package sunset
