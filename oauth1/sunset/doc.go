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
package sunset
