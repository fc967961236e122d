package oauth1test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// TestConsumerStore checks that the stores newStore returns keep the
// [server.ConsumerStore] contract. newStore returns a store that holds
// the registrations in consumers, by consumer key, as a store over a
// database holds the rows a test inserted; the suite neither reads nor
// modifies consumers once newStore has returned. Every call's consumer
// keys are fresh (they end in random characters), so newStore may add
// them to one shared database, and remove them in t.Cleanup.
//
// The checks: Consumer returns each registration intact, its Secret, its
// PublicKey (RSA), its CallbackSchemes and its Callbacks; a key is looked up exactly,
// byte for byte, with spaces, "%", "_" and non-ASCII UTF-8 in it: another
// case, a trailing space, another Unicode normalization or a prefix is an
// unknown key, as are the empty key, invalid UTF-8 and NUL, which a
// request may carry and a database may be unable to hold; an unknown key is
// an error wrapping [server.ErrNotFound]; under a context that is done
// (cancelled or past its deadline) Consumer returns the right registration
// or an error wrapping the context's error, never ErrNotFound; and 16
// goroutines looking keys up at once get the right answers (run the test
// with -race too).
//
// A store that cannot be reached must return an error wrapping
// [server.ErrStoreUnavailable]; no suite can provoke that, so check it
// yourself, for instance with the database stopped.
func TestConsumerStore(t *testing.T, newStore func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore) {
	testConsumers(t, newStore)
}

// TestCredentialStore checks that the stores newStore returns keep the
// [server.CredentialStore] contract. newStore returns a store that holds
// the registrations in consumers, by consumer key, the token credentials in
// tokens, and the token credentials in revoked as revoked; the suite
// neither reads nor modifies them once newStore has returned. Every
// call's keys and tokens are fresh (they end in random characters), so
// newStore may add them to one shared database, and remove them in
// t.Cleanup. A store that cannot hold some of the data calls t.Skip, and
// the checks that need it are skipped: [server.Consumers], which holds no
// tokens, skips when tokens or revoked is not empty; a store that deletes
// revoked tokens, rather than remembering them, skips when revoked is not
// empty (a token it deleted is an unknown token, which is checked).
//
// The checks of Consumer are those of [TestConsumerStore], in the subtest
// Consumer. Those of TokenCredentials, in the subtest TokenCredentials:
// it returns the record of each token intact, all five fields (Scope
// too, which a store written before it may drop); a token is
// looked up exactly, as a consumer key is; an unknown token is an error
// wrapping [server.ErrNotFound], and not [server.ErrTokenRevoked]; a
// token issued to another client, looked up with a consumer key that is
// not the one it was issued to, is an error wrapping ErrNotFound or a
// record whose ConsumerKey is the client it was issued to (which the
// [server.Verifier] refuses), never one that names the consumer key asked
// with; a revoked token is an error wrapping both ErrTokenRevoked and
// ErrNotFound, with no record, so that the Verifier answers token_revoked;
// a done context and concurrent use are checked as for Consumer.
//
// A store that cannot be reached must return an error wrapping
// [server.ErrStoreUnavailable]; no suite can provoke that, so check it
// yourself, for instance with the database stopped.
func TestCredentialStore(t *testing.T, newStore func(t *testing.T, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) server.CredentialStore) {
	t.Run("Consumer", func(t *testing.T) {
		testConsumers(t, func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore {
			return newStore(t, consumers, nil, nil)
		})
	})
	t.Run("TokenCredentials", func(t *testing.T) { testTokens(t, newStore) })
}

// suffix returns random characters that make the keys of one call fresh.
func suffix() string { return rand.Text()[:10] }

// testKeys returns consumer keys, or tokens, of the kinds a store must look
// up exactly, each ending in sfx.
func testKeys(sfx string) []string {
	return []string{
		"Key-" + sfx, // mixed case
		"a key with spaces " + sfx,
		"100%_" + sfx,     // LIKE wildcards
		"clé-" + sfx,      // é precomposed (NFC)
		"ключ-" + sfx,     // Cyrillic
		"k:e/y?&=+" + sfx, // URL and form delimiters
	}
}

