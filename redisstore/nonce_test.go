package redisstore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// credentials is a CredentialStore with one client and one token.
type credentials struct{}

const (
	consumerKey, consumerSecret = "dpf43f3p2l4k3l03", "kd94hf93k423kf44"
	token, tokenSecret          = "nnch734d00sl2jdk", "pfkkdhi9sl3r4s00"
)

func (credentials) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	if key != consumerKey {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: consumerSecret}, nil
}

func (credentials) TokenCredentials(_ context.Context, key, tok string, _ time.Time) (server.TokenCredentials, error) {
	if key != consumerKey || tok != token {
		return server.TokenCredentials{}, server.ErrNotFound
	}
	return server.TokenCredentials{Token: tok, Secret: tokenSecret, ConsumerKey: key}, nil
}

var client = &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}

// signedHeader returns the Authorization header of a GET of
// http://api.example.com/photos signed at t with nonce. It may be called
// from any goroutine.
func signedHeader(t testing.TB, at time.Time, nonce string) string {
	t.Helper()
	r := httptest.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
	assert.NoError(t, client.SignAt(r, &oauth1.Credentials{Token: token, Secret: tokenSecret}, at, nonce))
	return r.Header.Get("Authorization")
}

// serve sends a request with the Authorization header auth through the
// middleware of v, and returns the response and whether the handler ran.
func serve(v *server.Verifier, auth string) (*httptest.ResponseRecorder, bool) {
	r := httptest.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
	r.Header.Set("Authorization", auth)
	rec := httptest.NewRecorder()
	ran := false
	v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran = true
		w.Write([]byte("photos"))
	})).ServeHTTP(rec, r)
	return rec, ran
}

func TestNonceStoreUse(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	prefix := testPrefix(t)
	s := redisstore.NewNonceStore(rdb, prefix)
	ctx := context.Background()
	now := time.Now()
	exp := now.Add(10 * time.Minute)
	n := server.Nonce{ConsumerKey: "key", Token: "tok", Value: "abc", Timestamp: now.Unix()}

	use := func(s *redisstore.NonceStore, n server.Nonce) bool {
		t.Helper()
		fresh, err := s.Use(ctx, n, now, exp)
		require.NoError(t, err)
		return fresh
	}
	assert.True(t, use(s, n), "first use")
	assert.False(t, use(s, n), "replay")

	// Each field counts, and the fields are kept apart.
	for _, other := range []server.Nonce{
		{ConsumerKey: "key2", Token: "tok", Value: "abc", Timestamp: n.Timestamp},
		{ConsumerKey: "key", Token: "", Value: "abc", Timestamp: n.Timestamp},
		{ConsumerKey: "key", Token: "tok", Value: "abd", Timestamp: n.Timestamp},
		{ConsumerKey: "key", Token: "tok", Value: "abc", Timestamp: n.Timestamp + 1},
		{ConsumerKey: "ke", Token: "ytok", Value: "abc", Timestamp: n.Timestamp},
		{ConsumerKey: "key", Token: "to", Value: "kabc", Timestamp: n.Timestamp},
	} {
		assert.True(t, use(s, other), "Use(%+v) after Use(%+v)", other, n)
	}
	// Another prefix is another namespace; the same prefix is shared.
	assert.True(t, use(redisstore.NewNonceStore(rdb, testPrefix(t)), n), "same nonce, other prefix")
	assert.False(t, use(redisstore.NewNonceStore(newClient(t, sharedAddr(t)), prefix), n), "same nonce, same prefix, other client")

	// A hostile nonce of a megabyte makes a key of fixed size, kept as long
	// as the Verifier asked.
	huge := server.Nonce{ConsumerKey: "key", Value: strings.Repeat("x", 1<<20), Timestamp: n.Timestamp}
	assert.True(t, use(s, huge))
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, 3) // one set for each consumer key: "key", "key2" and "ke"
	members := int64(0)
	for _, k := range keys {
		assert.Len(t, k, len(prefix)+len("nonces:")+64, "key %q", k)
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		assert.InDelta(t, 10*time.Minute, ttl, float64(5*time.Second), "PTTL %s", k)
		m, err := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
		require.NoError(t, err)
		for _, z := range m {
			assert.Len(t, z.Member, 16, "member of %s", k)
		}
		members += int64(len(m))
	}
	assert.EqualValues(t, 8, members) // n, the six others and huge
}

// TestNonceStoreClock checks that the nonce is kept for expires − now
// whatever the Verifier's clock says: a Verifier with a fixed clock in 2011
// (as tests of published vectors use), or one whose clock is behind Redis's,
// must still see replays. With an absolute PXAT, Redis would drop these
// keys at once.
func TestNonceStoreClock(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	s := redisstore.NewNonceStore(rdb, testPrefix(t))
	ctx := context.Background()
	past := time.Unix(1318622958, 0) // the X API example's timestamp
	n := server.Nonce{ConsumerKey: "key", Value: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", Timestamp: past.Unix()}
	for i, want := range []bool{true, false, false} {
		fresh, err := s.Use(ctx, n, past, past.Add(5*time.Minute))
		require.NoError(t, err)
		assert.Equal(t, want, fresh, "use %d", i+1)
	}

	// The Verifier's own numbers: its clock 100 s after the timestamp.
	v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: s, Now: func() time.Time { return past.Add(100 * time.Second) }}}
	auth := signedHeader(t, past, "fixed-clock")
	rec, _ := serve(v, auth)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec, ran := serve(v, auth)
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.Equal(t, "oauth_problem=nonce_used", rec.Body.String())
	assert.False(t, ran)
}

