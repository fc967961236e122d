package server

import (
	"errors"
	"testing"

	"github.com/countersign/countersign/oauth1"
)

// TestVerifierCopy derives a Verifier from another by assignment, which
// go vet's copylocks check refuses for a value that holds a lock, and
// checks that copies that leave Nonces nil share the default store.
func TestVerifierCopy(t *testing.T) {
	base := *xVerifier()
	base.Nonces = nil
	strict := base
	strict.Host = "api.x.com"
	if base.Host != "" {
		t.Fatalf("base.Host = %q after setting the copy's, want empty", base.Host)
	}
	if base.nonceStore() != strict.nonceStore() {
		t.Error("a copy has another default nonce store, want the shared one")
	}
	const nonce = "TestVerifierCopy"
	if _, err := base.Verify(signed(t, xConfig(), "GET", "https://api.x.com/r", "", "", nonce)); err != nil {
		t.Fatalf("base.Verify = %v", err)
	}
	_, err := strict.Verify(signed(t, xConfig(), "GET", "https://api.x.com/r", "", "", nonce))
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
		t.Errorf("copy.Verify(request base accepted) = %v, want nonce_used", err)
	}
}
