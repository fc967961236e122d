package oauth1_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/server"
)

// TestMiBFormPooled checks that signing and verifying a 1 MiB form reuse a
// pooled state: its buffers, about 5 MiB, cost more to allocate afresh
// than to keep (issue 21); without the pool it was 25 and 18 allocations.
func TestMiBFormPooled(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "field%d=value+%d%%2C+caf%%C3%%A9+%%26+more&", i%500, i)
	}
	body := b.String()
	c, tok, _ := xRequest(t)
	r := newRequest(t, "POST", "https://api.example.com/upload", "application/x-www-form-urlencoded", body)
	n := testing.AllocsPerRun(5, func() {
		if err := c.SignAt(r, tok, xTime(), "n"); err != nil {
			t.Fatal(err)
		}
	})
	if n > 10 {
		t.Errorf("SignAt(1 MiB form) allocs = %v, want at most 10", n)
	}

	v := &server.Verifier{Store: acceptAll{}, Settings: server.Settings{Nonces: acceptNonces{}, Now: xTime}}
	sr := httptest.NewRequest("POST", "/upload", nil)
	sr.Host, sr.TLS = "api.example.com", &tls.ConnectionState{}
	sr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	sr.Header.Set("Authorization", r.Header.Get("Authorization"))
	rd := strings.NewReader(body)
	n = testing.AllocsPerRun(5, func() {
		rd.Reset(body)
		sr.Body, sr.ContentLength = io.NopCloser(rd), int64(len(body))
		if _, err := v.Verify(sr); err != nil {
			t.Fatal(err)
		}
	})
	if n > 13 {
		t.Errorf("Verify(1 MiB form) allocs = %v, want at most 13", n)
	}
}
