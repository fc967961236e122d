package redisstore_test

import (
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// Every instance of an API verifies requests against the same Redis, so
// that a request replayed to another instance is refused too. (Not run: it
// needs a Redis.)
func ExampleNewNonceStore() {
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs:                 []string{"redis.internal:6379"}, // several addresses for a Cluster; MasterName for Sentinel
		ContextTimeoutEnabled: true,                            // calls end at the request's deadline
		// While Redis is down or hung, a request is answered 503 within
		// about 0.35 s: go-redis's defaults take 1.7 s or more.
		DialTimeout:     150 * time.Millisecond,
		ReadTimeout:     150 * time.Millisecond,
		WriteTimeout:    150 * time.Millisecond,
		PoolTimeout:     150 * time.Millisecond,
		MaxRetries:      1,
		MaxRetryBackoff: 20 * time.Millisecond,
		DialerRetries:   1,
	})
	v := &server.Verifier{Store: server.Consumers{"dpf43f3p2l4k3l03": {Secret: "kd94hf93k423kf44"}}, Settings: server.Settings{Nonces: redisstore.NewNonceStore(rdb, "photos:oauth:")}}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		w.Write([]byte("hello, " + ver.ConsumerKey))
	})
	http.Handle("/api/", v.Middleware(api)) // 503 while Redis is unreachable
}

// A provider with several instances keeps the credentials it issues, and
// its nonces, in Redis: temporary credentials obtained from one instance
// are approved on another and exchanged, once, on a third, and token
// credentials revoked on one are refused by all. (Not run: it needs a
// Redis; the client options are those of ExampleNewNonceStore.)
func ExampleNewTokenStore() {
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs: []string{"redis.internal:6379"}, ContextTimeoutEnabled: true,
		DialTimeout: 150 * time.Millisecond, ReadTimeout: 150 * time.Millisecond, WriteTimeout: 150 * time.Millisecond,
		PoolTimeout: 150 * time.Millisecond, MaxRetries: 1, MaxRetryBackoff: 20 * time.Millisecond, DialerRetries: 1,
	})
	p := &server.Provider{
		Consumers: server.Consumers{"dpf43f3p2l4k3l03": {Secret: "kd94hf93k423kf44"}},
		Temporary: redisstore.NewTemporaryStore(rdb, "photos:oauth:"),
		Tokens:    redisstore.NewTokenStore(rdb, "photos:oauth:"),
		Settings:  server.Settings{Nonces: redisstore.NewNonceStore(rdb, "photos:oauth:")},
	}
	http.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	http.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	// The consent page at /oauth/authorize calls p.Authorize or p.Deny.
}
