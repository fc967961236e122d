package tokenexchange

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1/server"
)

// TestConcurrentExchanges: eight Handlers (instances) sharing a
// MemoryStore, token store and nonce store, 64 exchanges of one grant at
// once, in both shapes: exactly one Issue, and every exchange answered
// with its token.
func TestConcurrentExchanges(t *testing.T) {
	f := newFixture(t)
	f.issue = func(context.Context, Grant) (*oauth2.Token, error) {
		time.Sleep(50 * time.Millisecond) // the others arrive while it is minted
		return &oauth2.Token{AccessToken: "at-once", RefreshToken: "rt-once", ExpiresIn: 3600}, nil
	}
	instances := make([]*Handler, 8)
	for i := range instances {
		instances[i] = &Handler{Consumers: f.h.Consumers, Tokens: f.h.Tokens, Settings: f.h.Settings,
			Clients: f.h.Clients, Issuer: f.h.Issuer, Store: f.h.Store, Observe: f.h.Observe}
	}
	reqs := make([]*http.Request, 64)
	for i := range reqs {
		if i%2 == 0 {
			reqs[i] = post(secretForm(), clientID, clientSecret)
		} else {
			reqs[i] = f.signed(t, url.Values{}, tok1)
		}
	}
	answers := make([]answerOf, len(reqs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range reqs {
		wg.Go(func() {
			<-start
			answers[i] = serve(t, instances[i%len(instances)], reqs[i])
		})
	}
	close(start)
	wg.Wait()
	require.EqualValues(t, 1, f.issued.Load())
	repeats := 0
	for _, a := range answers {
		require.Equal(t, 200, a.status, a.body)
		require.Equal(t, "at-once", a.fields["access_token"])
	}
	for _, o := range f.observed {
		if o.g.Repeat {
			repeats++
		}
	}
	require.Equal(t, len(reqs)-1, repeats, "one exchange, the rest repeats")
}

// TestBusyTooLong: an exchange that waits for another's claim past its
// bound is answered temporarily_unavailable, not a second token.
func TestBusyTooLong(t *testing.T) {
	f := newFixture(t)
	_, err := f.h.Store.Claim(context.Background(), token1, "someone-else", time.Hour, f.clock.now())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	a := serve(t, f.h, post(secretForm(), clientID, clientSecret).WithContext(ctx))
	require.Equal(t, 503, a.status)
	require.Equal(t, "temporarily_unavailable", a.fields["error"])
	require.Zero(t, f.issued.Load())
}

// recordingStore keeps what Complete stored.
type recordingStore struct {
	Store
	mu       sync.Mutex
	answers  [][]byte
	complete func() error
}

func (s *recordingStore) Complete(ctx context.Context, g Grant, owner string, answer []byte, window time.Duration, revokeAt, now time.Time) error {
	s.mu.Lock()
	s.answers = append(s.answers, append([]byte(nil), answer...))
	s.mu.Unlock()
	if s.complete != nil {
		if err := s.complete(); err != nil {
			return err
		}
	}
	return s.Store.Complete(ctx, g, owner, answer, window, revokeAt, now)
}

// TestStoredAnswerSealed: the store never holds the OAuth 2.0 token in
// clear, and what it holds opens only with the grant's secret.
func TestStoredAnswerSealed(t *testing.T) {
	f := newFixture(t)
	rs := &recordingStore{Store: f.h.Store}
	f.h.Store = rs
	serve(t, f.h, post(secretForm(), clientID, clientSecret))
	require.Len(t, rs.answers, 1)
	sealed := rs.answers[0]
	for _, s := range []string{"at-1", "rt-1", tokenSecret} {
		require.False(t, bytes.Contains(sealed, []byte(s)), "%q in the store", s)
	}
	s, err := newSealer(tokenSecret, token1, consumerKey)
	require.NoError(t, err)
	a, err := s.open(sealed)
	require.NoError(t, err)
	require.Equal(t, "at-1", a.AccessToken)
	for _, other := range [][3]string{{"ts-other", token1, consumerKey}, {tokenSecret, "tok-2", consumerKey}, {tokenSecret, token1, "ck-2"}} {
		s, err := newSealer(other[0], other[1], other[2])
		require.NoError(t, err)
		_, err = s.open(sealed)
		require.Error(t, err, "opened with %q", other)
	}
}

// TestCompleteFails: a minted token whose exchange cannot be recorded is
// not handed out, and the failure is temporarily_unavailable.
func TestCompleteFails(t *testing.T) {
	f := newFixture(t)
	f.h.Store = &recordingStore{Store: f.h.Store, complete: func() error { return server.ErrStoreUnavailable }}
	a := serve(t, f.h, post(secretForm(), clientID, clientSecret))
	require.Equal(t, 503, a.status)
	require.NotContains(t, a.body, "at-1")
}

func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	var m MemoryStore

	c, err := m.Claim(ctx, "g", "o1", time.Minute, t0)
	require.NoError(t, err)
	require.Equal(t, Claimed, c.State)
	c, _ = m.Claim(ctx, "g", "o2", time.Minute, t0)
	require.Equal(t, Busy, c.State)
	require.NoError(t, m.Release(ctx, "g", "o2", t0)) // not o2's: nothing
	c, _ = m.Claim(ctx, "g", "o2", time.Minute, t0)
	require.Equal(t, Busy, c.State)
	require.NoError(t, m.Release(ctx, "g", "o1", t0))
	c, _ = m.Claim(ctx, "g", "o2", time.Minute, t0)
	require.Equal(t, Claimed, c.State, "released: claimed again")

	// An expired lease: claimed by another; the first cannot complete.
	c, _ = m.Claim(ctx, "g", "o3", time.Minute, t0.Add(time.Minute))
	require.Equal(t, Claimed, c.State)
	g := Grant{Token: "g", ConsumerKey: "ck", User: "jane"}
	require.Error(t, m.Complete(ctx, g, "o2", []byte("a2"), time.Minute, t0.Add(time.Hour), t0.Add(time.Minute)))

	require.NoError(t, m.Complete(ctx, g, "o3", []byte("a3"), time.Minute, t0.Add(time.Hour), t0.Add(time.Minute)))
	require.Error(t, m.Complete(ctx, g, "o3", []byte("a4"), time.Minute, t0.Add(time.Hour), t0.Add(time.Minute)), "completed twice")
	c, _ = m.Claim(ctx, "g", "o4", time.Minute, t0.Add(90*time.Second))
	require.Equal(t, Claim{State: Answered, Answer: []byte("a3"), Exchanged: t0.Add(time.Minute)}, c)
	c, _ = m.Claim(ctx, "g", "o4", time.Minute, t0.Add(2*time.Minute))
	require.Equal(t, Claim{State: Spent, Exchanged: t0.Add(time.Minute)}, c)
	require.NoError(t, m.Release(ctx, "g", "o3", t0), "releasing an exchange does nothing")
	c, _ = m.Claim(ctx, "g", "o4", time.Minute, t0.Add(2*time.Minute))
	require.Equal(t, Spent, c.State)

	// The answer is dropped (zeroed) when its window passes, asked for
	// or not; the record stays until its token is revoked, and then for
	// keep.
	m.mu.Lock()
	require.Nil(t, m.grants["g"].answer)
	m.mu.Unlock()
	due, err := m.Due(ctx, t0.Add(59*time.Minute), 10)
	require.NoError(t, err)
	require.Empty(t, due, "not yet due")
	for range 2 { // due until Revoked
		due, err = m.Due(ctx, t0.Add(24*time.Hour), 10)
		require.NoError(t, err)
		require.Equal(t, []Grant{g}, due)
	}
	c, _ = m.Claim(ctx, "g", "o5", time.Minute, t0.Add(24*time.Hour))
	require.Equal(t, Spent, c.State, "due, not revoked: still refused")
	require.NoError(t, m.Revoked(ctx, "g", time.Hour, t0.Add(24*time.Hour)))
	due, _ = m.Due(ctx, t0.Add(24*time.Hour), 10)
	require.Empty(t, due, "revoked: no longer due")
	c, _ = m.Claim(ctx, "g", "o5", time.Minute, t0.Add(24*time.Hour+59*time.Minute))
	require.Equal(t, Spent, c.State, "kept for keep after its revocation")
	c, _ = m.Claim(ctx, "g", "o5", time.Minute, t0.Add(25*time.Hour))
	require.Equal(t, Claimed, c.State, "forgotten after keep")
	require.NoError(t, m.Revoked(ctx, "unknown", time.Hour, t0), "an unknown token is no error")

	// Bounded.
	small := MemoryStore{MaxGrants: 2}
	for _, g := range []string{"a", "b"} {
		_, err := small.Claim(ctx, g, "o", time.Minute, t0)
		require.NoError(t, err)
	}
	_, err = small.Claim(ctx, "c", "o", time.Minute, t0)
	require.ErrorIs(t, err, server.ErrStoreFull)
	_, err = small.Claim(ctx, "c", "o", time.Minute, t0.Add(time.Minute))
	require.NoError(t, err, "room again once leases expire")
}

// TestMemoryStoreAnswerCleared: a sweep zeroes the answer's bytes.
func TestMemoryStoreAnswerCleared(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	var m MemoryStore
	m.Claim(ctx, "g", "o", time.Minute, t0)
	require.NoError(t, m.Complete(ctx, Grant{Token: "g"}, "o", []byte("sealed"), time.Second, t0.Add(time.Hour), t0))
	m.mu.Lock()
	kept := m.grants["g"].answer
	m.mu.Unlock()
	m.Claim(ctx, "other", "o", time.Minute, t0.Add(2*time.Second))
	require.Equal(t, make([]byte, len("sealed")), kept)
}

// TestMemoryStorePerGrant: past 16 unrevoked exchanges of one grant
// (consumer key and user), the oldest are due at once; other grants'
// are not, and a revoked one no longer counts.
func TestMemoryStorePerGrant(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0)
	var m MemoryStore
	exchange := func(g Grant, at time.Time) {
		t.Helper()
		c, err := m.Claim(ctx, g.Token, "o", time.Minute, at)
		require.NoError(t, err)
		require.Equal(t, Claimed, c.State)
		require.NoError(t, m.Complete(ctx, g, "o", []byte("sealed"), time.Minute, at.Add(24*time.Hour), at))
	}
	alice := func(i int) Grant { return Grant{ConsumerKey: "ck", User: "alice", Token: fmt.Sprintf("a%d", i)} }
	exchange(Grant{ConsumerKey: "ck", User: "bob", Token: "b0"}, t0)
	exchange(Grant{ConsumerKey: "ck-2", User: "alice", Token: "c0"}, t0) // another client's grant
	for i := range 20 {
		exchange(alice(i), t0.Add(time.Duration(i)*time.Second))
	}
	now := t0.Add(time.Minute)
	due, err := m.Due(ctx, now, 100)
	require.NoError(t, err)
	require.ElementsMatch(t, []Grant{alice(0), alice(1), alice(2), alice(3)}, due)
	due, _ = m.Due(ctx, now, 2)
	require.Len(t, due, 2, "limit")

	require.NoError(t, m.Revoked(ctx, "a5", time.Minute, now)) // revoked otherwise: one fewer counted
	exchange(alice(20), now)
	due, _ = m.Due(ctx, now, 100)
	require.ElementsMatch(t, []Grant{alice(0), alice(1), alice(2), alice(3)}, due)
	exchange(alice(21), now)
	due, _ = m.Due(ctx, now, 100)
	require.ElementsMatch(t, []Grant{alice(0), alice(1), alice(2), alice(3), alice(4)}, due)

	for _, g := range due {
		require.NoError(t, m.Revoked(ctx, g.Token, time.Minute, now))
	}
	due, _ = m.Due(ctx, now, 100)
	require.Empty(t, due)
	due, _ = m.Due(ctx, t0.Add(25*time.Hour), 100)
	require.Len(t, due, 2+16, "the rest when their time comes")
	m.Claim(ctx, "sweep", "o", time.Minute, now.Add(2*time.Minute))
	m.mu.Lock()
	require.Len(t, m.grants, 2+16+1, "the revoked forgotten after keep")
	m.mu.Unlock()
}
