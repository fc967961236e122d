package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// Run with a redis-server on PATH (or REDIS_ADDR):
//
//	cd redisstore && go test -run '^$' -bench . -count 3
//
// BenchmarkVerify times Verify alone (the requests are signed with the
// timer stopped), one request after another, and reports verifications per
// second: with Redis, one loopback round trip each.

func benchStores(b *testing.B) []struct {
	name  string
	store func() server.NonceStore
} {
	return []struct {
		name  string
		store func() server.NonceStore
	}{
		{"store=memory", func() server.NonceStore { return new(server.MemoryNonceStore) }},
		{"store=redis", func() server.NonceStore {
			// Configured as the package doc says: deadlines honoured by the client.
			c := redis.NewClient(&redis.Options{Addr: sharedAddr(b), ContextTimeoutEnabled: true})
			b.Cleanup(func() { c.Close() })
			return redisstore.NewNonceStore(c, testPrefix(b))
		}},
	}
}

// signedRequest returns a GET signed now with the nonce n.
func signedRequest(b *testing.B, n int64) *http.Request {
	r := httptest.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
	if err := client.SignAt(r, &oauth1.Credentials{Token: token, Secret: tokenSecret}, time.Now(), "bench"+strconv.FormatInt(n, 10)); err != nil {
		b.Fatal(err)
	}
	return r
}

func BenchmarkVerify(b *testing.B) {
	for _, bs := range benchStores(b) {
		b.Run(bs.name, func(b *testing.B) {
			v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: bs.store()}}
			var batch [256]*http.Request
			var n int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%len(batch) == 0 {
					b.StopTimer() // signing is the client's work
					for j := range batch {
						n++
						batch[j] = signedRequest(b, n)
					}
					b.StartTimer()
				}
				if _, err := v.Verify(batch[i%len(batch)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifications/s")
		})
	}
}

// BenchmarkNonceStoreParallel times the store alone, with 8 goroutines per
// CPU recording fresh nonces at once, as a busy server would: Redis
// answers several clients' commands in the time of one round trip.
func BenchmarkNonceStoreParallel(b *testing.B) {
	for _, bs := range benchStores(b) {
		b.Run(bs.name, func(b *testing.B) {
			s := bs.store()
			var n atomic.Int64
			b.SetParallelism(8)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					now := time.Now()
					nonce := server.Nonce{ConsumerKey: consumerKey, Token: token, Value: strconv.FormatInt(n.Add(1), 10), Timestamp: now.Unix()}
					if fresh, err := s.Use(ctx, nonce, now, now.Add(5*time.Minute)); err != nil || !fresh {
						b.Errorf("Use = %v, %v; want true", fresh, err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "uses/s")
		})
	}
}

// BenchmarkVerifyLoad measures what a provider serves: verifications per
// second and the latency of each (median and 99th percentile), with 1 and
// with 64 clients verifying at once, against the in-memory and the Redis
// nonce store. Requests are signed before the timer starts.
func BenchmarkVerifyLoad(b *testing.B) {
	for _, bs := range benchStores(b) {
		for _, clients := range []int{1, 64} {
			b.Run(bs.name+"/clients="+strconv.Itoa(clients), func(b *testing.B) {
				v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: bs.store()}}
				reqs := make([]*http.Request, b.N)
				base := time.Now().UnixNano()
				for i := range reqs {
					reqs[i] = signedRequest(b, base+int64(i))
				}
				lat := make([]time.Duration, b.N)
				var next atomic.Int64
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							i := next.Add(1) - 1
							if i >= int64(len(reqs)) {
								return
							}
							start := time.Now()
							if _, err := v.Verify(reqs[i]); err != nil {
								b.Error(err)
								return
							}
							lat[i] = time.Since(start)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifications/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}
