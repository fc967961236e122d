package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

// TestProviderPending checks that Pending finds the temporary credentials
// a consent page asks approval for, on the Provider's clock, without their
// secret, and refuses those expired (ErrNotFound) and those approved,
// denied or exchanged (ErrTokenUsed).
func TestProviderPending(t *testing.T) {
	ctx := context.Background()
	clock := oauth1test.NewClock(time.Unix(1_300_000_000, 0)) // 2011: far from time.Now
	p := &server.Provider{
		Consumers: server.Consumers{"key": {Secret: "secret"}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Settings:  server.Settings{Now: clock.Now},
	}
	put := func(token string) server.TemporaryCredentials {
		t.Helper()
		tc := server.TemporaryCredentials{Token: token, Secret: "temp-secret", ConsumerKey: "key",
			Callback: "https://client.example/cb", Expires: clock.Now().Add(10 * time.Minute)}
		if err := p.Temporary.PutTemporary(ctx, tc, clock.Now()); err != nil {
			t.Fatalf("PutTemporary: %v", err)
		}
		return tc
	}
	wantErr := func(what string, target error) {
		t.Helper()
		got, err := p.Pending(ctx, what)
		if !errors.Is(err, target) {
			t.Errorf("Pending(%q) = %+v, %v; want an error wrapping %v", what, got.ConsumerKey, err, target)
		}
	}

	want := put("fresh")
	got, err := p.Pending(ctx, "fresh")
	if err != nil {
		t.Fatalf("Pending: %v", err)
	}
	want.Secret = ""
	if got != want {
		t.Errorf("Pending = %#v, want %#v", got, want)
	}

	wantErr("never-issued", server.ErrNotFound)

	put("expiring")
	put("approved")
	if _, _, err := p.Authorize(ctx, server.Approval{Token: "approved", User: "alice"}); err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	wantErr("approved", server.ErrTokenUsed)
	put("denied")
	if _, err := p.Deny(ctx, "denied"); err != nil {
		t.Fatalf("Deny: %v", err)
	}
	wantErr("denied", server.ErrTokenUsed)
	put("exchanged")
	if _, err := p.Temporary.TakeTemporary(ctx, "exchanged", clock.Now()); err != nil {
		t.Fatalf("TakeTemporary: %v", err)
	}
	wantErr("exchanged", server.ErrTokenUsed)

	clock.Advance(10*time.Minute - time.Second)
	if _, err := p.Pending(ctx, "expiring"); err != nil {
		t.Errorf("Pending a second before expiry: %v", err)
	}
	clock.Advance(time.Second)
	wantErr("expiring", server.ErrNotFound)
}
