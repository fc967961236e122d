package bench

// Benchmarks of many tenants, tokens and clients: signing with one Config
// for many tokens, with many Configs (and a fresh Config per request), and
// verifying many clients, each beside the one-token, one-Config,
// one-client case. Keyed HMAC states are cached by hash and secrets; these
// show whether the cache holds up past a handful of keys.

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

var manyCounts = []int{1, 1000}

func BenchmarkSignManyTokens(b *testing.B) {
	for _, n := range manyCounts {
		b.Run("tokens="+strconv.Itoa(n), func(b *testing.B) {
			toks := make([]*oauth1.Credentials, n)
			for i := range toks {
				toks[i] = &oauth1.Credentials{Token: token, Secret: tokenSecret + strconv.Itoa(i)}
			}
			r := xExample.request(b)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if err := xConfig.SignAt(r, toks[i%n], xTime, nonce); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

func BenchmarkSignManyConfigs(b *testing.B) {
	for _, n := range manyCounts {
		b.Run("configs="+strconv.Itoa(n), func(b *testing.B) {
			cfgs := make([]*oauth1.Config, n)
			for i := range cfgs {
				c := *xConfig
				c.ConsumerSecret = consumerSecret + strconv.Itoa(i)
				cfgs[i] = &c
			}
			r := xExample.request(b)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if err := cfgs[i%n].SignAt(r, xToken, xTime, nonce); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("configs=fresh", func(b *testing.B) {
		r := xExample.request(b)
		b.ReportAllocs()
		for b.Loop() {
			c := &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
			if err := c.SignAt(r, xToken, xTime, nonce); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// manyStore gives consumer key "k<i>" the secret consumerSecret+"<i>".
type manyStore struct{}

func (manyStore) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	return server.Registration{Secret: consumerSecret + strings.TrimPrefix(key, "k")}, nil
}

func (manyStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	return server.TokenCredentials{Token: token, Secret: tokenSecret, ConsumerKey: key}, nil
}

func BenchmarkVerifyManyClients(b *testing.B) {
	for _, n := range manyCounts {
		b.Run("clients="+strconv.Itoa(n), func(b *testing.B) {
			headers := make([]string, n)
			for i := range headers {
				c := &oauth1.Config{ConsumerKey: "k" + strconv.Itoa(i), ConsumerSecret: consumerSecret + strconv.Itoa(i)}
				r := xExample.request(b)
				if err := c.SignAt(r, xToken, xTime, nonce); err != nil {
					b.Fatal(err)
				}
				headers[i] = r.Header.Get("Authorization")
			}
			v := &server.Verifier{Store: manyStore{}, Settings: server.Settings{Nonces: freshNonces{}, Now: func() time.Time { return time.Unix(timestamp, 0) }}}
			r := received(b, xExample)
			body := strings.NewReader(xExample.body)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(xExample.body)
				r.Body, r.GetBody = io.NopCloser(body), nil
				r.Header.Set("Authorization", headers[i%n])
				if _, err := v.Verify(r); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkSignDistinctTokens signs for 1,000 tokens in turn that differ in
// their token too, not only in their secret: the signing state renders the
// Config's own parameters afresh at each request (issue 40), which
// tokens=1 never does.
func BenchmarkSignDistinctTokens(b *testing.B) {
	for _, n := range manyCounts {
		b.Run("tokens="+strconv.Itoa(n), func(b *testing.B) {
			toks := make([]*oauth1.Credentials, n)
			for i := range toks {
				toks[i] = &oauth1.Credentials{Token: token[:len(token)-4] + strconv.Itoa(1000+i), Secret: tokenSecret + strconv.Itoa(i)}
			}
			r := xExample.request(b)
			i := 0
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					if err := xConfig.SignAt(r, toks[i%n], xTime, nonce); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}
