package redisstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
	"github.com/countersign/countersign/redisstore"
)

// exchangeKeys are the keys of grant's record and answer, as
// ExchangeStore's documentation gives them.
func exchangeKeys(prefix, grant string) []string {
	sum := sha256.Sum256([]byte(grant))
	k := prefix + "exchange:{" + hex.EncodeToString(sum[:]) + "}"
	return []string{k, k + ":a"}
}

// TestExchangeStore runs the contract of a tokenexchange.Store on one
// Redis and on a three-master Cluster.
func TestExchangeStore(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testExchangeStore(t, newClient(t, sharedAddr(t)), testPrefix(t))
	})
	t.Run("cluster", func(t *testing.T) {
		testExchangeStore(t, newClusterClient(t), testPrefix(t))
	})
}

func testExchangeStore(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := context.Background()
	s := redisstore.NewExchangeStore(rdb, prefix)
	t0 := time.UnixMilli(1_800_000_000_123)
	claim := func(g, owner string, lease time.Duration) tokenexchange.Claim {
		t.Helper()
		c, err := s.Claim(ctx, g, owner, lease, t0)
		require.NoError(t, err)
		return c
	}
	require.Equal(t, tokenexchange.Claimed, claim("g", "o1", time.Minute).State)
	require.Equal(t, tokenexchange.Busy, claim("g", "o2", time.Minute).State)
	require.NoError(t, s.Release(ctx, "g", "o2", t0)) // not o2's: nothing
	require.Equal(t, tokenexchange.Busy, claim("g", "o2", time.Minute).State)
	require.NoError(t, s.Release(ctx, "g", "o1", t0))
	require.Equal(t, tokenexchange.Claimed, claim("g", "o2", 50*time.Millisecond).State, "released: claimed again")

	// An expired lease (on Redis's clock): claimed by another; the first
	// cannot complete.
	time.Sleep(120 * time.Millisecond)
	require.Equal(t, tokenexchange.Claimed, claim("g", "o3", time.Minute).State)
	g := tokenexchange.Grant{Token: "g", ConsumerKey: "ck", User: "alice"}
	require.Error(t, s.Complete(ctx, g, "o2", []byte("a2"), time.Minute, t0.Add(time.Hour), t0))

	require.NoError(t, s.Complete(ctx, g, "o3", []byte("a3\x00\xff"), 300*time.Millisecond, t0.Add(time.Hour), t0))
	require.Error(t, s.Complete(ctx, g, "o3", []byte("a4"), time.Minute, t0.Add(time.Hour), t0), "completed twice")
	require.Equal(t, tokenexchange.Claim{State: tokenexchange.Answered, Answer: []byte("a3\x00\xff"), Exchanged: t0}, claim("g", "o4", time.Minute))
	require.NoError(t, s.Release(ctx, "g", "o3", t0), "releasing an exchange does nothing")
	require.Equal(t, tokenexchange.Answered, claim("g", "o4", time.Minute).State)

	// The answer leaves Redis when its window ends, asked for or not.
	k := exchangeKeys(prefix, "g")
	require.Eventually(t, func() bool { return rdb.Exists(ctx, k[1]).Val() == 0 }, 5*time.Second, 20*time.Millisecond)
	require.Equal(t, tokenexchange.Claim{State: tokenexchange.Spent, Exchanged: t0}, claim("g", "o5", time.Minute))
	require.Equal(t, time.Duration(-1), rdb.PTTL(ctx, k[0]).Val(), "the record is kept until its token is revoked")

	// Due on the Handler's clock, and until Revoked; then kept for keep.
	due, err := s.Due(ctx, t0.Add(59*time.Minute), 10)
	require.NoError(t, err)
	require.Empty(t, due)
	for range 2 {
		due, err = s.Due(ctx, t0.Add(time.Hour), 10)
		require.NoError(t, err)
		require.Equal(t, []tokenexchange.Grant{g}, due)
	}
	require.NoError(t, s.Revoked(ctx, "g", time.Minute, t0.Add(time.Hour)))
	due, err = s.Due(ctx, t0.Add(time.Hour), 10)
	require.NoError(t, err)
	require.Empty(t, due)
	require.Equal(t, tokenexchange.Spent, claim("g", "o6", time.Minute).State, "kept for keep after its revocation")
	ttl := rdb.PTTL(ctx, k[0]).Val()
	require.Greater(t, ttl, 50*time.Second)
	require.LessOrEqual(t, ttl, time.Minute)
	require.NoError(t, s.Revoked(ctx, "unknown", time.Minute, t0), "an unknown token is no error")

	// Other grants are apart, and a record of the wrong shape is an error.
	require.Equal(t, tokenexchange.Claimed, claim("g2", "o1", time.Minute).State)
	require.NoError(t, rdb.HSet(ctx, exchangeKeys(prefix, "g3")[0], "t", "not-a-time").Err())
	_, err = s.Claim(ctx, "g3", "o", time.Minute, t0)
	require.Error(t, err)
}