// nearMisses returns keys a store must not confuse with k: another case,
// spaces around it, another Unicode normalization, accents stripped, a
// prefix, and LIKE patterns that match it.
func nearMisses(k string) []string {
	last := len(k) - 1
	out := []string{
		strings.ToLower(k), strings.ToUpper(k), k + " ", " " + k, k + "\x00",
		strings.ReplaceAll(k, "é", "e\u0301"), strings.ReplaceAll(k, "é", "e"),
		k[:last], k[:last] + "_", k[:last] + "%", "%",
	}
	return slices.DeleteFunc(out, func(m string) bool { return m == k })
}

// unknownKeys returns keys no call of the suite ever stores, among them
// the empty key and bytes a request may carry that a database may be
// unable to hold.
func unknownKeys() []string {
	return []string{rand.Text(), "", "%", "_", "*", "\xff\xfe", "\x00", "nul\x00" + suffix()}
}

// rsaKey is the public key of the registrations the suite stores.
var rsaKey = sync.OnceValue(func() *rsa.PublicKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return &k.PublicKey
})

// registrations returns registrations of every kind, by consumer key: HMAC
// only, RSA only, both, with callback schemes, under keys that must be
// looked up exactly.
func registrations() map[string]server.Registration {
	sfx := suffix()
	out := make(map[string]server.Registration)
	for i, k := range testKeys(sfx) {
		r := server.Registration{Secret: fmt.Sprintf("s%d e&c=r%%e+t é %s", i, rand.Text())}
		switch i % 3 {
		case 1:
			r.Secret, r.PublicKey = "", rsaKey()
		case 2:
			r.PublicKey, r.CallbackSchemes = rsaKey(), []string{"com.example.app", "x-" + strings.ToLower(sfx)}
			r.Callbacks = []string{"com.example.app:/cb", "https://app.example/" + sfx + "/", "oob"}
		}
		out[k] = r
	}
	return out
}

// sameRegistration reports whether got holds what want holds, a nil and an
// empty CallbackSchemes or Callbacks alike.
func sameRegistration(got, want server.Registration) bool {
	keys := got.PublicKey == want.PublicKey ||
		got.PublicKey != nil && want.PublicKey != nil && got.PublicKey.Equal(want.PublicKey)
	return got.Secret == want.Secret && keys && slices.Equal(got.CallbackSchemes, want.CallbackSchemes) &&
		slices.Equal(got.Callbacks, want.Callbacks)
}

// doneContexts returns a cancelled context and one past its deadline.
func doneContexts() []context.Context {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	cancel()
	return []context.Context{cancelled, expired}
}

// concurrently runs f in 16 goroutines released at once.
func concurrently(f func()) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			<-start
			f()
		})
	}
	close(start)
	wg.Wait()
}

