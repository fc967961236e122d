package oauth1test

import (
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// TestTokenStore checks that the stores newStore returns keep the
// [server.TokenStore] contract: round trips, ErrNotFound for unknown and
// expired tokens, Authorize once, TakeTemporary once (also among 64
// concurrent calls), ErrTokenUsed after the exchange and until expiry, and
// separate name spaces for temporary and token credentials. Every subtest
// uses fresh random tokens, so newStore may return the same shared store
// each time. It takes about a second, waiting for credentials to expire on
// the real clock.
func TestTokenStore(t *testing.T, newStore func() server.TokenStore) {
	ctx := context.Background()
	temp := func(ttl time.Duration) server.TemporaryCredentials {
		return server.TemporaryCredentials{
			Token: rand.Text(), Secret: rand.Text(), ConsumerKey: "consumer-" + rand.Text()[:6],
			Callback: "https://client.example/cb?state=a%20b&x=1",
			// Millisecond precision: a store may keep no more.
			Expires: time.Now().Add(ttl).Truncate(time.Millisecond),
		}
	}
	put := func(t *testing.T, s server.TokenStore, ttl time.Duration) server.TemporaryCredentials {
		t.Helper()
		tc := temp(ttl)
		if err := s.PutTemporary(ctx, tc); err != nil {
			t.Fatalf("PutTemporary: %v", err)
		}
		return tc
	}
	wantErr := func(t *testing.T, what string, err, target error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
		}
	}
	// allUnknown checks every temporary-credential method for token.
	allFail := func(t *testing.T, s server.TokenStore, token string, target error) {
		t.Helper()
		_, err := s.Temporary(ctx, token)
		wantErr(t, "Temporary", err, target)
		wantErr(t, "Authorize", s.Authorize(ctx, token, "mallory", "v"), target)
		_, err = s.TakeTemporary(ctx, token)
		wantErr(t, "TakeTemporary", err, target)
	}

	t.Run("Unknown", func(t *testing.T) {
		s := newStore()
		allFail(t, s, rand.Text(), server.ErrNotFound)
		_, err := s.Token(ctx, rand.Text())
		wantErr(t, "Token", err, server.ErrNotFound)
	})

	t.Run("TemporaryRoundTrip", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		got, err := s.Temporary(ctx, want.Token)
		if err != nil {
			t.Fatalf("Temporary: %v", err)
		}
		checkTemporary(t, "Temporary", got, want)
	})

	t.Run("AuthorizeOnce", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		if err := s.Authorize(ctx, want.Token, "alice", "verifier-1"); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		wantErr(t, "second Authorize", s.Authorize(ctx, want.Token, "mallory", "verifier-2"), server.ErrTokenUsed)
		want.User, want.VerificationCode = "alice", "verifier-1"
		got, err := s.Temporary(ctx, want.Token)
		if err != nil {
			t.Fatalf("Temporary: %v", err)
		}
		checkTemporary(t, "Temporary after Authorize", got, want)
	})

	t.Run("AuthorizeConcurrently", func(t *testing.T) {
		s := newStore()
		tc := put(t, s, time.Minute)
		users := make([]string, 64)
		for i := range users {
			users[i] = rand.Text()
		}
		var ok []string
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, u := range users {
			wg.Go(func() {
				err := s.Authorize(ctx, tc.Token, u, "v-"+u)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok = append(ok, u)
				} else if !errors.Is(err, server.ErrTokenUsed) {
					t.Errorf("Authorize: %v, want nil or ErrTokenUsed", err)
				}
			})
		}
		wg.Wait()
		if len(ok) != 1 {
			t.Fatalf("%d of 64 concurrent Authorize calls succeeded, want 1", len(ok))
		}
		got, err := s.Temporary(ctx, tc.Token)
		if err != nil || got.User != ok[0] || got.VerificationCode != "v-"+ok[0] {
			t.Errorf("Temporary = %v, %v; want the user %q who won and their verification code", got, err, ok[0])
		}
	})

	t.Run("TakeOnce", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		if err := s.Authorize(ctx, want.Token, "alice", "v"); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		want.User, want.VerificationCode = "alice", "v"
		got, err := s.TakeTemporary(ctx, want.Token)
		if err != nil {
			t.Fatalf("TakeTemporary: %v", err)
		}
		checkTemporary(t, "TakeTemporary", got, want)
		allFail(t, s, want.Token, server.ErrTokenUsed)
	})

	t.Run("TakeConcurrently", func(t *testing.T) {
		s := newStore()
		tc := put(t, s, time.Minute)
		var won, used int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				got, err := s.TakeTemporary(ctx, tc.Token)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
					if got.Secret != tc.Secret {
						t.Errorf("TakeTemporary returned another record: %v", got)
					}
				case errors.Is(err, server.ErrTokenUsed):
					used++
				default:
					t.Errorf("TakeTemporary: %v, want nil or ErrTokenUsed", err)
				}
			})
		}
		wg.Wait()
		if won != 1 || used != 63 {
			t.Errorf("64 concurrent TakeTemporary calls: %d succeeded and %d got ErrTokenUsed, want 1 and 63", won, used)
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		s := newStore()
		const ttl = 400 * time.Millisecond
		fresh, taken := put(t, s, ttl), put(t, s, ttl)
		if _, err := s.TakeTemporary(ctx, taken.Token); err != nil {
			t.Fatalf("TakeTemporary: %v", err)
		}
		if _, err := s.Temporary(ctx, fresh.Token); err != nil {
			t.Fatalf("Temporary before expiry: %v", err)
		}
		time.Sleep(time.Until(fresh.Expires) + 150*time.Millisecond)
		allFail(t, s, fresh.Token, server.ErrNotFound)
		allFail(t, s, taken.Token, server.ErrNotFound)
		// Expiry came after another record was stored, too.
		_ = put(t, s, time.Minute)
		allFail(t, s, fresh.Token, server.ErrNotFound)
	})

	t.Run("TokenRoundTrip", func(t *testing.T) {
		s := newStore()
		want := server.TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: "c", User: "alice"}
		if err := s.PutToken(ctx, want); err != nil {
			t.Fatalf("PutToken: %v", err)
		}
		got, err := s.Token(ctx, want.Token)
		if err != nil || got != want {
			t.Errorf("Token = %#v, %v; want %#v", got, err, want)
		}
	})

	t.Run("SeparateNames", func(t *testing.T) {
		s := newStore()
		tc := put(t, s, time.Minute)
		tok := server.TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: "c", User: "u"}
		if err := s.PutToken(ctx, tok); err != nil {
			t.Fatalf("PutToken: %v", err)
		}
		_, err := s.Token(ctx, tc.Token)
		wantErr(t, "Token(temporary token)", err, server.ErrNotFound)
		allFail(t, s, tok.Token, server.ErrNotFound)
	})

	t.Run("ConcurrentDistinct", func(t *testing.T) {
		s := newStore()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				tc := temp(time.Minute)
				tok := server.TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: "c", User: "u"}
				if err := s.PutTemporary(ctx, tc); err != nil {
					t.Errorf("PutTemporary: %v", err)
					return
				}
				if err := s.PutToken(ctx, tok); err != nil {
					t.Errorf("PutToken: %v", err)
					return
				}
				if err := s.Authorize(ctx, tc.Token, "u", "v"); err != nil {
					t.Errorf("Authorize: %v", err)
				}
				if got, err := s.TakeTemporary(ctx, tc.Token); err != nil || got.Secret != tc.Secret || got.VerificationCode != "v" {
					t.Errorf("TakeTemporary = %v, %v", got, err)
				}
				if got, err := s.Token(ctx, tok.Token); err != nil || got != tok {
					t.Errorf("Token = %v, %v", got, err)
				}
			})
		}
		wg.Wait()
	})
}

// checkTemporary compares two records, Expires to the millisecond.
func checkTemporary(t *testing.T, what string, got, want server.TemporaryCredentials) {
	t.Helper()
	d := got.Expires.Sub(want.Expires)
	gotE, wantE := got, want
	gotE.Expires, wantE.Expires = time.Time{}, time.Time{}
	if gotE != wantE || d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("%s = %#v, want %#v (secrets not shown; Expires %v, want %v)", what, got, want, got.Expires, want.Expires)
	}
}
