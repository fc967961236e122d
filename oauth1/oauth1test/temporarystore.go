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

// storeEpoch is the clock the store tests start from: 2011, long before
// the real clock, so that a store that decides expiry on a clock of its
// own, rather than on the now it is passed, fails them.
var storeEpoch = time.Unix(1_300_000_000, 0)

// wantErr reports an error unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
	}
}

// TestTemporaryStore checks that the stores newStore returns keep the
// [server.TemporaryStore] contract: round trips (every field, Scope
// too, from PutTemporary and as Authorize replaces it), ErrNotFound for unknown
// and expired tokens, Authorize once (also among 64 concurrent calls),
// TakeTemporary once (also among 64 concurrent calls), ErrTokenUsed
// after the exchange and until expiry, and RevokeGrant of approved,
// unexchanged credentials only. Expiry is decided on the now each
// call is passed, a test clock in 2011: a store must not read a clock of
// its own. Every subtest uses fresh random tokens and consumer keys, so
// newStore may return the same shared store each time.
func TestTemporaryStore(t *testing.T, newStore func() server.TemporaryStore) {
	ctx := context.Background()
	now := storeEpoch
	temp := func(ttl time.Duration) server.TemporaryCredentials {
		return server.TemporaryCredentials{
			Token: rand.Text(), Secret: rand.Text(), ConsumerKey: "consumer-" + rand.Text()[:6],
			Callback: "https://client.example/cb?state=a%20b&x=1",
			Expires:  now.Add(ttl),
			Scope:    "photos:read photos:write é&=%",
		}
	}
	put := func(t *testing.T, s server.TemporaryStore, ttl time.Duration) server.TemporaryCredentials {
		t.Helper()
		tc := temp(ttl)
		if err := s.PutTemporary(ctx, tc, now); err != nil {
			t.Fatalf("PutTemporary: %v", err)
		}
		return tc
	}
	// allFail checks every method but PutTemporary for token at now.
	allFail := func(t *testing.T, s server.TemporaryStore, token string, now time.Time, target error) {
		t.Helper()
		_, err := s.Temporary(ctx, token, now)
		wantErr(t, "Temporary", err, target)
		wantErr(t, "Authorize", s.Authorize(ctx, server.TemporaryCredentials{Token: token, User: "mallory", VerificationCode: "v"}, now), target)
		_, err = s.TakeTemporary(ctx, token, now)
		wantErr(t, "TakeTemporary", err, target)
	}

	t.Run("Unknown", func(t *testing.T) {
		allFail(t, newStore(), rand.Text(), now, server.ErrNotFound)
	})

	t.Run("RoundTrip", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		got, err := s.Temporary(ctx, want.Token, now)
		if err != nil {
			t.Fatalf("Temporary: %v", err)
		}
		checkTemporary(t, "Temporary", got, want)
	})

	t.Run("PutTwice", func(t *testing.T) {
		s := newStore()
		tc := put(t, s, time.Minute)
		if err := s.PutTemporary(ctx, tc, now); err == nil {
			t.Error("PutTemporary of a token already stored succeeded")
		}
	})

	t.Run("AuthorizeOnce", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		// The owner approves less than the client asked for.
		if err := s.Authorize(ctx, server.TemporaryCredentials{Token: want.Token, User: "alice", VerificationCode: "verifier-1", Scope: "photos:read"}, now); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		wantErr(t, "second Authorize", s.Authorize(ctx, server.TemporaryCredentials{Token: want.Token, User: "mallory", VerificationCode: "verifier-2", Scope: "all"}, now), server.ErrTokenUsed)
		want.User, want.VerificationCode, want.Scope = "alice", "verifier-1", "photos:read"
		got, err := s.Temporary(ctx, want.Token, now)
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
				err := s.Authorize(ctx, server.TemporaryCredentials{Token: tc.Token, User: u, VerificationCode: "v-" + u}, now)
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
		got, err := s.Temporary(ctx, tc.Token, now)
		if err != nil || got.User != ok[0] || got.VerificationCode != "v-"+ok[0] {
			t.Errorf("Temporary = %v, %v; want the user %q who won and their verification code", got, err, ok[0])
		}
	})

	t.Run("TakeOnce", func(t *testing.T) {
		s := newStore()
		want := put(t, s, time.Minute)
		if err := s.Authorize(ctx, server.TemporaryCredentials{Token: want.Token, User: "alice", VerificationCode: "v", Scope: want.Scope}, now); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		want.User, want.VerificationCode = "alice", "v"
		got, err := s.TakeTemporary(ctx, want.Token, now)
		if err != nil {
			t.Fatalf("TakeTemporary: %v", err)
		}
		checkTemporary(t, "TakeTemporary", got, want)
		allFail(t, s, want.Token, now, server.ErrTokenUsed)
	})

	t.Run("TakeConcurrently", func(t *testing.T) {
		s := newStore()
		tc := put(t, s, time.Minute)
		var won, used int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 64 {
			wg.Go(func() {
				got, err := s.TakeTemporary(ctx, tc.Token, now)
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
		const ttl = time.Minute
		fresh, taken, authorized := put(t, s, ttl), put(t, s, ttl), put(t, s, ttl)
		if _, err := s.TakeTemporary(ctx, taken.Token, now); err != nil {
			t.Fatalf("TakeTemporary: %v", err)
		}
		if err := s.Authorize(ctx, server.TemporaryCredentials{Token: authorized.Token, User: "alice", VerificationCode: "v"}, now); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
		// A millisecond before Expires, on the clock the calls are
		// passed, they live.
		before := now.Add(ttl - time.Millisecond)
		if _, err := s.Temporary(ctx, fresh.Token, before); err != nil {
			t.Fatalf("Temporary a millisecond before Expires: %v", err)
		}
		if _, err := s.Temporary(ctx, authorized.Token, before); err != nil {
			t.Fatalf("Temporary of authorized credentials a millisecond before Expires: %v", err)
		}
		allFail(t, s, taken.Token, before, server.ErrTokenUsed)
		at := now.Add(ttl)
		for _, tc := range []server.TemporaryCredentials{fresh, taken, authorized} {
			allFail(t, s, tc.Token, at, server.ErrNotFound)
		}
		// Expiry holds after another record was stored, too.
		later := temp(ttl)
		later.Expires = at.Add(ttl)
		if err := s.PutTemporary(ctx, later, at); err != nil {
			t.Fatalf("PutTemporary: %v", err)
		}
		allFail(t, s, fresh.Token, at, server.ErrNotFound)
		if _, err := s.Temporary(ctx, later.Token, at); err != nil {
			t.Errorf("Temporary of credentials stored at the later time: %v", err)
		}
	})

	t.Run("RevokeGrant", func(t *testing.T) {
		// Only the grant's approved, unexchanged credentials are revoked;
		// every method then fails with ErrTokenRevoked and ErrNotFound.
		s := newStore()
		approved, taken, pending, other := put(t, s, time.Minute), temp(time.Minute), temp(time.Minute), temp(time.Minute)
		taken.ConsumerKey, pending.ConsumerKey, other.ConsumerKey = approved.ConsumerKey, approved.ConsumerKey, approved.ConsumerKey
		for _, tc := range []server.TemporaryCredentials{taken, pending, other} {
			if err := s.PutTemporary(ctx, tc, now); err != nil {
				t.Fatalf("PutTemporary: %v", err)
			}
		}
		for tc, user := range map[string]string{approved.Token: "alice", taken.Token: "alice", other.Token: "bob"} {
			if err := s.Authorize(ctx, server.TemporaryCredentials{Token: tc, User: user, VerificationCode: "code"}, now); err != nil {
				t.Fatalf("Authorize: %v", err)
			}
		}
		if _, err := s.TakeTemporary(ctx, taken.Token, now); err != nil {
			t.Fatalf("TakeTemporary: %v", err)
		}
		if n, err := s.RevokeGrant(ctx, approved.ConsumerKey, "alice", now); n != 1 || err != nil {
			t.Errorf("RevokeGrant = %d, %v; want 1 (the approved, unexchanged credentials), nil", n, err)
		}
		allFail(t, s, approved.Token, now, server.ErrTokenRevoked)
		allFail(t, s, approved.Token, now, server.ErrNotFound)
		_, err := s.TakeTemporary(ctx, taken.Token, now)
		wantErr(t, "TakeTemporary of credentials exchanged before RevokeGrant", err, server.ErrTokenUsed)
		for _, tc := range []server.TemporaryCredentials{pending, other} {
			if _, err := s.Temporary(ctx, tc.Token, now); err != nil {
				t.Errorf("Temporary of credentials RevokeGrant must leave: %v", err)
			}
		}
		if n, err := s.RevokeGrant(ctx, approved.ConsumerKey, "alice", now); n != 0 || !errors.Is(err, server.ErrNotFound) {
			t.Errorf("second RevokeGrant = %d, %v; want 0, ErrNotFound", n, err)
		}
		if n, err := s.RevokeGrant(ctx, "consumer-"+rand.Text()[:6], "nobody", now); n != 0 || !errors.Is(err, server.ErrNotFound) {
			t.Errorf("RevokeGrant of an unknown grant = %d, %v; want 0, ErrNotFound", n, err)
		}
	})

	t.Run("ConcurrentDistinct", func(t *testing.T) {
		s := newStore()
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				tc := temp(time.Minute)
				if err := s.PutTemporary(ctx, tc, now); err != nil {
					t.Errorf("PutTemporary: %v", err)
					return
				}
				if err := s.Authorize(ctx, server.TemporaryCredentials{Token: tc.Token, User: "u", VerificationCode: "v"}, now); err != nil {
					t.Errorf("Authorize: %v", err)
				}
				if got, err := s.TakeTemporary(ctx, tc.Token, now); err != nil || got.Secret != tc.Secret || got.VerificationCode != "v" {
					t.Errorf("TakeTemporary = %v, %v", got, err)
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