// TestExchangeStorePerGrant: past 16 unrevoked exchanges of one grant
// (consumer key and user), the oldest are due at once, other grants' are
// not; a revoked one no longer counts; a token listed whose exchange was
// never recorded (a crash between the two) is dropped, not revoked.
func TestExchangeStorePerGrant(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		testExchangeStorePerGrant(t, newClient(t, sharedAddr(t)), testPrefix(t))
	})
	t.Run("cluster", func(t *testing.T) {
		testExchangeStorePerGrant(t, newClusterClient(t), testPrefix(t))
	})
}

func testExchangeStorePerGrant(t *testing.T, rdb redis.UniversalClient, prefix string) {
	ctx := context.Background()
	s := redisstore.NewExchangeStore(rdb, prefix)
	t0 := time.UnixMilli(1_800_000_000_123)
	exchange := func(g tokenexchange.Grant, at time.Time) {
		t.Helper()
		c, err := s.Claim(ctx, g.Token, "o", time.Minute, at)
		require.NoError(t, err)
		require.Equal(t, tokenexchange.Claimed, c.State)
		require.NoError(t, s.Complete(ctx, g, "o", []byte("sealed"), time.Minute, at.Add(24*time.Hour), at))
	}
	alice := func(i int) tokenexchange.Grant {
		return tokenexchange.Grant{ConsumerKey: "ck", User: "alice", Token: fmt.Sprintf("a%d", i)}
	}
	exchange(tokenexchange.Grant{ConsumerKey: "ck", User: "bob", Token: "b0"}, t0)
	exchange(tokenexchange.Grant{ConsumerKey: "ck-2", User: "alice", Token: "c0"}, t0)
	exchange(tokenexchange.Grant{ConsumerKey: "ck-", User: "2alice", Token: "d0"}, t0) // not ck-2's
	for i := range 20 {
		exchange(alice(i), t0.Add(time.Duration(i)*time.Second))
	}
	now := t0.Add(time.Minute)
	due, err := s.Due(ctx, now, 100)
	require.NoError(t, err)
	require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3)}, due)
	due, err = s.Due(ctx, now, 2)
	require.NoError(t, err)
	require.Len(t, due, 2, "limit")

	require.NoError(t, s.Revoked(ctx, "a5", time.Minute, now))
	exchange(alice(20), now)
	due, _ = s.Due(ctx, now, 100)
	require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3)}, due)
	exchange(alice(21), now)
	due, _ = s.Due(ctx, now, 100)
	require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3), alice(4)}, due)
	for _, g := range due {
		require.NoError(t, s.Revoked(ctx, g.Token, time.Minute, now))
	}
	due, _ = s.Due(ctx, now, 100)
	require.Empty(t, due)
	due, _ = s.Due(ctx, t0.Add(25*time.Hour), 100)
	require.Len(t, due, 3+16, "the rest when their time comes")

	// Listed, but the exchange was never recorded: its claim was lost.
	c, err := s.Claim(ctx, "lost", "o", 30*time.Millisecond, now)
	require.NoError(t, err)
	require.Equal(t, tokenexchange.Claimed, c.State)
	time.Sleep(60 * time.Millisecond)
	lost := tokenexchange.Grant{ConsumerKey: "ck", User: "carol", Token: "lost"}
	require.Error(t, s.Complete(ctx, lost, "o", []byte("sealed"), time.Minute, now, now))
	due, _ = s.Due(ctx, now, 100)
	require.NotContains(t, due, lost, "never exchanged: not to revoke")
	require.Equal(t, redis.Nil, rdb.ZScore(ctx, prefix+"exchange:{due}", "lost").Err(), "and unlisted")
}

