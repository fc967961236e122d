package bench

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// xStore knows the one consumer and token of the cases in sign_test.go.
type xStore struct{}

func (xStore) Consumer(context.Context, string, time.Time) (server.Registration, error) {
	return server.Registration{Secret: consumerSecret}, nil
}

func (xStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	return server.TokenCredentials{Token: token, Secret: tokenSecret, ConsumerKey: key}, nil
}

// freshNonces accepts every nonce, so that one signed request can be
// verified over and over; BenchmarkMemoryNonceStoreUse measures the store.
type freshNonces struct{}

func (freshNonces) Use(context.Context, server.Nonce, time.Time, time.Time) (bool, error) {
	return true, nil
}

// BenchmarkVerify verifies the X example request, with its published
// header, as a server receives it: header parsing, the form body, the base
// string and HMAC-SHA1; beside the floor of signing it.
func BenchmarkVerify(b *testing.B) {
	b.Run("case="+xExample.name+"/lib=floor", func(b *testing.B) { benchFloor(b, xExample) })
	b.Run("case="+xExample.name+"/lib=countersign", benchVerify)
}

func benchVerify(b *testing.B) {
	v := &server.Verifier{Store: xStore{}, Settings: server.Settings{Nonces: freshNonces{}, Now: func() time.Time { return time.Unix(timestamp, 0) }}}
	r := received(b, xExample)
	r.Header.Set("Authorization", xHeader)
	body := strings.NewReader(xExample.body)
	b.ReportAllocs()
	reportCPU(b, func() {
		for b.Loop() {
			body.Reset(xExample.body)
			r.Body, r.GetBody = io.NopCloser(body), nil
			if _, err := v.Verify(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
}

// received returns c's request as a server's handler sees it: a path
// rather than a full URL, the host in Host, TLS set for https.
func received(tb testing.TB, c signCase) *http.Request {
	u, err := url.Parse(c.url)
	if err != nil {
		tb.Fatal(err)
	}
	r := httptest.NewRequest(c.method, u.RequestURI(), nil)
	r.Host = u.Host
	if u.Scheme == "https" {
		r.TLS = &tls.ConnectionState{}
	}
	if c.contentType != "" {
		r.Header.Set("Content-Type", c.contentType)
	}
	return r
}

// BenchmarkMemoryNonceStoreUse records distinct nonces. MaxNonces is
// raised so that a long run, which records more than the default million
// within one window, measures recording rather than refusals.
func BenchmarkMemoryNonceStoreUse(b *testing.B) {
	m := server.MemoryNonceStore{MaxNonces: 1 << 24, MaxNoncesPerConsumer: 1 << 24}
	now := time.Unix(timestamp, 0)
	ctx := context.Background()
	n := server.Nonce{ConsumerKey: consumerKey, Token: token, Timestamp: now.Unix()}
	buf := make([]byte, 0, 32)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		buf = strconv.AppendInt(buf[:0], int64(i), 36)
		n.Value = string(buf)
		if ok, err := m.Use(ctx, n, now, now.Add(5*time.Minute)); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkMemoryNonceStore1M fills a store with a million nonces and
// reports the heap it holds per nonce. Run it once: -benchtime=1x.
func BenchmarkMemoryNonceStore1M(b *testing.B) {
	const count = 1_000_000
	now := time.Unix(timestamp, 0)
	ctx := context.Background()
	var perNonce float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := &server.MemoryNonceStore{MaxNonces: 2 * count, MaxNoncesPerConsumer: 2 * count}
		n := server.Nonce{ConsumerKey: consumerKey, Timestamp: now.Unix()}
		buf := make([]byte, 0, 32)
		for i := range count {
			buf = strconv.AppendInt(buf[:0], int64(i), 36)
			n.Value = string(buf)
			if ok, err := m.Use(ctx, n, now, now.Add(5*time.Minute)); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perNonce = float64(after.HeapAlloc-before.HeapAlloc) / count
		runtime.KeepAlive(m)
	}
	b.ReportMetric(perNonce, "bytes/nonce")
}
