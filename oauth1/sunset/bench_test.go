package sunset_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
)

// BenchmarkUsageRecord is the cost of counting a request, from all CPUs
// at once, over 1000 clients.
func BenchmarkUsageRecord(b *testing.B) {
	var u sunset.Usage
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "consumer-" + strconv.Itoa(i)
	}
	now := time.Now()
	var seq atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := int(seq.Add(1)) * 7919
		for pb.Next() {
			u.Record(keys[i%len(keys)], now)
			i++
		}
	})
}

// BenchmarkVerify is a Verifier's Middleware on a signed request, alone
// and with the kit (a Policy's Handler in front, a Usage as Observe): the
// difference is the kit's cost per request.
func BenchmarkVerify(b *testing.B) {
	now := time.Date(2026, time.August, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	p := sunset.Policy{
		Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Now:         clock,
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for _, kit := range []bool{false, true} {
		var u sunset.Usage
		v := &server.Verifier{Store: server.Consumers{"garmin-connect-iq": {Secret: "s3cret"}}, Settings: server.Settings{Now: clock, Nonces: anyNonce{}}}
		h := v.Middleware(ok)
		name := "alone"
		if kit {
			v.Observe, name = observe(&u), "kit"
			h = p.Handler(h)
		}
		b.Run(name, func(b *testing.B) {
			r := signedRequest(b, "garmin-connect-iq", "s3cret", now, "nonce")
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, r)
				if w.code != 0 {
					b.Fatalf("status %d", w.code)
				}
			}
		})
	}
}

// BenchmarkHandler is a Policy's Handler alone, announcing.
func BenchmarkHandler(b *testing.B) {
	now := time.Date(2026, time.August, 1, 0, 0, 0, 0, time.UTC)
	p := sunset.Policy{
		Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Now:         func() time.Time { return now },
	}
	h := p.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := httptest.NewRequest("GET", "/", nil)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

// anyNonce accepts every nonce, so that one request can be verified again
// and again.
type anyNonce struct{}

func (anyNonce) Use(_ context.Context, _ server.Nonce, _, _ time.Time) (bool, error) {
	return true, nil
}

type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// BenchmarkKit is what the kit adds to each OAuth 1.0a request, without
// the verification it goes with: a Policy's Handler announcing, and a
// Usage counting the request as a Verifier's Observe does, from all CPUs.
func BenchmarkKit(b *testing.B) {
	now := time.Date(2026, time.August, 1, 0, 0, 0, 0, time.UTC)
	p := sunset.Policy{
		Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC),
		Sunset:      time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC),
		Link:        "https://developer.example.com/oauth2-migration",
		Now:         func() time.Time { return now },
	}
	var u sunset.Usage
	ver := &server.Verification{ConsumerKey: "garmin-connect-iq"}
	obs := observe(&u)
	h := p.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { obs(r, ver, nil) }))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		r := httptest.NewRequest("GET", "/", nil)
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, r)
		}
	})
}

// observe returns the Observe hook of a Verifier or a Provider that
// counts verified requests in u, as the docs of Usage show.
func observe(u *sunset.Usage) func(*http.Request, *server.Verification, error) {
	return func(r *http.Request, v *server.Verification, err error) {
		if v != nil {
			u.Record(v.ConsumerKey, time.Now())
		}
	}
}