// TestExchangeStoreUnavailable: a Redis that is down is
// server.ErrStoreUnavailable, for every call.
func TestExchangeStoreUnavailable(t *testing.T) {
	srv := ownServer(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	s := redisstore.NewExchangeStore(rdb, testPrefix(t))
	srv.stop()
	ctx := context.Background()
	_, err := s.Claim(ctx, "g", "o", time.Minute, time.Now())
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
	require.ErrorIs(t, s.Complete(ctx, tokenexchange.Grant{Token: "g"}, "o", []byte("a"), time.Minute, time.Now(), time.Now()), server.ErrStoreUnavailable)
	require.ErrorIs(t, s.Release(ctx, "g", "o", time.Now()), server.ErrStoreUnavailable)
	_, err = s.Due(ctx, time.Now(), 10)
	require.ErrorIs(t, err, server.ErrStoreUnavailable)
	require.ErrorIs(t, s.Revoked(ctx, "g", time.Minute, time.Now()), server.ErrStoreUnavailable)
}

type exchangeClients map[string]tokenexchange.Client

func (m exchangeClients) Client(_ context.Context, id string) (tokenexchange.Client, error) {
	c, ok := m[id]
	if !ok {
		return tokenexchange.Client{}, server.ErrNotFound
	}
	return c, nil
}

// TestExchangeOnceAcrossInstances: eight Handlers, each with a Redis
// client of its own (eight machines), share one Redis for the exchange
// records, the token credentials and the nonces; 64 exchanges of one grant
// race, in both shapes. Exactly one Issue; every answer the same token;
// after the window, refused; the 1.0a token revoked.
func TestExchangeOnceAcrossInstances(t *testing.T) {
	addr := sharedAddr(t)
	prefix := testPrefix(t)
	ctx := context.Background()
	setup := newClient(t, addr)
	tokens := redisstore.NewTokenStore(setup, prefix)
	require.NoError(t, tokens.PutToken(ctx, server.TokenCredentials{Token: "tok-1", Secret: "ts-SECRET", ConsumerKey: "ck", User: "alice", Scope: "read write"}, time.Now()))

	var issued atomic.Int32
	issuer := tokenexchange.IssuerFunc(func(ctx context.Context, g tokenexchange.Grant) (*oauth2.Token, error) {
		n := issued.Add(1)
		time.Sleep(50 * time.Millisecond) // the others arrive while it is minted
		return &oauth2.Token{AccessToken: fmt.Sprintf("at-%d-%s", n, g.User), ExpiresIn: 600}, nil
	})
	instances := make([]*tokenexchange.Handler, 8)
	for i := range instances {
		rdb := newClient(t, addr)
		instances[i] = &tokenexchange.Handler{
			Consumers:    server.Consumers{"ck": {Secret: "cs-SECRET"}},
			Tokens:       redisstore.NewTokenStore(rdb, prefix),
			Settings:     server.Settings{Nonces: redisstore.NewNonceStore(rdb, prefix)},
			Clients:      exchangeClients{"client-1": {ID: "client-1", Secret: "cl-SECRET", ConsumerKey: "ck"}},
			Issuer:       issuer,
			Store:        redisstore.NewExchangeStore(rdb, prefix),
			RepeatWindow: time.Second,
		}
	}
	form := url.Values{
		"grant_type":         {tokenexchange.GrantType},
		"subject_token":      {"tok-1"},
		"subject_token_type": {tokenexchange.OAuth1TokenType},
		"oauth_token_secret": {"ts-SECRET"},
	}
	cfg := oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs-SECRET"}
	request := func(i int) *http.Request {
		if i%2 == 0 {
			r := httptest.NewRequest(http.MethodPost, "https://p.example/token", strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.SetBasicAuth("client-1", "cl-SECRET")
			return r
		}
		r := httptest.NewRequest(http.MethodPost, "https://p.example/token", nil)
		require.NoError(t, cfg.Sign(r, &oauth1.Credentials{Token: "tok-1", Secret: "ts-SECRET"}))
		return r
	}
	type result struct {
		status int
		body   map[string]any
	}
	do := func(h http.Handler, r *http.Request) result {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var m map[string]any
		json.Unmarshal(w.Body.Bytes(), &m)
		return result{w.Code, m}
	}
	results := make([]result, 64)
	reqs := make([]*http.Request, len(results))
	for i := range reqs {
		reqs[i] = request(i)
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range reqs {
		wg.Go(func() {
			<-start
			results[i] = do(instances[i%len(instances)], reqs[i])
		})
	}
	close(start)
	wg.Wait()
	require.EqualValues(t, 1, issued.Load(), "Issue calls")
	for i, r := range results {
		require.Equal(t, 200, r.status, "exchange %d: %v", i, r.body)
		require.Equal(t, "at-1-alice", r.body["access_token"])
	}

	// Nothing of the token in clear in Redis.
	for it := setup.Scan(ctx, 0, prefix+"exchange:*", 100).Iterator(); it.Next(ctx); {
		v, _ := setup.Dump(ctx, it.Val()).Result()
		require.NotContains(t, v, "at-1-alice")
		require.NotContains(t, v, "ts-SECRET")
	}

	// After the window (one second, on Redis's clock): refused, on any
	// instance, and the 1.0a token is revoked.
	require.Eventually(t, func() bool {
		r := do(instances[3], request(0))
		return r.status == 400 && r.body["error"] == "invalid_request"
	}, 10*time.Second, 100*time.Millisecond)
	require.Eventually(t, func() bool {
		_, err := tokens.Token(ctx, "tok-1", time.Now())
		return err != nil
	}, 10*time.Second, 50*time.Millisecond)
	_, err := tokens.Token(ctx, "tok-1", time.Now())
	require.ErrorIs(t, err, server.ErrTokenRevoked)
	r := do(instances[5], request(1))
	require.Equal(t, "invalid_request", r.body["error"], "signed, after the revocation")
	require.EqualValues(t, 1, issued.Load(), "Issue calls")
}

// TestExchangeStoreDuePages: listed tokens whose exchange was never
// recorded (a crash between listing and recording) are dropped as Due
// reads past them, never returned, so that the grants due behind them
// are found in one call.
func TestExchangeStoreDuePages(t *testing.T) {
	rdb, prefix := newClient(t, sharedAddr(t)), testPrefix(t)
	ctx := context.Background()
	s := redisstore.NewExchangeStore(rdb, prefix)
	t0 := time.UnixMilli(1_800_000_000_123)
	for i := range 10 {
		require.NoError(t, rdb.ZAdd(ctx, prefix+"exchange:{due}", redis.Z{Score: float64(t0.UnixMilli() - 1000 + int64(i)), Member: fmt.Sprintf("crashed-%d", i)}).Err())
	}
	var want []tokenexchange.Grant
	for i := range 3 {
		g := tokenexchange.Grant{ConsumerKey: "ck", User: fmt.Sprintf("u%d", i), Token: fmt.Sprintf("t%d", i)}
		_, err := s.Claim(ctx, g.Token, "o", time.Minute, t0)
		require.NoError(t, err)
		require.NoError(t, s.Complete(ctx, g, "o", []byte("sealed"), time.Minute, t0, t0))
		want = append(want, g)
	}
	due, err := s.Due(ctx, t0, 4)
	require.NoError(t, err)
	require.ElementsMatch(t, want, due)
	require.EqualValues(t, 3, rdb.ZCard(ctx, prefix+"exchange:{due}").Val(), "the crashed listings dropped")
	due, err = s.Due(ctx, t0, 2)
	require.NoError(t, err)
	require.Len(t, due, 2)
}
