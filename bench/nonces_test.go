package bench

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// BenchmarkVerifyMemoryNonces verifies the X example request with fresh
// nonces recorded in a MemoryNonceStore, as a Verifier whose Nonces is nil
// does: BenchmarkVerify's work and the store's. The requests are signed
// before the timer starts; the store takes all of them from one client.
func BenchmarkVerifyMemoryNonces(b *testing.B) {
	v := &server.Verifier{Store: xStore{}, Settings: server.Settings{
		Nonces: &server.MemoryNonceStore{MaxNonces: 1 << 21, MaxNoncesPerConsumer: 1 << 21},
		Now:    func() time.Time { return time.Unix(timestamp, 0) },
	}}
	c := &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
	headers := make([]string, b.N)
	for i := range headers {
		r := xExample.request(b)
		if err := c.SignAt(r, xToken, time.Unix(timestamp, 0), "nonce"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
		headers[i] = r.Header.Get("Authorization")
	}
	r := received(b, xExample)
	body := strings.NewReader(xExample.body)
	b.ReportAllocs()
	b.ResetTimer()
	reportCPU(b, func() {
		for i := range b.N {
			body.Reset(xExample.body)
			r.Body, r.GetBody = io.NopCloser(body), nil
			r.Header.Set("Authorization", headers[i])
			if _, err := v.Verify(r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
