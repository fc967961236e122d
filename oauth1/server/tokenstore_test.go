package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

// TestMemoryTokenStoreForgetsRevocations checks the bounds of the
// MemoryTokenStore's record of revoked tokens: a revocation is remembered
// (ErrTokenRevoked) for 24 hours on the clock the calls are passed, and
// only the last 65,536 are, so that a loop that issues and revokes tokens
// cannot grow the store without bound. A revocation forgotten leaves an
// unknown token, refused all the same.
func TestMemoryTokenStoreForgetsRevocations(t *testing.T) {
	ctx := context.Background()
	clock := oauth1test.NewClock(time.Unix(1_700_000_000, 0))
	s := new(server.MemoryTokenStore)
	issueAndRevoke := func(token string) {
		t.Helper()
		if err := s.PutToken(ctx, server.TokenCredentials{Token: token, ConsumerKey: "key", User: "alice"}, clock.Now()); err != nil {
			t.Fatalf("PutToken: %v", err)
		}
		if err := s.Revoke(ctx, token, clock.Now()); err != nil {
			t.Fatalf("Revoke: %v", err)
		}
	}
	state := func(token string) string {
		_, err := s.Token(ctx, token, clock.Now())
		switch {
		case errors.Is(err, server.ErrTokenRevoked) && errors.Is(err, server.ErrNotFound):
			return "revoked"
		case errors.Is(err, server.ErrNotFound):
			return "unknown"
		}
		return fmt.Sprint(err)
	}

	issueAndRevoke("old")
	clock.Advance(24*time.Hour - time.Second)
	if got := state("old"); got != "revoked" {
		t.Errorf("a token revoked 24 h - 1 s ago is %s, want revoked", got)
	}
	clock.Advance(time.Second)
	if got := state("old"); got != "unknown" {
		t.Errorf("a token revoked 24 h ago is %s, want unknown", got)
	}

	const limit = 1 << 16
	for i := range limit + 1 {
		issueAndRevoke(fmt.Sprint("t", i))
	}
	if got := state("t0"); got != "unknown" {
		t.Errorf("the first of %d revocations is %s, want unknown (forgotten)", limit+1, got)
	}
	for _, tok := range []string{"t1", fmt.Sprint("t", limit)} {
		if got := state(tok); got != "revoked" {
			t.Errorf("%s, among the last %d revocations, is %s, want revoked", tok, limit, got)
		}
	}
}

// revokingStore is a CredentialStore of one client, whose only token
// "revoked" was revoked.
type revokingStore struct{ server.Consumers }

func (revokingStore) TokenCredentials(_ context.Context, _, token string, _ time.Time) (server.TokenCredentials, error) {
	if token == "revoked" {
		return server.TokenCredentials{}, fmt.Errorf("%w: %w", server.ErrNotFound, server.ErrTokenRevoked)
	}
	return server.TokenCredentials{}, server.ErrNotFound
}

// TestVerifierTokenRevoked checks that a Verifier of its own store, not
// only a Provider, refuses a token the store reports revoked with
// token_revoked, and an unknown one with token_rejected.
func TestVerifierTokenRevoked(t *testing.T) {
	v := &server.Verifier{Store: revokingStore{server.Consumers{"key": {Secret: "secret"}}}}
	for token, want := range map[string]oauth1.Problem{"revoked": oauth1.ProblemTokenRevoked, "unknown": oauth1.ProblemTokenRejected} {
		r := httptest.NewRequest("GET", "http://api.example/photos", nil)
		cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret"}
		if err := cfg.Sign(r, &oauth1.Credentials{Token: token, Secret: "s"}); err != nil {
			t.Fatal(err)
		}
		_, err := v.Verify(r)
		var pe *server.ProblemError
		if !errors.As(err, &pe) || pe.Problem != want || pe.StatusCode != http.StatusUnauthorized {
			t.Errorf("Verify of a request signed with token %q = %v, want 401 %s", token, err, want)
		}
	}
}
