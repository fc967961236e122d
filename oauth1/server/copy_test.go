package server

import (
	"errors"
	"testing"

	"github.com/countersign/countersign/oauth1"
)

// TestVerifierCopy derives a Verifier from another by assignment, which
// go vet's copylocks check refuses for a value that holds a lock, and
// checks what the doc of Nonces says a copy shares: nothing but a Nonces
// that was set.
func TestVerifierCopy(t *testing.T) {
	base := *xVerifier()
	base.Nonces = nil
	strict := base
	strict.Host = "api.example.com"
	if base.Host != "" {
		t.Fatalf("base.Host = %q after setting the copy's, want empty", base.Host)
	}
	const nonce = "TestVerifierCopy"
	for _, v := range []*Verifier{&base, &strict} {
		if _, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce)); err != nil {
			t.Fatalf("Verify with a default nonce store of its own = %v, want nil", err)
		}
	}
	// Each still refuses a replay of what it accepted.
	for _, v := range []*Verifier{&base, &strict} {
		_, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce))
		var pe *ProblemError
		if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
			t.Errorf("Verify(a replay) = %v, want nonce_used", err)
		}
	}
	// A copy with Nonces set shares that store.
	shared := base
	shared.Nonces = new(MemoryNonceStore)
	other := shared
	if _, err := shared.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce+"2")); err != nil {
		t.Fatal(err)
	}
	_, err := other.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce+"2"))
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
		t.Errorf("copy with the same Nonces: Verify(request the original accepted) = %v, want nonce_used", err)
	}
}

// TestVerifiersOwnDefaultNonces checks that two Verifiers built apart, each
// with Nonces nil, each accept the same signed request once: no store is
// shared behind the caller's back.
func TestVerifiersOwnDefaultNonces(t *testing.T) {
	a, b := xVerifier(), xVerifier()
	a.Nonces, b.Nonces = nil, nil
	const nonce = "TestVerifiersOwnDefaultNonces"
	for _, v := range []*Verifier{a, b} {
		if _, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce)); err != nil {
			t.Errorf("Verify = %v, want nil: each Verifier accepts the request once", err)
		}
		_, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", nonce))
		var pe *ProblemError
		if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
			t.Errorf("second Verify = %v, want nonce_used", err)
		}
	}
}
