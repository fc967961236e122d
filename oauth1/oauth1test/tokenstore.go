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
// [server.TokenStore] contract: round trips (every field, Scope too),
// ErrNotFound for unknown
// tokens, a token stored once, Revoke of one token and RevokeGrant of the
// tokens of one user for one client, each refusing them from the moment
// it returns (with ErrTokenRevoked, also an hour later) and leaving every
// other token alone, 0 and ErrNotFound from RevokeGrant when nothing
// matched, the bound of one grant (1,000 authorizations of one user never
// refused, the newest 16 kept, older ones revoked), and concurrent use.
// Every call is passed a test clock in 2011. Every subtest uses fresh
// random tokens, consumer keys and users, so newStore may return the same
// shared store each time.
func TestTokenStore(t *testing.T, newStore func() server.TokenStore) {
	ctx := context.Background()
	now := storeEpoch
	token := func(client, user string) server.TokenCredentials {
		return server.TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: client, User: user, Scope: "photos:read " + user}
	}
	put := func(t *testing.T, s server.TokenStore, tok server.TokenCredentials) {
		t.Helper()
		if err := s.PutToken(ctx, tok, now); err != nil {
			t.Fatalf("PutToken: %v", err)
		}
	}
	known := func(t *testing.T, s server.TokenStore, want server.TokenCredentials) {
		t.Helper()
		got, err := s.Token(ctx, want.Token, now)
		if err != nil || got != want {
			t.Errorf("Token = %#v, %v; want %#v (secrets not shown)", got, err, want)
		}
	}
	unknown := func(t *testing.T, s server.TokenStore, token string) {
		t.Helper()
		_, err := s.Token(ctx, token, now)
		wantErr(t, "Token", err, server.ErrNotFound)
		if errors.Is(err, server.ErrTokenRevoked) {
			t.Errorf("Token of a token never stored: error %v wraps ErrTokenRevoked", err)
		}
	}
	// revoked checks that token is refused as revoked, wrapping
	// ErrNotFound too, and still an hour later.
	revoked := func(t *testing.T, s server.TokenStore, token string) {
		t.Helper()
		for _, at := range []time.Time{now, now.Add(time.Hour)} {
			got, err := s.Token(ctx, token, at)
			wantErr(t, "Token of a revoked token", err, server.ErrTokenRevoked)
			wantErr(t, "Token of a revoked token", err, server.ErrNotFound)
			if got != (server.TokenCredentials{}) {
				t.Errorf("Token of a revoked token returned a record for %q (secret not shown)", got.Token)
			}
		}
	}
	name := func(what string) string { return what + "-" + rand.Text()[:8] }

	t.Run("Unknown", func(t *testing.T) {
		s := newStore()
		unknown(t, s, rand.Text())
		wantErr(t, "Revoke", s.Revoke(ctx, rand.Text(), now), server.ErrNotFound)
		if n, err := s.RevokeGrant(ctx, name("client"), name("user"), now); n != 0 || !errors.Is(err, server.ErrNotFound) {
			t.Errorf("RevokeGrant of a grant that has no tokens = %d, %v; want 0, ErrNotFound", n, err)
		}
	})

	t.Run("RoundTrip", func(t *testing.T) {
		s := newStore()
		want := token(name("client"), "alice")
		put(t, s, want)
		known(t, s, want)
		// A record with fields of any content, empty ones included.
		odd := server.TokenCredentials{Token: rand.Text(), Secret: "s p&a=c%e\x00", ConsumerKey: "k:ey", User: "", Scope: "s c&o=p%e é"}
		put(t, s, odd)
		known(t, s, odd)
	})

	t.Run("PutTwice", func(t *testing.T) {
		s := newStore()
		tok := token(name("client"), "alice")
		put(t, s, tok)
		other := tok
		other.Secret = rand.Text()
		if err := s.PutToken(ctx, other, now); err == nil {
			t.Error("PutToken of a token already stored succeeded")
		}
		known(t, s, tok)
	})

	t.Run("Revoke", func(t *testing.T) {
		s := newStore()
		client := name("client")
		gone, kept := token(client, "alice"), token(client, "alice")
		put(t, s, gone)
		put(t, s, kept)
		if err := s.Revoke(ctx, gone.Token, now); err != nil {
			t.Fatalf("Revoke: %v", err)
		}
		revoked(t, s, gone.Token)
		known(t, s, kept)
		wantErr(t, "second Revoke", s.Revoke(ctx, gone.Token, now), server.ErrNotFound)
		// The grant still holds the token kept, and only it.
		if n, err := s.RevokeGrant(ctx, client, "alice", now); n != 1 || err != nil {
			t.Errorf("RevokeGrant after Revoke of one of two tokens = %d, %v; want 1, nil", n, err)
		}
		revoked(t, s, kept.Token)
		// A token revoked cannot be stored again.
		if err := s.PutToken(ctx, gone, now); err == nil {
			t.Error("PutToken of a revoked token succeeded")
		}
		revoked(t, s, gone.Token)
	})

	t.Run("RevokeGrant", func(t *testing.T) {
		s := newStore()
		client, other, alice, bob := name("client"), name("other"), name("alice"), name("bob")
		var grant []server.TokenCredentials
		for range 3 {
			tok := token(client, alice)
			put(t, s, tok)
			grant = append(grant, tok)
		}
		// The same user for another client, another user for the same
		// client, and names that run together differently.
		keep := []server.TokenCredentials{token(other, alice), token(client, bob), token(client+alice, ""), token("", client+alice)}
		for _, tok := range keep {
			put(t, s, tok)
		}
		n, err := s.RevokeGrant(ctx, client, alice, now)
		if n != len(grant) || err != nil {
			t.Errorf("RevokeGrant = %d, %v; want %d, nil", n, err, len(grant))
		}
		for _, tok := range grant {
			revoked(t, s, tok.Token)
		}
		for _, tok := range keep {
			known(t, s, tok)
		}
		if n, err := s.RevokeGrant(ctx, client, alice, now); n != 0 || !errors.Is(err, server.ErrNotFound) {
			t.Errorf("second RevokeGrant = %d, %v; want 0, ErrNotFound", n, err)
		}
		// A new token for the grant is not revoked by the past call.
		fresh := token(client, alice)
		put(t, s, fresh)
		known(t, s, fresh)
	})

	t.Run("Reauthorize", func(t *testing.T) {
		// One user authorizes one client 1,000 times: never refused, the
		// newest 16 kept, the oldest revoked (the grant's bound is at
		// most 256), and RevokeGrant finds what the grant kept.
		s := newStore()
		client, user := name("client"), name("user")
		toks := make([]server.TokenCredentials, 1000)
		for i := range toks {
			toks[i] = token(client, user)
			if err := s.PutToken(ctx, toks[i], now); err != nil {
				t.Fatalf("PutToken of authorization %d of one user: %v", i+1, err)
			}
		}
		for _, tok := range toks[len(toks)-16:] {
			known(t, s, tok)
		}
		revoked(t, s, toks[0].Token)
		revoked(t, s, toks[len(toks)-257].Token)
		n, err := s.RevokeGrant(ctx, client, user, now)
		if n < 16 || n > 256 || err != nil {
			t.Errorf("RevokeGrant of a grant authorized 1,000 times = %d, %v; want 16 to 256, nil", n, err)
		}
		for _, tok := range toks[len(toks)-16:] {
			revoked(t, s, tok.Token)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		s := newStore()
		client, user := name("client"), name("user")
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				tok := token(client, user)
				if err := s.PutToken(ctx, tok, now); err != nil {
					t.Errorf("PutToken: %v", err)
					return
				}
				if got, err := s.Token(ctx, tok.Token, now); err != nil || got != tok {
					t.Errorf("Token = %v, %v", got, err)
				}
			})
		}
		wg.Wait()
		if n, err := s.RevokeGrant(ctx, client, user, now); n != 16 || err != nil {
			t.Errorf("RevokeGrant of 16 tokens stored concurrently = %d, %v; want 16, nil", n, err)
		}
	})
}
