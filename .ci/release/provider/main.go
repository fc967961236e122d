// Command provider is a provider with several instances, as a new user of
// the published modules writes it: server.Provider keeping its tokens and
// nonces in Redis through redisstore. .ci/release-check only builds it
// (running it needs a Redis), against the modules as downloaded from a
// module proxy, not from this repository.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

func main() {
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{os.Getenv("REDIS_ADDR")}})
	p := &server.Provider{
		Consumers: server.Consumers{"consumer-key": {Secret: "consumer-secret"}},
		Temporary: redisstore.NewTemporaryStore(rdb, "myapp:oauth:"),
		Tokens:    redisstore.NewTokenStore(rdb, "myapp:oauth:"),
		Settings:  server.Settings{Nonces: redisstore.NewNonceStore(rdb, "myapp:oauth:")},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.Handle("/api/", p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		w.Write([]byte("hello, " + ver.ConsumerKey))
	})))
	log.Fatal(http.ListenAndServe("localhost:8080", mux))
}
