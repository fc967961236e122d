package bench

import (
	"context"
	"crypto/tls"
	"io"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// The X API documentation's example request, with its published signature.
const (
	xBody   = "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"
	xHeader = `OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"`
)

type xStore struct{}

func (xStore) Consumer(context.Context, string) (oauth1.Registration, error) {
	return oauth1.Registration{Secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}, nil
}

func (xStore) TokenSecret(context.Context, string, string) (string, error) {
	return "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE", nil
}

// freshNonces accepts every nonce, so that one signed request can be
// verified over and over; BenchmarkMemoryNonceStoreUse measures the store.
type freshNonces struct{}

func (freshNonces) Use(context.Context, oauth1.Nonce, time.Time, time.Time) (bool, error) {
	return true, nil
}

// BenchmarkVerify verifies the X example request as a server receives it:
// header parsing, the form body, the base string and HMAC-SHA1; beside the
// floor of signing it.
func BenchmarkVerify(b *testing.B) {
	b.Run("case=XExample/lib=floor", func(b *testing.B) { benchFloor(b, signCases[0]) })
	b.Run("case=XExample/lib=countersign", benchVerify)
}

func benchVerify(b *testing.B) {
	v := &oauth1.Verifier{
		Credentials: xStore{},
		Nonces:      freshNonces{},
		Now:         func() time.Time { return time.Unix(1318622958, 0) },
	}
	r := httptest.NewRequest("POST", "/1.1/statuses/update.json?include_entities=true", nil)
	r.Host = "api.twitter.com"
	r.TLS = &tls.ConnectionState{}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Authorization", xHeader)
	body := strings.NewReader(xBody)
	b.ReportAllocs()
	for b.Loop() {
		body.Reset(xBody)
		r.Body, r.GetBody = io.NopCloser(body), nil
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
}

// BenchmarkMemoryNonceStoreUse records distinct nonces. MaxNonces is
// raised so that a long run, which records more than the default million
// within one window, measures recording rather than refusals.
func BenchmarkMemoryNonceStoreUse(b *testing.B) {
	m := oauth1.MemoryNonceStore{MaxNonces: 1 << 24}
	now := time.Unix(1318622958, 0)
	ctx := context.Background()
	n := oauth1.Nonce{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", Token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", Timestamp: now.Unix()}
	buf := make([]byte, 0, 32)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		buf = strconv.AppendInt(buf[:0], int64(i), 36)
		n.Nonce = string(buf)
		if ok, err := m.Use(ctx, n, now, now.Add(5*time.Minute)); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkMemoryNonceStore1M fills a store with a million nonces and
// reports the heap it holds per nonce. Run it once: -benchtime=1x.
func BenchmarkMemoryNonceStore1M(b *testing.B) {
	const count = 1_000_000
	now := time.Unix(1318622958, 0)
	ctx := context.Background()
	var perNonce float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := &oauth1.MemoryNonceStore{MaxNonces: 2 * count}
		n := oauth1.Nonce{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", Timestamp: now.Unix()}
		buf := make([]byte, 0, 32)
		for i := range count {
			buf = strconv.AppendInt(buf[:0], int64(i), 36)
			n.Nonce = string(buf)
			if ok, err := m.Use(ctx, n, now, now.Add(5*time.Minute)); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if m.Len() != count {
			b.Fatalf("Len() = %d, want %d", m.Len(), count)
		}
		perNonce = float64(after.HeapAlloc-before.HeapAlloc) / count
		runtime.KeepAlive(m)
	}
	b.ReportMetric(perNonce, "bytes/nonce")
}
