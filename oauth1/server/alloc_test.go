package server

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
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
	// encoded twice, up to five ("+" is "%2520"), plus 8 bytes a pair;
	// the base string as much as the parameters. Two shapes still go over
	// ten: one-letter pairs (1 + 3.5 + 4 + 3.5) and pluses (1 + 5 + 5).
	for _, tt := range []struct {
		name, unit string
		limit      float64
	}{
		{"one-letter pairs", "a&", 12.5}, // was 23.5, then 14.5 with 12-byte pairs
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

// TestVerifyAllocationPowersOfTwo checks Verify's allocation on forms of
// one-letter pairs on both sides of a power of two: a form of 2^k pairs
// filled the parameter set to the byte, and the header's parameters, added
// after it, grew it by a quarter again, copied (25.9 bytes per body byte
// instead of 14, now 12). The forms are over the 2 MiB of base string past which
// no state is pooled, so that each run allocates afresh.
func TestVerifyAllocationPowersOfTwo(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }, MaxBodyBytes: 8 << 20}}
	// The body (1 byte a byte), its parameters encoded twice ("a%3D%26",
	// 3.5), their offsets (8 bytes a pair, 4) and the base string (3.5),
	// with room for what reading and the request cost.
	const limit = 12.5
	per := map[int]float64{}
	for _, pairs := range []int{1 << 19, 1<<19 + 1} {
		body := strings.Repeat("a&", pairs)
		n := allocated(func() {
			if _, err := v.Verify(hostileForm(body)); err == nil {
				t.Fatal("Verify accepted a bogus signature")
			}
		})
		per[pairs] = n / float64(len(body))
		t.Logf("%d pairs: %.2f bytes per body byte", pairs, per[pairs])
		assert.LessOrEqual(t, per[pairs], limit, "%d pairs", pairs)
	}
	assert.InDelta(t, per[1<<19+1], per[1<<19], 0.5, "2^19 pairs against one more")
}

// TestRefusalRetainsBoundedBaseString checks what a refusal keeps alive
// once the request is gone: its base string, copied, only up to 64 KiB. A
// form of pluses has a base string five times its size ("%2520"), and a
// 200 KiB one made each refusal keep 1 MB.
func TestRefusalRetainsBoundedBaseString(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }}}
	const prefix = "POST&https%3A%2F%2Fapi.example.com%2Fr&"
	for _, tt := range []struct {
		unit string
		size int
		kept bool
	}{
		{"+", 1 << 10, true},      // 5 KiB of base string
		{"+", 12 << 10, true},     // 60 KiB
		{"+", 14 << 10, false},    // 70 KiB
		{"+", 200 << 10, false},   // 1 MB, kept before
		{"a&", 100 << 10, false},  // 350 KiB
		{"%21", 150 << 10, false}, // 250 KiB
	} {
		body := strings.Repeat(tt.unit, tt.size/len(tt.unit))
		_, err := v.Verify(hostileForm(body))
		var pe *ProblemError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, oauth1.ProblemSignatureInvalid, pe.Problem)
		if tt.kept {
			assert.True(t, strings.HasPrefix(pe.BaseString, prefix), "%q×%d: base string %.60q", tt.unit, tt.size, pe.BaseString)
			// Each "+" is "%2520" in the base string.
			assert.True(t, strings.Contains(pe.BaseString, strings.Repeat("%2520", tt.size)), "%q×%d: the pluses", tt.unit, tt.size)
		} else {
			assert.Zero(t, len(pe.BaseString), "%q×%d: the base string was kept", tt.unit, tt.size)
		}
		// What twenty refusals keep, the requests gone.
		kept := make([]error, 20)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range kept {
			_, kept[i] = v.Verify(hostileForm(body))
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		per := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(len(kept))
		assert.Less(t, per, float64(64<<10+8<<10), "%q×%d: a refusal keeps %.0f bytes", tt.unit, tt.size, per)
		runtime.KeepAlive(kept)
		t.Logf("%q×%d: a refusal keeps %.0f bytes", tt.unit, tt.size, per)
	}
}
