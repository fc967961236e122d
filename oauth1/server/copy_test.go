package server

import (
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// copyClock is the clock of the Verifiers below: 100 s after the
// timestamp signed() signs with.
func copyClock() time.Time { return time.Unix(xTimestamp+100, 0) }

// copyBase is a Verifier with Nonces nil, as a program keeps one.
func copyBase() Verifier { return Verifier{Store: xCredentials(), Settings: Settings{Now: copyClock}} }

// packageVerifier is a package-level Verifier, one of the shapes of
// TestCopiedVerifierRefusesReplay.
var packageVerifier = Verifier{Store: xCredentials(), Settings: Settings{Now: copyClock}}

// valueHandler is an http.Handler with a value receiver: every request
// verifies with a copy of v.
type valueHandler struct{ v Verifier }

func (h valueHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := h.v.Verify(r); err != nil {
		h.v.WriteError(w, err)
	}
}

// service embeds a Verifier by value.
type service struct {
	Verifier
	name string
}

func (s service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := s.Verify(r); err != nil {
		s.WriteError(w, err)
	}
}

// verifyWith takes its Verifier by value.
func verifyWith(v Verifier, w http.ResponseWriter, r *http.Request) {
	if _, err := v.Verify(r); err != nil {
		v.WriteError(w, err)
	}
}

// TestCopiedVerifierRefusesReplay sends one signed request twice to
// handlers that hold a Verifier with Nonces nil in each way a Go program
// can: the second must be refused with nonce_used, however the Verifier was
// copied, built or embedded between the two.
func TestCopiedVerifierRefusesReplay(t *testing.T) {
	tests := []struct {
		name      string
		twoLegged bool                // signed with the client credentials alone
		handler   func() http.Handler // called once; its handler serves both requests
	}{
		{"value-receiver handler", false, func() http.Handler { return valueHandler{copyBase()} }},
		{"struct value in a map", false, func() http.Handler {
			byRoute := map[string]Verifier{"/r": copyBase()}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := byRoute[r.URL.Path]
				if _, err := v.Verify(r); err != nil {
					v.WriteError(w, err)
				}
			})
		}},
		{"by-value argument", false, func() http.Handler {
			base := copyBase()
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { verifyWith(base, w, r) })
		}},
		{"derived per request", false, func() http.Handler {
			base := copyBase()
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := base
				v.RequireToken = true
				if _, err := v.Verify(r); err != nil {
					v.WriteError(w, err)
				}
			})
		}},
		{"built per request", false, func() http.Handler {
			creds := xCredentials()
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := &Verifier{Store: creds, Settings: Settings{Now: copyClock}}
				if _, err := v.Verify(r); err != nil {
					v.WriteError(w, err)
				}
			})
		}},
		{"package-level", false, func() http.Handler {
			// One route verifies with the package-level Verifier, another
			// with a stricter copy of it; the replay goes to the other.
			plain := packageVerifier.Middleware(http.NotFoundHandler())
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Route") == "" {
					r.Header.Set("X-Route", "strict")
					plain.ServeHTTP(w, r)
					return
				}
				strict := packageVerifier
				strict.Host = "api.example.com"
				strict.Middleware(http.NotFoundHandler()).ServeHTTP(w, r)
			})
		}},
		{"copied into a Provider's settings", true, func() http.Handler {
			// A Provider rebuilt for each request, as a program that
			// reloads its configuration does, from one Settings value.
			settings := Settings{Now: copyClock}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				p := &Provider{
					Consumers: Consumers{xConsumerKey: {Secret: xConsumerSecret}},
					Temporary: new(MemoryTemporaryStore),
					Tokens:    new(MemoryTokenStore),
					Settings:  settings,
				}
				p.Middleware(http.NotFoundHandler()).ServeHTTP(w, r)
			})
		}},
		{"embedded by value", false, func() http.Handler {
			services := []service{{copyBase(), "photos"}}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				s := services[0]
				s.ServeHTTP(w, r)
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.handler()
			// A nonce of this run only: the default store outlives the test.
			nonce := rand.Text()
			send := func() *httptest.ResponseRecorder {
				var r *http.Request
				if tt.twoLegged {
					r = signedTwoLegged(t, nonce)
				} else {
					r = signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				return w
			}
			if w := send(); w.Code != http.StatusOK && w.Code != http.StatusNotFound {
				t.Fatalf("first request = %d %s, want it accepted", w.Code, w.Body)
			}
			if w := send(); w.Code != http.StatusUnauthorized || w.Body.String() != "oauth_problem=nonce_used" {
				t.Errorf("replay = %d %q, want 401 oauth_problem=nonce_used", w.Code, w.Body)
			}
		})
	}
}

// signedTwoLegged is signed's request without a token.
func signedTwoLegged(t *testing.T, nonce string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", "https://api.example.com/r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := xConfig().SignAt(r, nil, time.Unix(xTimestamp, 0), nonce); err != nil {
		t.Fatal(err)
	}
	return received(t, r)
}

// TestVerifierCopy derives a Verifier from another by assignment, which
// go vet's copylocks check refuses for a value that holds a lock, and
// checks that the copy keeps its own settings and shares the nonces: with
// Nonces nil the process's default store, with Nonces set that store.
func TestVerifierCopy(t *testing.T) {
	base := copyBase()
	strict := base
	strict.Host = "api.example.com"
	if base.Host != "" {
		t.Fatalf("base.Host = %q after setting the copy's, want empty", base.Host)
	}
	for _, nonces := range []NonceStore{nil, new(MemoryNonceStore)} {
		base.Nonces, strict.Nonces = nonces, nonces
		nonce := rand.Text()
		if _, err := base.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce)); err != nil {
			t.Fatalf("Nonces %T: Verify = %v, want nil", nonces, err)
		}
		// Each refuses a replay of what the other accepted.
		for _, v := range []*Verifier{&strict, &base} {
			_, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce))
			var pe *ProblemError
			if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
				t.Errorf("Nonces %T: Verify(a replay) = %v, want nonce_used", nonces, err)
			}
		}
	}
}
