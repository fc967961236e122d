// Package redisstore keeps the provider-side state of package server in
// Redis, so that several instances of a service share it: a
// [NonceStore], with which a replay refused by one instance is refused by
// all, and, for the credentials of the three-legged flow (RFC 5849 §2), a
// [TemporaryStore], whose one-time exchange holds across instances, and a
// [TokenStore], whose revocations do.
//
// For a provider retiring OAuth 1.0a, a [Usage] sums the usage counts of
// package [github.com/countersign/countersign/oauth1/sunset] over the
// instances: who still uses OAuth 1.0a, and when they were last seen.
//
// All take a [redis.UniversalClient], so a single node, Sentinel and
// Cluster all work: a script that touches several keys keeps them in one
// Cluster slot with a hash tag (the token counts under {tokens}, an
// exchange's two keys under their hash), and every other command touches
// one key (the tests run on a three-master Cluster); a prefix that holds
// "{" or "}" does not work on a Cluster. Keys start with
// the prefix given to the constructor, so that one Redis can serve several
// applications, and several tenants of one: the stores key a client by its
// consumer key alone, so tenants whose clients may choose the same consumer
// key (as LTI tools let each customer do) each take a prefix of their own,
// such as "myapp:tenant-a:", for each store they use.
//
// It is a module of its own, so that only a provider that uses Redis
// depends on go-redis; its version is always the main module's, which it
// requires (the tags are vX.Y.Z and redisstore/vX.Y.Z, on one commit):
//
//	go get github.com/countersign/countersign/redisstore@latest
//
// Wiring a Verifier on each instance to one Redis, with a client that
// gives up within about 0.35 s when Redis is down or hung (see Failure):
//
//	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
//		Addrs:                 []string{"redis:6379"},
//		ContextTimeoutEnabled: true,
//		DialTimeout:           150 * time.Millisecond,
//		ReadTimeout:           150 * time.Millisecond,
//		WriteTimeout:          150 * time.Millisecond,
//		PoolTimeout:           150 * time.Millisecond,
//		MaxRetries:            1,
//		MaxRetryBackoff:       20 * time.Millisecond,
//		DialerRetries:         1,
//	})
//	v := &server.Verifier{
//		Store:    creds,
//		Settings: server.Settings{Nonces: redisstore.NewNonceStore(rdb, "myapp:oauth:")},
//	}
//	http.Handle("/api/", v.Middleware(api))
//
// and a Provider, which issues credentials and looks them up itself:
//
//	p := &server.Provider{
//		Consumers: consumers,
//		Temporary: redisstore.NewTemporaryStore(rdb, "myapp:oauth:"),
//		Tokens:    redisstore.NewTokenStore(rdb, "myapp:oauth:"),
//		Settings:  server.Settings{Nonces: redisstore.NewNonceStore(rdb, "myapp:oauth:")},
//	}
//
// # Failure
//
// When Redis cannot be reached, does not answer in time or refuses a
// command (a full Redis refuses writes), every call of every store returns
// an error wrapping [server.ErrStoreUnavailable], and never guesses: the
// Verifier and the Provider refuse the request with 503 Service
// Unavailable and Retry-After. A reply of the wrong shape is an error too,
// answered 500.
//
// How long a request waits before that answer is the client's to decide.
// go-redis's defaults retry a dial five times and a command three, about
// 1.7 s a call while Redis refuses connections, and more while it hangs;
// the options above (one retry of each, 150 ms timeouts) answer within
// about 20 ms when Redis refuses connections and 0.35 s when it hangs,
// measured with the package's tests. Loosen them if Redis is far away or
// slow at times.
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
// TTL, which all nonces have, once Redis reaches its maxmemory. So the
// Redis that holds nonces must have maxmemory-policy noeviction (or no
// maxmemory). Then a full Redis refuses writes instead: Use returns an
// error, the Verifier refuses every fresh request with 503 Service
// Unavailable (a replay is still refused as one), and serves again once
// nonces expire and free memory (within the timestamp window).
//
// Nonces are bounded per client ([NonceStore.MaxNoncesPerConsumer]), so
// that a registered client flooding valid requests fills its own share,
// about 20 MB of Redis at the default share, and is answered 503, while
// the other clients are served; see the sizing in [NonceStore]. Past a
// floor, a client may also take no more of Redis's free memory than it
// leaves, below three quarters of maxmemory, so that any number of
// clients flooding at once leave the last quarter to the clients that hold
// few nonces (Fair refusal in [NonceStore]).
// A Redis that must evict, such as one shared with a cache, cannot hold the
// nonces; give them a Redis instance of their own (another database number
// of the same instance shares its maxmemory and policy, and does not help).
// [Check] reads the policy of every node, for a start-up or health check.
//
// Temporary credentials are bounded per client
// ([TemporaryStore.MaxTemporaryPerClient]), so that one client cannot fill
// Redis with them; a Provider answers a client over its quota with 503.
//
// # Durability: lost nonces and lost revocations
//
// Redis must keep what it was told: nonces, like credentials, are only as
// durable as the Redis that holds them. A Redis restarted without
// persistence, or a replica promoted before it received a write, forgets
// the nonces recorded since, and a request replayed within its timestamp
// window (five minutes by default) would then be accepted once more.
//
// A lost revocation is worse: it re-enables the token. [TokenStore.Revoke]
// and [TokenStore.RevokeGrant] return once the primary holds the
// revocation, not once it is on disk or on a replica. Restoring Redis from
// a snapshot (an RDB file or a backup) taken before a revocation, failing
// over to a replica that had not received it, or restarting Redis without
// persistence brings back the token credentials as they were, and every
// Verifier accepts them again, for good: token credentials do not expire.
// Run the Redis that holds tokens with persistence (appendonly yes), keep
// a record of revocations outside Redis (the audit log or database where
// the user's "disconnect" is recorded), and after any restore or failover
// revoke again every token revoked since the point Redis was restored to.
package redisstore
