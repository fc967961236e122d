package oauth1_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
)

func TestMemoryTokenStore(t *testing.T) {
	oauth1test.TestTokenStore(t, func() oauth1.TokenStore { return new(oauth1.MemoryTokenStore) })
}

// TestMemoryTokenStoreClock checks expiry on the store's own clock, and
// that expired records are dropped when new ones are stored.
func TestMemoryTokenStoreClock(t *testing.T) {
	ctx := context.Background()
	clock := oauth1test.NewClock(time.Unix(1_700_000_000, 0))
	s := &oauth1.MemoryTokenStore{Now: clock.Now}
	for i := range 100 {
		tc := oauth1.TemporaryCredentials{Token: fmt.Sprint("t", i), Expires: clock.Now().Add(time.Minute)}
		if err := s.PutTemporary(ctx, tc); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Temporary(ctx, "t99"); err != nil {
		t.Fatalf("Temporary before expiry: %v", err)
	}
	clock.Advance(time.Minute)
	if _, err := s.Temporary(ctx, "t98"); !errors.Is(err, oauth1.ErrNotFound) {
		t.Fatalf("Temporary at Expires: %v, want ErrNotFound", err)
	}
	// A used token cannot be stored again while it is remembered as used.
	fresh := oauth1.TemporaryCredentials{Token: "fresh", Expires: clock.Now().Add(time.Minute)}
	if err := s.PutTemporary(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeTemporary(ctx, "fresh"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTemporary(ctx, fresh); err == nil {
		t.Error("PutTemporary of a used token succeeded")
	}
	for _, bad := range []oauth1.TemporaryCredentials{{Expires: clock.Now().Add(time.Minute)}, {Token: "x"}} {
		if err := s.PutTemporary(ctx, bad); err == nil {
			t.Errorf("PutTemporary(%v) succeeded", bad)
		}
	}
	if err := s.Authorize(ctx, "t0", "u", ""); err == nil || errors.Is(err, oauth1.ErrNotFound) {
		t.Errorf("Authorize with an empty verifier = %v, want an argument error", err)
	}
}

func TestTemporaryCredentialsRedacted(t *testing.T) {
	tc := oauth1.TemporaryCredentials{Token: "tok", Secret: "s3cret", Verifier: "v3rifier", User: "alice"}
	tok := oauth1.TokenCredentials{Token: "tok", Secret: "s3cret", User: "alice"}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, v := range []any{tc, tok, &tc, &tok} {
			out := fmt.Sprintf(verb, v)
			if strings.Contains(out, "s3cret") || strings.Contains(out, "v3rifier") || !strings.Contains(out, "alice") {
				t.Errorf("Sprintf(%q, %T) = %s", verb, v, out)
			}
		}
	}
}
