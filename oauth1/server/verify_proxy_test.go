package server

import (
	"errors"
	"github.com/countersign/countersign/oauth1"
	"net/http"
	"slices"
	"testing"
)

// TestVerifySchemeHeaderNearest checks that the scheme comes from the
// value the nearest proxy added: a client that sends its own
// "X-Forwarded-Proto: https" through a proxy that appends must not get
// PLAINTEXT accepted over plain http.
func TestVerifySchemeHeaderNearest(t *testing.T) {
	plain := xConfig()
	plain.Signer = oauth1.Plaintext{}
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
			v.SignatureMethods = []string{"PLAINTEXT"}
			v.SchemeHeader = "X-Forwarded-Proto"
			_, err := v.Verify(r)
			if (err == nil) != tt.ok {
				t.Errorf("Verify with X-Forwarded-Proto %q = %v, want ok=%v", tt.lines, err, tt.ok)
			}
			var pe *ProblemError
			if err != nil && !(errors.As(err, &pe) && pe.Problem == oauth1.ProblemSignatureMethodRejected) {
				t.Errorf("Verify with X-Forwarded-Proto %q = %v, want signature_method_rejected (PLAINTEXT over http)", tt.lines, err)
			}
		})
	}
}

// TestVerifyHost checks that a Verifier with Host refuses a request sent
// to another host, the replay of a request accepted elsewhere, and accepts
// the host it serves in any of its equivalent spellings.
func TestVerifyHost(t *testing.T) {
	for _, tt := range []struct {
		name, scheme, host string // Verifier.Scheme and Verifier.Host
		url                string // what the client signed
		hostHeader         string // Host as received; "" means the URL's
		ok                 bool
	}{
		{"same host", "", "api-a.example", "https://api-a.example/r", "", true},
		{"no pin", "", "", "https://api-b.example/r", "", true},
		{"other host", "", "api-a.example", "https://api-b.example/r", "", false},
		{"replay to instance b", "", "api-b.example", "https://api-a.example/r", "", false},
		{"case", "", "API-A.example", "https://api-a.example/r", "Api-A.Example", true},
		{"default port in header", "", "api-a.example", "https://api-a.example/r", "api-a.example:443", true},
		{"default port in pin", "", "api-a.example:443", "https://api-a.example/r", "", true},
		{"other port", "", "api-a.example", "https://api-a.example:8443/r", "", false},
		{"pinned port", "", "api-a.example:8443", "https://api-a.example:8443/r", "", true},
		{"port of the other scheme", "", "api-a.example:80", "https://api-a.example:80/r", "", true},
		{"subdomain", "", "api-a.example", "https://x.api-a.example/r", "", false},
		{"suffix", "", "api-a.example", "https://api-a.example.evil/r", "", false},
		{"IPv6", "", "[::1]:8443", "https://[::1]:8443/r", "", true},
		{"IPv6 other", "", "[::1]:8443", "https://[::2]:8443/r", "", false},
		{"scheme and host", "https", "api-a.example", "https://api-a.example/r", "", true},
		{"pin not a host name", "", "api a.example", "https://api-a.example/r", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := signed(t, xConfig(), "GET", tt.url, "", "", "n")
			if tt.hostHeader != "" {
				r.Host = tt.hostHeader
			}
			if tt.scheme != "" {
				r.TLS = nil // behind a proxy that terminated TLS
			}
			v := xVerifier()
			v.Scheme, v.Host = tt.scheme, tt.host
			_, err := v.Verify(r)
			if tt.ok {
				if err != nil {
					t.Errorf("Verify(Host %q) with Verifier.Host %q = %v, want ok", r.Host, tt.host, err)
				}
				return
			}
			var pe *ProblemError
			if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemParameterRejected || !slices.Equal(pe.ParamsRejected, []string{"Host"}) {
				t.Fatalf("Verify(Host %q) with Verifier.Host %q = %v, want parameter_rejected (Host)", r.Host, tt.host, err)
			}
			if pe.StatusCode != http.StatusBadRequest {
				t.Errorf("StatusCode = %d, want 400", pe.StatusCode)
			}
		})
	}
}

// TestVerifyHostSharedName shows why instances behind one name need one
// NonceStore: with a store each, both accept the same request; with a
// shared one, the second sees a replay.
func TestVerifyHostSharedName(t *testing.T) {
	const url = "https://api.example.com/r"
	a, b := xVerifier(), xVerifier()
	a.Host, b.Host = "api.example.com", "api.example.com"
	if _, err := a.Verify(signed(t, xConfig(), "GET", url, "", "", "n")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(signed(t, xConfig(), "GET", url, "", "", "n")); err != nil {
		t.Fatalf("instance b, own store: %v, want accepted (the reason for a shared store)", err)
	}
	_, err := (&Verifier{Store: b.Store, Settings: Settings{Nonces: a.Nonces, Now: b.Now, Host: b.Host}}).
		Verify(signed(t, xConfig(), "GET", url, "", "", "n"))
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
		t.Errorf("instance b, shared store: %v, want nonce_used", err)
	}
}