func testConsumers(t *testing.T, newStore func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore) {
	ctx := context.Background()
	now := time.Now()
	known := func(t *testing.T, s server.ConsumerStore, key string, want server.Registration) {
		t.Helper()
		got, err := s.Consumer(ctx, key, now)
		if err != nil || !sameRegistration(got, want) {
			t.Errorf("Consumer(%q) = %v, %v; want %v, nil (secrets not shown)", key, got, err, want)
		}
	}
	unknown := func(t *testing.T, s server.ConsumerStore, key string) {
		t.Helper()
		_, err := s.Consumer(ctx, key, now)
		wantErr(t, fmt.Sprintf("Consumer(%q)", key), err, server.ErrNotFound)
	}

	t.Run("RoundTrip", func(t *testing.T) {
		regs := registrations()
		s := newStore(t, cloneRegistrations(regs))
		for k, want := range regs {
			known(t, s, k, want)
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		s := newStore(t, registrations())
		for _, k := range unknownKeys() {
			unknown(t, s, k)
		}
		empty := newStore(t, map[string]server.Registration{})
		unknown(t, empty, rand.Text())
	})

	t.Run("Exact", func(t *testing.T) {
		regs := registrations()
		s := newStore(t, cloneRegistrations(regs))
		for k := range regs {
			for _, m := range nearMisses(k) {
				unknown(t, s, m)
			}
		}
	})

	t.Run("Context", func(t *testing.T) {
		regs := registrations()
		s := newStore(t, cloneRegistrations(regs))
		for _, done := range doneContexts() {
			for k, want := range regs {
				got, err := s.Consumer(done, k, now)
				if err == nil {
					if !sameRegistration(got, want) {
						t.Errorf("Consumer(%q) under a done context = %v, want %v (secrets not shown)", k, got, want)
					}
				} else if !errors.Is(err, done.Err()) || errors.Is(err, server.ErrNotFound) {
					t.Errorf("Consumer(%q) under a done context: error %v, want the registration or an error wrapping %v and not ErrNotFound", k, err, done.Err())
				}
			}
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		regs := registrations()
		s := newStore(t, cloneRegistrations(regs))
		unknownKey := rand.Text()
		concurrently(func() {
			for k, want := range regs {
				if got, err := s.Consumer(ctx, k, now); err != nil || !sameRegistration(got, want) {
					t.Errorf("concurrent Consumer(%q) = %v, %v; want %v, nil (secrets not shown)", k, got, err, want)
				}
			}
			if _, err := s.Consumer(ctx, unknownKey, now); !errors.Is(err, server.ErrNotFound) {
				t.Errorf("concurrent Consumer(%q) of an unknown key: error %v, want one wrapping ErrNotFound", unknownKey, err)
			}
		})
	})
}

// cloneRegistrations returns a copy of regs, for newStore to own.
func cloneRegistrations(regs map[string]server.Registration) map[string]server.Registration {
	out := make(map[string]server.Registration, len(regs))
	for k, r := range regs {
		r.CallbackSchemes, r.Callbacks = slices.Clone(r.CallbackSchemes), slices.Clone(r.Callbacks)
		out[k] = r
	}
	return out
}

// grant is the data of one call of a TokenCredentials check: two clients
// and tokens issued to each.
type grant struct {
	consumers map[string]server.Registration
	a, b      string // the two clients' consumer keys
	tokens    []server.TokenCredentials
}

// newGrant returns two clients and tokens of each, under tokens that must
// be looked up exactly, with every kind of User, the empty one included.
func newGrant() grant {
	g := grant{a: "client-a-" + suffix(), b: "client-b-" + suffix()}
	g.consumers = map[string]server.Registration{
		g.a: {Secret: "a-" + rand.Text()},
		g.b: {Secret: "b-" + rand.Text()},
	}
	users := []string{"alice", "", "Bob Ünal", "user:1&2"}
	scopes := []string{"photos:read", "", "read write https://api.example/é?x=1&y=%20", "a"}
	for i, tok := range testKeys(suffix()) {
		client := g.a
		if i%2 == 1 {
			client = g.b
		}
		secret := fmt.Sprintf("t%d s&e=c%%r+e t é %s", i, rand.Text())
		g.tokens = append(g.tokens, server.TokenCredentials{Token: tok, Secret: secret, ConsumerKey: client, User: users[i%len(users)], Scope: scopes[i%len(scopes)]})
	}
	return g
}

func testTokens(t *testing.T, newStore func(t *testing.T, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) server.CredentialStore) {
	ctx := context.Background()
	now := time.Now()
	store := func(t *testing.T, g grant, revoked []server.TokenCredentials) server.CredentialStore {
		return newStore(t, cloneRegistrations(g.consumers), slices.Clone(g.tokens), slices.Clone(revoked))
	}
	known := func(t *testing.T, s server.CredentialStore, want server.TokenCredentials) {
		t.Helper()
		got, err := s.TokenCredentials(ctx, want.ConsumerKey, want.Token, now)
		if err != nil || got != want {
			t.Errorf("TokenCredentials(%q, %q) = %#v, %v; want %#v, nil (secrets not shown)", want.ConsumerKey, want.Token, got, err, want)
		}
	}
	unknown := func(t *testing.T, s server.CredentialStore, consumerKey, token string) {
		t.Helper()
		_, err := s.TokenCredentials(ctx, consumerKey, token, now)
		what := fmt.Sprintf("TokenCredentials(%q, %q)", consumerKey, token)
		wantErr(t, what, err, server.ErrNotFound)
		if errors.Is(err, server.ErrTokenRevoked) {
			t.Errorf("%s of a token never stored: error %v wraps ErrTokenRevoked", what, err)
		}
	}

	t.Run("RoundTrip", func(t *testing.T) {
		g := newGrant()
		s := store(t, g, nil)
		for _, tok := range g.tokens {
			known(t, s, tok)
		}
	})

	t.Run("Unknown", func(t *testing.T) {
		g := newGrant()
		g.tokens = nil
		s := store(t, g, nil)
		for _, tok := range unknownKeys() {
			unknown(t, s, g.a, tok)
		}
		unknown(t, s, "client-"+rand.Text(), rand.Text())
	})

	t.Run("Exact", func(t *testing.T) {
		g := newGrant()
		s := store(t, g, nil)
		for _, tok := range g.tokens {
			for _, m := range nearMisses(tok.Token) {
				unknown(t, s, tok.ConsumerKey, m)
			}
		}
	})

	t.Run("OtherClient", func(t *testing.T) {
		g := newGrant()
		s := store(t, g, nil)
		for _, tok := range g.tokens {
			other := g.a
			if tok.ConsumerKey == g.a {
				other = g.b
			}
			for _, key := range []string{other, "client-" + rand.Text(), strings.ToUpper(tok.ConsumerKey)} {
				got, err := s.TokenCredentials(ctx, key, tok.Token, now)
				if err == nil && got.ConsumerKey != tok.ConsumerKey || err != nil && !errors.Is(err, server.ErrNotFound) {
					t.Errorf("TokenCredentials(%q, %q) of a token issued to %q = %#v, %v; want an error wrapping ErrNotFound, or the record with its own ConsumerKey",
						key, tok.Token, tok.ConsumerKey, got, err)
				}
			}
		}
	})

	t.Run("Revoked", func(t *testing.T) {
		g := newGrant()
		revoked := g.tokens[:len(g.tokens)/2]
		g.tokens = g.tokens[len(g.tokens)/2:]
		s := store(t, g, revoked)
		for _, tok := range revoked {
			got, err := s.TokenCredentials(ctx, tok.ConsumerKey, tok.Token, now)
			what := fmt.Sprintf("TokenCredentials(%q, %q) of a revoked token", tok.ConsumerKey, tok.Token)
			wantErr(t, what, err, server.ErrTokenRevoked)
			wantErr(t, what, err, server.ErrNotFound)
			if got != (server.TokenCredentials{}) {
				t.Errorf("%s returned a record for %q (secret not shown)", what, got.Token)
			}
		}
		for _, tok := range g.tokens {
			known(t, s, tok)
		}
	})

	t.Run("Context", func(t *testing.T) {
		g := newGrant()
		s := store(t, g, nil)
		for _, done := range doneContexts() {
			for _, want := range g.tokens {
				got, err := s.TokenCredentials(done, want.ConsumerKey, want.Token, now)
				if err == nil {
					if got != want {
						t.Errorf("TokenCredentials(%q, %q) under a done context = %#v, want %#v (secrets not shown)", want.ConsumerKey, want.Token, got, want)
					}
				} else if !errors.Is(err, done.Err()) || errors.Is(err, server.ErrNotFound) {
					t.Errorf("TokenCredentials(%q, %q) under a done context: error %v, want the record or an error wrapping %v and not ErrNotFound", want.ConsumerKey, want.Token, err, done.Err())
				}
			}
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		g := newGrant()
		s := store(t, g, nil)
		concurrently(func() {
			for _, want := range g.tokens {
				if got, err := s.TokenCredentials(ctx, want.ConsumerKey, want.Token, now); err != nil || got != want {
					t.Errorf("concurrent TokenCredentials(%q, %q) = %#v, %v; want %#v, nil (secrets not shown)", want.ConsumerKey, want.Token, got, err, want)
				}
			}
		})
	})
}