// TestNonceStoreExpiry checks that Redis forgets a nonce once it expires.
func TestNonceStoreExpiry(t *testing.T) {
	s := redisstore.NewNonceStore(newClient(t, sharedAddr(t)), testPrefix(t))
	ctx := context.Background()
	n := server.Nonce{ConsumerKey: "key", Value: "short-lived", Timestamp: time.Now().Unix()}
	now := time.Now()
	fresh, err := s.Use(ctx, n, now, now.Add(100*time.Millisecond))
	require.NoError(t, err)
	require.True(t, fresh)
	fresh, err = s.Use(ctx, n, now, now.Add(100*time.Millisecond))
	require.NoError(t, err)
	require.False(t, fresh, "replay before expiry")
	time.Sleep(300 * time.Millisecond)
	fresh, err = s.Use(ctx, n, time.Now(), time.Now().Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, fresh, "after expiry")
}

// TestReplayAcrossVerifiers runs four Verifiers, as on four machines, each
// with its own NonceStore and its own Redis client, and replays one signed
// request 64 times at once across them: exactly one is accepted.
func TestReplayAcrossVerifiers(t *testing.T) {
	addr := sharedAddr(t)
	testReplayAcrossVerifiers(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testReplayAcrossVerifiers is TestReplayAcrossVerifiers with the clients
// newClient returns, one per Verifier.
func testReplayAcrossVerifiers(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	var verifiers [4]*server.Verifier
	for i := range verifiers {
		verifiers[i] = &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: redisstore.NewNonceStore(newClient(), prefix)}}
	}
	auth := signedHeader(t, time.Now(), "replayed-64-times")

	var accepted, handled, replays atomic.Int32
	var other sync.Map // unexpected answers
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			<-start
			rec, ran := serve(verifiers[i%len(verifiers)], auth)
			switch {
			case rec.Code == http.StatusOK:
				accepted.Add(1)
			case rec.Code == http.StatusUnauthorized && rec.Body.String() == "oauth_problem=nonce_used":
				replays.Add(1)
			default:
				other.Store(i, rec.Code)
			}
			if ran {
				handled.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	other.Range(func(k, v any) bool {
		t.Errorf("request %v: status %v, want 200 or 401 nonce_used", k, v)
		return true
	})
	assert.EqualValues(t, 1, accepted.Load(), "accepted")
	assert.EqualValues(t, 1, handled.Load(), "handled")
	assert.EqualValues(t, 63, replays.Load(), "refused as replays")
}

// TestFailClosed stops Redis while requests are being verified: from then on
// every request, fresh or replayed, is refused with 503 and never reaches
// the handler, and once Redis is back on the same port verification works
// again.
func TestFailClosed(t *testing.T) {
	srv := ownServer(t)
	// Fewer retries than the defaults, which spend 1.7 s on each refused
	// request while Redis is down; the outcome is the same.
	rdb := redis.NewClient(&redis.Options{
		Addr: srv.addr(), MaxRetries: 1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
	})
	t.Cleanup(func() { rdb.Close() })
	v := &server.Verifier{Store: credentials{}, Settings: server.Settings{Nonces: redisstore.NewNonceStore(rdb, testPrefix(t))}}
	var seq atomic.Int64
	fresh := func() string { return signedHeader(t, time.Now(), "n"+strconv.FormatInt(seq.Add(1), 10)) }

	first := fresh()
	rec, ran := serve(v, first)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.True(t, ran)

	// Requests in flight while Redis goes away get 200 or 503, nothing else.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var inFlight atomic.Int32
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				rec, ran := serve(v, fresh())
				inFlight.Add(1)
				if rec.Code != http.StatusOK && rec.Code != http.StatusServiceUnavailable {
					t.Errorf("during the outage: status %d %q, want 200 or 503", rec.Code, rec.Body)
				}
				if ran != (rec.Code == http.StatusOK) {
					t.Errorf("status %d, but handler ran = %v", rec.Code, ran)
				}
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	srv.stop()
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d requests in flight around the stop", inFlight.Load())

	// Redis is gone: fresh requests and the replay alike fail closed.
	for i, auth := range []string{fresh(), first, fresh(), first} {
		rec, ran := serve(v, auth)
		assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "request %d while Redis is down: %q", i, rec.Body)
		assert.NotEmpty(t, rec.Header().Get("Retry-After"), "Retry-After")
		assert.False(t, ran, "request %d reached the handler while Redis is down", i)
		assert.NotContains(t, rec.Body.String(), "127.0.0.1", "the answer names the store")
	}

	// Back on the same port, with an empty database.
	require.NoError(t, srv.start())
	var auth string
	require.Eventually(t, func() bool {
		auth = fresh()
		rec, _ := serve(v, auth)
		return rec.Code == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond, "verification did not recover after Redis came back")
	rec, ran = serve(v, auth)
	assert.Equal(t, http.StatusUnauthorized, rec.Code, "replay after recovery: %q", rec.Body)
	assert.False(t, ran)
}
