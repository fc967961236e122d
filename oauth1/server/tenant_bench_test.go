package server

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// BenchmarkVerifyMemoryNonces verifies fresh two-legged HMAC-SHA1 requests
// with a MemoryNonceStore, which records each nonce: the path of a
// Verifier whose Nonces is nil. The requests are signed before the timer
// starts.
func BenchmarkVerifyMemoryNonces(b *testing.B) {
	v := &Verifier{Store: Consumers{"acme": {Secret: "acme secret"}}, Settings: Settings{
		Nonces: &MemoryNonceStore{MaxNoncesPerConsumer: 1 << 20},
		Now:    func() time.Time { return time.Unix(xTimestamp, 0) },
	}}
	c := &oauth1.Config{ConsumerKey: "acme", ConsumerSecret: "acme secret"}
	headers := make([]string, b.N)
	for i := range headers {
		r, err := http.NewRequest("GET", "https://api.example.com/r?a=1", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.SignAt(r, nil, time.Unix(xTimestamp, 0), "nonce"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
		headers[i] = r.Header.Get("Authorization")
	}
	r, err := http.NewRequest("GET", "https://api.example.com/r?a=1", nil)
	if err != nil {
		b.Fatal(err)
	}
	r = received(b, r)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r.Header.Set("Authorization", headers[i])
		if _, err := v.Verify(r); err != nil {
			b.Fatal(err)
		}
	}
}
