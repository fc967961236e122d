package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// twoClients is a CredentialStore with the client of credentials and
// another, "other", both for two-legged requests.
type twoClients struct{ credentials }

func (c twoClients) Consumer(ctx context.Context, key string, now time.Time) (server.Registration, error) {
	if key == "other" {
		return server.Registration{Secret: "other secret"}, nil
	}
	return c.credentials.Consumer(ctx, key, now)
}

// otherHeader is signedHeader for the client "other", without a token.
func otherHeader(t testing.TB, nonce string) string {
	t.Helper()
	r, err := http.NewRequest("GET", "http://api.example.com/photos?size=original", nil)
	require.NoError(t, err)
	c := &oauth1.Config{ConsumerKey: "other", ConsumerSecret: "other secret"}
	require.NoError(t, c.SignAt(r, nil, time.Now(), nonce))
	return r.Header.Get("Authorization")
}

// TestNonceStoreConsumerShare floods a NonceStore from one consumer key:
// exactly MaxNoncesPerConsumer nonces are accepted, the next is refused with
// ErrStoreFull, another consumer key is still served, the flood's
// replays are still replays, and the share frees up as its nonces expire.
func TestNonceStoreConsumerShare(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	s := redisstore.NewNonceStore(rdb, testPrefix(t))
	s.MaxNoncesPerConsumer = 50
	ctx := context.Background()
	now := time.Now()
	use := func(key, value string, ttl time.Duration) (bool, error) {
		return s.Use(ctx, server.Nonce{ConsumerKey: key, Value: value, Timestamp: now.Unix()}, now, now.Add(ttl))
	}
	for i := range 50 {
		ttl := 10 * time.Minute
		if i < 5 {
			ttl = 300 * time.Millisecond
		}
		ok, err := use("flood", strconv.Itoa(i), ttl)
		require.NoError(t, err, "nonce %d", i)
		require.True(t, ok, "nonce %d", i)
	}
	for i := 50; i < 60; i++ {
		ok, err := use("flood", strconv.Itoa(i), 10*time.Minute)
		assert.False(t, ok)
		assert.ErrorIs(t, err, server.ErrStoreFull, "nonce %d, past the share", i)
	}
	ok, err := use("flood", "20", 10*time.Minute)
	assert.False(t, ok, "replay of nonce 20")
	assert.NoError(t, err, "replay of nonce 20")
	for i := range 50 {
		ok, err := use("other", strconv.Itoa(i), 10*time.Minute)
		require.NoError(t, err, "another consumer key during the flood")
		require.True(t, ok, "another consumer key during the flood")
	}
	// Five of the flood's nonces expire: room for five more, not six.
	time.Sleep(500 * time.Millisecond)
	for i := 60; i < 66; i++ {
		ok, err := use("flood", strconv.Itoa(i), 10*time.Minute)
		if i < 65 {
			assert.True(t, ok, "nonce %d after five expired", i)
			assert.NoError(t, err, "nonce %d after five expired", i)
		} else {
			assert.ErrorIs(t, err, server.ErrStoreFull, "nonce %d after five expired", i)
		}
	}
}

// TestNonceStoreFloodingClient has a registered client flood a Verifier on
// a Redis with noeviction and room for a little more than the default
// share (24 MB), with valid requests dated five minutes ahead, from 16 connections
// at once. It fills its fair share of Redis's free memory (less than its
// share, 131,072 nonces, in this Redis), is answered 503, and the other
// client is still served: Redis is not full. (Before the shares, the flood
// filled Redis, and every client got 503.) It sends 160,000 requests: set
// COUNTERSIGN_LONG_TESTS=1 to run it.
func TestNonceStoreFloodingClient(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("sends 160,000 requests to Redis, about 30 s: set COUNTERSIGN_LONG_TESTS=1 to run it")
	}
	ctx := context.Background()
	srv := ownServer(t)
	rdb := newClient(t, srv.addr())
	// The default share, 131,072 nonces, takes about 20 MB; Redis gets 24,
	// which 160,000 nonces would fill.
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", fmt.Sprint(usedMemory(t, rdb)+24<<20)).Err())
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err())
	store := redisstore.NewNonceStore(rdb, testPrefix(t))

	ahead := time.Now().Add(5 * time.Minute)
	var next, accepted, full atomic.Int64
	var firstErr sync.Once
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > 160_000 {
					return
				}
				n := server.Nonce{ConsumerKey: consumerKey, Token: token, Value: strconv.FormatInt(i, 36), Timestamp: ahead.Unix()}
				ok, err := store.Use(ctx, n, time.Now(), ahead.Add(5*time.Minute+time.Second))
				switch {
				case ok:
					accepted.Add(1)
				case errors.Is(err, server.ErrStoreFull):
					full.Add(1)
				default:
					firstErr.Do(func() { t.Errorf("flood nonce %d: %v, %v", i, ok, err) })
				}
			}
		})
	}
	wg.Wait()
	t.Logf("flood: %d accepted, %d refused with ErrStoreFull; Redis holds %d bytes", accepted.Load(), full.Load(), usedMemory(t, rdb))
	// Alone, the flood may take as many bytes of nonces as it leaves free
	// below three quarters of maxmemory: about 65,000 nonces (65,500 measured).
	assert.LessOrEqual(t, accepted.Load(), int64(1<<17), "the flood's nonces accepted, at most the default share")
	assert.Greater(t, accepted.Load(), int64(40_000), "the flood's nonces accepted, about its fair share")

	v := &server.Verifier{Store: twoClients{}, Settings: server.Settings{Nonces: store}}
	rec, ran := serve(v, signedHeader(t, time.Now(), "the flooding client again"))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "the flooding client")
	assert.False(t, ran)
	for i := range 20 {
		rec, ran := serve(v, otherHeader(t, fmt.Sprint("other-", i)))
		assert.Equal(t, http.StatusOK, rec.Code, "another client during the flood: %s", rec.Body)
		assert.True(t, ran)
	}
}

// TestNonceStoreBytes checks the documented Redis memory a nonce takes.
func TestNonceStoreBytes(t *testing.T) {
	ctx := context.Background()
	srv := ownServer(t)
	rdb := newClient(t, srv.addr())
	store := redisstore.NewNonceStore(rdb, testPrefix(t))
	const n = 20_000
	before := usedMemory(t, rdb)
	now := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1); i <= n; i = next.Add(1) {
				ok, err := store.Use(ctx, server.Nonce{ConsumerKey: consumerKey, Value: strconv.FormatInt(i, 36), Timestamp: now.Unix()}, now, now.Add(10*time.Minute))
				if !ok || err != nil {
					t.Errorf("nonce %d: %v, %v", i, ok, err)
					return
				}
			}
		})
	}
	wg.Wait()
	perNonce := float64(usedMemory(t, rdb)-before) / n
	t.Logf("%.0f bytes of Redis memory a nonce", perNonce)
	assert.Less(t, perNonce, 180.0, "documented about 150")
}
