package tokenexchange

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
)

// instance is another Handler of the provider of f, sharing its stores:
// a second instance, or the first one restarted.
func (f *fixture) instance(st Store, nonces server.NonceStore) *Handler {
	h := &Handler{Consumers: f.h.Consumers, Tokens: f.h.Tokens, Settings: f.h.Settings,
		Clients: f.h.Clients, Issuer: f.h.Issuer, Store: st, Observe: f.h.Observe,
		RepeatWindow: f.h.RepeatWindow, Grace: f.h.Grace}
	h.Settings.Nonces = nonces
	return h
}

// TestRevocationSurvivesRestart: the instance that exchanged a grant stops
// before Grace has passed; another on the same Store revokes the 1.0a
// token once Grace has passed on its clock, on whatever request it serves.
func TestRevocationSurvivesRestart(t *testing.T) {
	f := newFixture(t)
	f.h.Grace = time.Hour
	goroutines := runtime.NumGoroutine()
	first := f.instance(f.h.Store, f.h.Settings.Nonces)
	wantToken(t, serve(t, first, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	first = nil // the instance stops: nothing of it runs on
	require.LessOrEqual(t, runtime.NumGoroutine(), goroutines, "a goroutine left by the exchange")

	second := f.instance(f.h.Store, f.h.Settings.Nonces)
	f.clock.add(59 * time.Minute)
	serve(t, second, post(secretForm("subject_token", "tok-nobody"), clientID, clientSecret))
	_, err := f.tokens.Token(context.Background(), token1, f.clock.now())
	require.NoError(t, err, "revoked before its grace ended")

	f.clock.add(time.Minute)
	serve(t, second, post(secretForm("subject_token", "tok-nobody"), clientID, clientSecret))
	_, err = f.tokens.Token(context.Background(), token1, f.clock.now())
	require.ErrorIs(t, err, server.ErrTokenRevoked, "the grace passed, and no instance revoked the token")
}

// TestFullStoreNotLockedOut: a MemoryStore full of exchanges makes room
// once their tokens are revoked (and a minute after), not 400 days later.
func TestFullStoreNotLockedOut(t *testing.T) {
	f := newFixture(t)
	f.h.Store = &MemoryStore{MaxGrants: 1}
	f.h.Grace = time.Hour
	wantToken(t, serve(t, f.h, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	other := secretForm("subject_token", "tok-other", "oauth_token_secret", "ts-SECRET-other")
	full := serve(t, f.h, post(other, otherID, otherSecret))
	require.Equal(t, 503, full.status, "full")

	f.clock.add(time.Hour)
	serve(t, f.h, post(secretForm("subject_token", "tok-nobody"), clientID, clientSecret)) // revokes tok-1
	f.clock.add(2 * time.Minute)
	wantToken(t, serve(t, f.h, post(other, otherID, otherSecret)), "at-2", "read")

	// The grant revoked and forgotten is still refused, by its token.
	a := serve(t, f.h, post(secretForm(), clientID, clientSecret))
	require.Equal(t, "invalid_request", a.fields["error"])
	require.EqualValues(t, 2, f.issued.Load())
}

// TestOneGrantCannotFillStore: one client and one user who authorize
// again and exchange again, over and over, within Grace, hold at most 16
// exchanges unrevoked (and those revoked in the last minute); other
// grants are exchanged.
func TestOneGrantCannotFillStore(t *testing.T) {
	f := newFixture(t)
	m := &MemoryStore{MaxGrants: 64}
	f.h.Store = m
	f.h.Grace = 24 * time.Hour
	ctx := context.Background()
	for i := range 200 {
		tok, secret := fmt.Sprintf("tok-again-%d", i), fmt.Sprintf("ts-again-%d", i)
		require.NoError(t, f.tokens.PutToken(ctx, server.TokenCredentials{Token: tok, Secret: secret, ConsumerKey: consumerKey, User: "alice", Scope: "read"}, f.clock.now()))
		a := serve(t, f.h, post(secretForm("subject_token", tok, "oauth_token_secret", secret), clientID, clientSecret))
		require.Equal(t, 200, a.status, "exchange %d: %s", i, a.body)
		f.clock.add(3 * time.Second)
	}
	m.mu.Lock()
	held, unrevoked := len(m.grants), len(m.users[[2]string{consumerKey, "alice"}])
	m.mu.Unlock()
	t.Logf("held %d records, %d of alice's unrevoked", held, unrevoked)
	require.LessOrEqual(t, unrevoked, maxPerGrant+1, "unrevoked exchanges of one grant")
	require.LessOrEqual(t, held, maxPerGrant+1+21, "records held: 16 unrevoked, one due, those revoked in the last minute")
	other := secretForm("subject_token", "tok-other", "oauth_token_secret", "ts-SECRET-other")
	require.Equal(t, 200, serve(t, f.h, post(other, otherID, otherSecret)).status)
	// The newest 16 of alice's tokens still work: their grace runs on.
	_, err := f.tokens.Token(ctx, "tok-again-199", f.clock.now())
	require.NoError(t, err)
}

// sharedStore is a Store shared by instances: anything but a *MemoryStore.
type sharedStore struct{ Store }

// sharedNonces is a NonceStore shared by instances, as redisstore's is.
type sharedNonces struct{ server.NonceStore }

// TestSharedStoreReplay: instances that share the exchange Store but not
// their nonce stores would answer a signed exchange replayed to another
// instance with the live token kept for repeats: they refuse signed
// exchanges, naming the problem. With a shared nonce store the replay is
// refused as a replay.
func TestSharedStoreReplay(t *testing.T) {
	f := newFixture(t)
	f.h.RepeatWindow = time.Hour
	st := sharedStore{new(MemoryStore)}
	for _, nonces := range []func() server.NonceStore{
		func() server.NonceStore { return new(server.MemoryNonceStore) },
		func() server.NonceStore { return nil }, // one per process
	} {
		a, b := f.instance(st, nonces()), f.instance(st, nonces())
		first := serve(t, a, f.signedNonce(t, url.Values{}, tok1, "n-once"))
		replay := serve(t, b, f.signedNonce(t, url.Values{}, tok1, "n-once"))
		for _, x := range []answerOf{first, replay} {
			require.Equal(t, 500, x.status, x.body)
			require.Equal(t, "server_error", x.fields["error"])
			require.Contains(t, x.fields["error_description"], "nonce store")
			require.ErrorIs(t, f.lastObserved(t).err, errLocalNonces)
		}
		require.Zero(t, f.issued.Load())
		// X's shape carries the token secret, which a replay needs anyway.
		wantToken(t, serve(t, b, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
		st = sharedStore{new(MemoryStore)}
		f.issued.Store(0)
	}

	nonces := sharedNonces{new(server.MemoryNonceStore)}
	a, b := f.instance(st, nonces), f.instance(st, nonces)
	wantToken(t, serve(t, a, f.signedNonce(t, url.Values{}, tok1, "n-once")), "at-1", "read write")
	replay := serve(t, b, f.signedNonce(t, url.Values{}, tok1, "n-once"))
	require.Equal(t, 401, replay.status)
	require.Contains(t, replay.fields["error_description"], "nonce_used")
	require.NotContains(t, replay.body, "at-1")
}

// failingDue is a Store that cannot list the revocations due.
type failingDue struct{ Store }

func (failingDue) Due(context.Context, time.Time, int) ([]Grant, error) {
	return nil, fmt.Errorf("%w: connection refused", server.ErrStoreUnavailable)
}

// TestDueFailureObserved: a Store that cannot list the revocations due
// reaches Observe (nil request, zero grant) and RevokeDue's error; the
// request is served all the same.
func TestDueFailureObserved(t *testing.T) {
	f := newFixture(t)
	f.h.Store = failingDue{new(MemoryStore)}
	wantToken(t, serve(t, f.h, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	f.mu.Lock()
	o := f.observed[0]
	f.mu.Unlock()
	require.False(t, o.r)
	require.Equal(t, Grant{}, o.g)
	require.ErrorIs(t, o.err, server.ErrStoreUnavailable)
	_, err := f.h.RevokeDue(context.Background())
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
}

// TestRevokedAfterGrace: the 1.0a token is revoked once Grace has passed
// on the Handler's clock, and not before, by the next request or by
// RevokeDue.
func TestRevokedAfterGrace(t *testing.T) {
	f := newFixture(t)
	f.h.RepeatWindow = time.Minute
	f.h.Grace = time.Hour
	wantToken(t, serve(t, f.h, post(secretForm(), clientID, clientSecret)), "at-1", "read write")
	live := func() error {
		_, err := f.tokens.Token(context.Background(), token1, f.clock.now())
		return err
	}
	f.clock.add(59 * time.Minute)
	n, err := f.h.RevokeDue(context.Background())
	require.NoError(t, err)
	require.Zero(t, n)
	require.NoError(t, live(), "revoked before its grace ended")

	f.clock.add(time.Minute)
	// Any request revokes what is due, whatever its own outcome.
	serve(t, f.h, post(secretForm("subject_token", "nope"), clientID, clientSecret))
	require.ErrorIs(t, live(), server.ErrTokenRevoked)
	n, err = f.h.RevokeDue(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "revoked once: no longer due")
}

// TestRevokeFailureObserved: a revocation that fails after the exchange
// reaches Observe, with a nil request, and stays due until one succeeds.
func TestRevokeFailureObserved(t *testing.T) {
	f := newFixture(t)
	f.h.RepeatWindow = 10 * time.Millisecond
	tokens := f.h.Tokens
	f.h.Tokens = failingRevoke{f.tokens}
	serve(t, f.h, post(secretForm(), clientID, clientSecret))
	f.clock.add(time.Second)
	n, err := f.h.RevokeDue(context.Background())
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
	require.Zero(t, n)
	require.NotContains(t, err.Error(), token1, "a token is named by its hash")
	f.mu.Lock()
	o := f.observed[len(f.observed)-1]
	f.mu.Unlock()
	require.False(t, o.r)
	require.Equal(t, token1, o.g.Token)
	require.ErrorIs(t, o.err, server.ErrStoreUnavailable)

	f.h.Tokens = tokens
	n, err = f.h.RevokeDue(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n, "still due after the failure")
	_, err = f.tokens.Token(context.Background(), token1, f.clock.now())
	require.ErrorIs(t, err, server.ErrTokenRevoked)
}

type failingRevoke struct{ server.TokenStore }

func (failingRevoke) Revoke(context.Context, string, time.Time) error {
	return fmt.Errorf("%w: connection refused", server.ErrStoreUnavailable)
}
