package server

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// allocated returns the bytes f allocates, on average over a few runs.
func allocated(f func()) float64 {
	var before, after runtime.MemStats
	const runs = 3
	f()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs
}

// hostileForm is a request with a form body and a known consumer key, a
// fresh timestamp and a bogus signature, well-formed (28 base64 characters
// for HMAC-SHA1's 20 bytes) unless sig is set: what any client can send.
func hostileForm(body string, sig ...string) *http.Request {
	bogus := "AAAAAAAAAAAAAAAAAAAAAAAAAAA%3D"
	if len(sig) > 0 {
		bogus = sig[0]
	}
	r := httptest.NewRequest("POST", "https://api.example.com/r", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Authorization", `OAuth oauth_consumer_key="`+xConsumerKey+`", oauth_nonce="n", oauth_signature="`+bogus+`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", oauth_version="1.0"`)
	return r
}

// TestVerifyAllocationAmplification checks that Verify, on a body as large
// as it reads, allocates at most a few times the body, whatever its
// shape: a client that may send 4 MiB must not make it allocate 100 MB.
func TestVerifyAllocationAmplification(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const size = 4<<20 - 64
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }}}
	// Reading the body takes one byte per byte; the parameters, stored
	// encoded twice, up to five ("+" is "%2520"), plus 12 bytes a pair;
	// the base string as much as the parameters. Two shapes still go over
	// ten: one-letter pairs (1 + 3.5 + 6 + 3.5) and pluses (1 + 5 + 5).
	for _, tt := range []struct {
		name, unit string
		limit      float64
	}{
		{"one-letter pairs", "a&", 14.5}, // was 23.5
		{"distinct-looking pairs", "ab=c&", 10},
		{"names only", "abcdefghij&", 10},
		{"escapes", "%21", 10},
		{"escaped pairs", "%21=%21&", 10},
		{"pluses", "+", 11.5}, // was 16
		{"separators", "&", 10},
		{"one long value", "a", 10},
		{"malformed signature", "a&", 1.5}, // refused before the base string
	} {
		body := strings.Repeat(tt.unit, size/len(tt.unit))
		var sig []string
		if tt.name == "malformed signature" {
			sig = []string{"bogus"}
		}
		n := allocated(func() {
			if _, err := v.Verify(hostileForm(body, sig...)); err == nil {
				t.Fatal("Verify accepted a bogus signature")
			}
		})
		if per := n / float64(len(body)); per > tt.limit {
			t.Errorf("%s: Verify allocated %.1f bytes per body byte (%.0f MB), want at most %v", tt.name, per, n/1e6, tt.limit)
		} else {
			t.Logf("%s: %.1f bytes per body byte", tt.name, per)
		}
	}
}

func BenchmarkVerifyHostileForm(b *testing.B) {
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }}}
	body := strings.Repeat("a&", (4<<20-64)/2)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		v.Verify(hostileForm(body))
	}
}
