package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

func TestMemoryTokenStore(t *testing.T) {
	oauth1test.TestTokenStore(t, func() server.TokenStore { return new(server.MemoryTokenStore) })
}

func TestMemoryTemporaryStore(t *testing.T) {
	oauth1test.TestTemporaryStore(t, func() server.TemporaryStore { return new(server.MemoryTemporaryStore) })
}

func TestMemoryNonceStoreConformance(t *testing.T) {
	oauth1test.TestNonceStore(t, func() server.NonceStore { return new(server.MemoryNonceStore) })
}

// TestMemoryTemporaryStoreClock checks expiry on the clock the calls are
// passed, and that expired records are dropped when new ones are stored.
func TestMemoryTemporaryStoreClock(t *testing.T) {
	ctx := context.Background()
	clock := oauth1test.NewClock(time.Unix(1_700_000_000, 0))
	s := new(server.MemoryTemporaryStore)
	for i := range 100 {
		tc := server.TemporaryCredentials{Token: fmt.Sprint("t", i), Expires: clock.Now().Add(time.Minute)}
		require.NoError(t, s.PutTemporary(ctx, tc, clock.Now()))
	}
	if _, err := s.Temporary(ctx, "t99", clock.Now()); err != nil {
		t.Fatalf("Temporary before expiry: %v", err)
	}
	clock.Advance(time.Minute)
	if _, err := s.Temporary(ctx, "t98", clock.Now()); !errors.Is(err, server.ErrNotFound) {
		t.Fatalf("Temporary at Expires: %v, want ErrNotFound", err)
	}
	// A used token cannot be stored again while it is remembered as used.
	fresh := server.TemporaryCredentials{Token: "fresh", Expires: clock.Now().Add(time.Minute)}
	require.NoError(t, s.PutTemporary(ctx, fresh, clock.Now()))
	if _, err := s.TakeTemporary(ctx, "fresh", clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTemporary(ctx, fresh, clock.Now()); err == nil {
		t.Error("PutTemporary of a used token succeeded")
	}
	for _, bad := range []server.TemporaryCredentials{{Expires: clock.Now().Add(time.Minute)}, {Token: "x"}} {
		if err := s.PutTemporary(ctx, bad, clock.Now()); err == nil {
			t.Errorf("PutTemporary(%v) succeeded", bad)
		}
	}
	if err := s.Authorize(ctx, server.TemporaryCredentials{Token: "t0", User: "u", VerificationCode: ""}, clock.Now()); err == nil || errors.Is(err, server.ErrNotFound) {
		t.Errorf("Authorize with an empty verifier = %v, want an argument error", err)
	}
}

func TestTemporaryCredentialsRedacted(t *testing.T) {
	tc := server.TemporaryCredentials{Token: "tok", Secret: "s3cret", VerificationCode: "v3rifier", User: "alice"}
	tok := server.TokenCredentials{Token: "tok", Secret: "s3cret", User: "alice"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{tc, tok, &tc, &tok} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "s3cret") || strings.Contains(out, "v3rifier") || !strings.Contains(out, "alice") {
				t.Errorf("Sprintf(%q, %T) = %s", verb, v, out)
			}
		}
	}
}

// TestMemoryTemporaryStoreFull checks the bound on temporary credentials: a
// full store refuses new ones until one expires, exchanged ones included.
func TestMemoryTemporaryStoreFull(t *testing.T) {
	ctx := context.Background()
	clock := oauth1test.NewClock(time.Unix(1_700_000_000, 0))
	s := &server.MemoryTemporaryStore{MaxTemporary: 3}
	put := func(token string, ttl time.Duration) error {
		return s.PutTemporary(ctx, server.TemporaryCredentials{Token: token, Expires: clock.Now().Add(ttl)}, clock.Now())
	}
	require.NoError(t, put("a", time.Minute))
	require.NoError(t, put("b", 2*time.Minute))
	require.NoError(t, put("c", 2*time.Minute))
	_, err := s.TakeTemporary(ctx, "a", clock.Now())
	require.NoError(t, err)
	if err := put("d", time.Minute); !errors.Is(err, server.ErrStoreFull) {
		t.Fatalf("PutTemporary into a full store: %v, want ErrStoreFull", err)
	}
	clock.Advance(59 * time.Second)
	if err := put("d", time.Minute); !errors.Is(err, server.ErrStoreFull) {
		t.Fatalf("PutTemporary before anything expired: %v, want ErrStoreFull", err)
	}
	clock.Advance(time.Second) // "a", exchanged, expires
	require.NoError(t, put("d", time.Minute), "PutTemporary once one expired")
	for _, token := range []string{"b", "c", "d"} {
		_, err := s.Temporary(ctx, token, clock.Now())
		require.NoError(t, err, token)
	}
}
