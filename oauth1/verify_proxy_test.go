package oauth1

import (
	"errors"
	"testing"
)

// TestVerifySchemeHeaderNearest checks that the scheme comes from the
// value the nearest proxy added: a client that sends its own
// "X-Forwarded-Proto: https" through a proxy that appends must not get
// PLAINTEXT accepted over plain http.
func TestVerifySchemeHeaderNearest(t *testing.T) {
	plain := xConfig()
	plain.Signer = PlainText{}
	for _, tt := range []struct {
		name   string
		lines  []string // X-Forwarded-Proto header lines, as received
		signed string   // the scheme the client signed
		ok     bool
	}{
		{"one proxy, https", []string{"https"}, "https", true},
		{"client https appended to by http proxy", []string{"https, http"}, "https", false},
		{"client https on its own line, proxy http after", []string{"https", "http"}, "https", false},
		{"client http, proxy https", []string{"http, https"}, "https", true},
		{"lines and commas", []string{"http, http", "HTTPS"}, "https", true},
		{"spaces", []string{"http ,  https "}, "https", true},
		{"last is not a scheme", []string{"https, wss"}, "https", false},
		{"last is empty", []string{"https,"}, "https", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := signed(t, plain, "GET", tt.signed+"://api.example.com/r", "", "", "n")
			r.TLS = nil // the proxy terminated TLS, or there was none
			r.Header["X-Forwarded-Proto"] = tt.lines
			v := xVerifier()
			v.Methods = []string{"PLAINTEXT"}
			v.SchemeHeader = "X-Forwarded-Proto"
			_, err := v.Verify(r)
			if (err == nil) != tt.ok {
				t.Errorf("Verify with X-Forwarded-Proto %q = %v, want ok=%v", tt.lines, err, tt.ok)
			}
			var pe *ProblemError
			if err != nil && !(errors.As(err, &pe) && pe.Problem == ProblemSignatureMethodRejected) {
				t.Errorf("Verify with X-Forwarded-Proto %q = %v, want signature_method_rejected (PLAINTEXT over http)", tt.lines, err)
			}
		})
	}
}
