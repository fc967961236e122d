package wire

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestFormBodyHeld checks that the body FormBodyHeld returns, r.Body and
// every GetBody read the same bytes, on both sides of each size class,
// with and without a Content-Length, and that the limit holds.
func TestFormBodyHeld(t *testing.T) {
	for _, n := range []int{0, 1, 88, 89, 216, 217, 472, 473, 984, 985, 5000} {
		for _, known := range []bool{true, false} {
			body := strings.Repeat("a=b&", n/4+1)[:n]
			r, _ := http.NewRequest("POST", "http://x/", io.NopCloser(strings.NewReader(body)))
			r.ContentLength = -1
			if known {
				r.ContentLength = int64(n)
			}
			var s State
			got, err := s.FormBodyHeld(r, 1<<20)
			if err != nil || string(got) != body {
				t.Fatalf("n=%d known=%v: %q, %v", n, known, got, err)
			}
			if r.ContentLength != int64(n) {
				t.Errorf("n=%d known=%v: ContentLength %d", n, known, r.ContentLength)
			}
			for i := 0; i < 2; i++ {
				rc, err := r.GetBody()
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := io.ReadAll(rc); string(b) != body {
					t.Errorf("n=%d known=%v: GetBody read %q", n, known, b)
				}
			}
			if b, _ := io.ReadAll(r.Body); string(b) != body {
				t.Errorf("n=%d known=%v: Body read %q", n, known, b)
			}
			// Reused, the state's buffer must not change what r holds.
			s.Reset()
			r2, _ := http.NewRequest("POST", "http://x/", strings.NewReader(strings.Repeat("z", n)))
			r2.GetBody = nil
			s.FormBodyHeld(r2, 1<<20)
			if rc, _ := r.GetBody(); rc != nil {
				if b, _ := io.ReadAll(rc); string(b) != body {
					t.Errorf("n=%d known=%v: after reuse, GetBody read %q", n, known, b)
				}
			}
		}
	}
	for _, cl := range []int64{-1, 100} {
		r, _ := http.NewRequest("POST", "http://x/", io.NopCloser(strings.NewReader(strings.Repeat("a", 100))))
		r.ContentLength = cl
		var s State
		if _, err := s.FormBodyHeld(r, 10); !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("Content-Length %d over the limit: %v", cl, err)
		}
	}
}
