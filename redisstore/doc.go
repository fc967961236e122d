// Package redisstore keeps the provider-side state of package server in
// Redis, so that several instances of a service share it: a
// [NonceStore], with which a replay refused by one instance is refused by
// all, and a [TokenStore] for the credentials of the three-legged flow
// (RFC 5849 §2), whose one-time exchange holds across instances.
//
// Both take a [redis.UniversalClient], so a single node, Sentinel and
// Cluster all work: every command and every script touches a single key,
// so no hash tags are needed (the tests run on a three-master Cluster). Keys start with
// the prefix given to the constructor, so that one Redis can serve several
// applications.
//
// Wiring a Verifier on each instance to one Redis:
//
//	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
//		Addrs:                 []string{"redis:6379"},
//		ContextTimeoutEnabled: true,
//	})
//	v := &server.Verifier{
//		Store:  creds,
//		Nonces: redisstore.NewNonceStore(rdb, "myapp:oauth:"),
//	}
//	http.Handle("/api/", v.Middleware(api))
//
// and a Provider, which issues credentials and looks them up itself (its
// Verifier holds settings only; its Store is ignored):
//
//	p := &server.Provider{
//		Consumers: consumers,
//		Tokens:    redisstore.NewTokenStore(rdb, "myapp:oauth:"),
//		Verifier:  &server.Verifier{Nonces: redisstore.NewNonceStore(rdb, "myapp:oauth:")},
//	}
//
// # Failure
//
// When Redis cannot be reached, the stores return errors and never guess:
// [server.Verifier.Verify] refuses the request with an error wrapping
// [server.ErrNonceStoreUnavailable], which [server.Verifier.Middleware]
// answers with 503 Service Unavailable (a TokenStore error is refused too,
// with 500).
//
// Every call returns by its context's deadline (the request's, for a
// Verifier in a Middleware): with an error wrapping
// [context.DeadlineExceeded] if Redis has not answered by then, even when
// Redis hangs rather than refuses connections. go-redis itself honours
// deadlines only with ContextTimeoutEnabled; create the client with it
//
//	redis.NewUniversalClient(&redis.UniversalOptions{Addrs: addrs, ContextTimeoutEnabled: true})
//
// and a call abandoned at its deadline also frees its connection. Without
// it the store still returns at the deadline, but leaves the call to
// finish, or to time out by the client's ReadTimeout (3 s by default), on
// a goroutine of its own. Without a deadline a call waits as long as the
// client's timeouts and retries allow; set them to what the service can
// afford.
//
// # Memory and eviction
//
// Redis must never evict a nonce: a replay whose nonce was evicted is
// accepted again. Every maxmemory-policy but noeviction evicts keys with a
// TTL, which all nonces have, once Redis reaches its maxmemory, and a flood
// of requests fills it. So the Redis that holds nonces must have
// maxmemory-policy noeviction (or no maxmemory). Then a full Redis refuses
// writes instead: Use returns an error, the Verifier refuses every request,
// replays and fresh ones alike, with 503 Service Unavailable, and serves
// again once nonces expire and free memory (within the timestamp window).
// A Redis that must evict, such as one shared with a cache, cannot hold the
// nonces; give them a Redis instance of their own (another database number
// of the same instance shares its maxmemory and policy, and does not help).
// [Check] reads the policy of every node, for a start-up or health check.
//
// Temporary credentials are bounded per client
// ([TokenStore.MaxTemporaryPerClient]), so that one client cannot fill
// Redis with them; a Provider answers a client over its quota with 503.
//
// Redis must keep what it was told: nonces, like credentials, are only as
// durable as the Redis that holds them. A Redis restarted without
// persistence, or a replica promoted before it received a write, forgets
// the nonces recorded since, and a request replayed within its timestamp
// window (five minutes by default) would then be accepted once more.
package redisstore
