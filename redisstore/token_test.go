package redisstore_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// Every subtest of the conformance tests gets a store with its own client
// on the same keys, as another instance would.

func TestTokenStore(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	oauth1test.TestTokenStore(t, func() server.TokenStore {
		return redisstore.NewTokenStore(newClient(t, addr), prefix)
	})
}

func TestTemporaryStore(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	oauth1test.TestTemporaryStore(t, func() server.TemporaryStore {
		return redisstore.NewTemporaryStore(newClient(t, addr), prefix)
	})
}

func TestNonceStore(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	oauth1test.TestNonceStore(t, func() server.NonceStore {
		return redisstore.NewNonceStore(newClient(t, addr), prefix)
	})
}

// TestStoreKeys checks that records live under the prefix, at keys of
// fixed length whatever the token, and that temporary credentials, and
// their client's quota, carry their time to live, Expires − now on the
// clock the calls are passed (here 2011), as a Redis TTL.
func TestStoreKeys(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	prefix := testPrefix(t)
	s, tokens := redisstore.NewTemporaryStore(rdb, prefix), redisstore.NewTokenStore(rdb, prefix)
	ctx := context.Background()
	now := time.Unix(1_300_000_000, 0)

	huge := strings.Repeat("t", 1<<20)
	_, err := s.Temporary(ctx, huge, now)
	assert.ErrorIs(t, err, server.ErrNotFound)
	require.NoError(t, s.PutTemporary(ctx, server.TemporaryCredentials{
		Token: huge, Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Minute),
	}, now))
	require.NoError(t, tokens.PutToken(ctx, server.TokenCredentials{Token: huge, Secret: "s", ConsumerKey: "c", User: "u"}, now))
	got, err := s.Temporary(ctx, huge, now)
	require.NoError(t, err)
	assert.Equal(t, huge, got.Token)

	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 7)
	for _, k := range keys {
		rest := k[len(prefix):]
		kind := rest[:max(strings.LastIndex(rest, ":"), 0)]
		switch rest {
		case "quota-all", "count:{tokens}": // the store's counts
			kind = rest
		default:
			assert.Len(t, k, len(prefix)+len(kind)+1+64)
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		require.NoError(t, err)
		switch kind {
		case "temp", "quota", "quota-all":
			assert.InDelta(t, time.Minute, ttl, float64(5*time.Second), "PTTL of %s", k)
		case "token", "count:{tokens}", "count:{tokens}:client", "count:{tokens}:grant":
			assert.Equal(t, time.Duration(-1), ttl, "token credentials have no TTL")
		default:
			t.Errorf("unexpected key %q", k)
		}
	}

	// A revoked token leaves a tombstone under the same key, with a TTL of
	// 24 hours: memory that revocations cannot grow for good.
	require.NoError(t, tokens.Revoke(ctx, huge, now))
	_, err = tokens.Token(ctx, huge, now)
	assert.ErrorIs(t, err, server.ErrTokenRevoked)
	keys, err = rdb.Keys(ctx, prefix+"token:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	ttl, err := rdb.PTTL(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.InDelta(t, 24*time.Hour, ttl, float64(5*time.Second), "PTTL of a revoked token's tombstone")
	fields, err := rdb.HGetAll(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"r": "1"}, fields, "a tombstone holds no secret")

	// Refusals that never reach Redis, as the memory stores'.
	assert.Error(t, s.PutTemporary(ctx, server.TemporaryCredentials{Token: "", Expires: now.Add(time.Minute)}, now))
	assert.Error(t, s.PutTemporary(ctx, server.TemporaryCredentials{Token: "x"}, now))
	assert.Error(t, s.Authorize(ctx, server.TemporaryCredentials{Token: "x", User: "u", VerificationCode: ""}, now))
	assert.Error(t, tokens.PutToken(ctx, server.TokenCredentials{}, now))
}

// liveTokens counts the token records under prefix that are not
// tombstones.
func liveTokens(t *testing.T, rdb redis.UniversalClient, prefix string) int {
	t.Helper()
	n := 0
	for _, k := range allKeys(t, rdb, prefix+"token:*") {
		ok, err := rdb.HExists(context.Background(), k, "t").Result()
		require.NoError(t, err)
		if ok {
			n++
		}
	}
	return n
}

// allKeys returns the keys that match pattern, on every master of a
// Cluster.
func allKeys(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	ctx := context.Background()
	cc, ok := rdb.(*redis.ClusterClient)
	if !ok {
		keys, err := rdb.Keys(ctx, pattern).Result()
		require.NoError(t, err)
		return keys
	}
	var mu sync.Mutex
	var keys []string
	require.NoError(t, cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		k, err := c.Keys(ctx, pattern).Result()
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, k...)
		return err
	}))
	return keys
}

var consumers = server.Consumers{consumerKey: {Secret: consumerSecret}}

// newProvider returns a Provider as one instance of a service would run it:
// its own Redis client rdb, token store and nonce store, on shared keys.
func newProvider(rdb redis.UniversalClient, prefix string) *server.Provider {
	return &server.Provider{
		Consumers: consumers,
		Temporary: redisstore.NewTemporaryStore(rdb, prefix),
		Tokens:    redisstore.NewTokenStore(rdb, prefix),
		Settings:  server.Settings{Nonces: redisstore.NewNonceStore(rdb, prefix)},
	}
}

// post signs a POST to url with tok and extra, sends it to h, and returns
// the response.
func post(t *testing.T, h http.Handler, url string, tok *oauth1.Credentials, extra ...oauth1.Param) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", url, nil)
	assert.NoError(t, client.SignAt(r, tok, time.Now(), rand.Text(), extra...))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// TestExchangeAcrossProviders runs the three-legged flow on four instances
// sharing one Redis, and sends 64 token requests for the same temporary
// credentials (each signed afresh, so that no nonce is replayed) to all of
// them at once: exactly one instance issues token credentials, the others
// answer token_used, and the token credentials work on every instance,
// until one instance revokes them.
func TestExchangeAcrossProviders(t *testing.T) {
	addr := sharedAddr(t)
	testExchangeAcrossProviders(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testExchangeAcrossProviders is TestExchangeAcrossProviders with the
// clients newClient returns, one per Provider.
func testExchangeAcrossProviders(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	var ps [4]*server.Provider
	for i := range ps {
		ps[i] = newProvider(newClient(), prefix)
	}
	ctx := context.Background()

	rec := post(t, ps[0].RequestTokenHandler(), "http://provider.example/request_token", nil,
		oauth1.Param{Name: "oauth_callback", Value: "https://client.example/cb"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	form, err := url.ParseQuery(rec.Body.String())
	require.NoError(t, err)
	temp := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}

	// The consent page runs on another instance.
	_, verifier, err := ps[1].Authorize(ctx, server.Approval{Token: temp.Token, User: "alice"})
	require.NoError(t, err)
	_, _, err = ps[2].Authorize(ctx, server.Approval{Token: temp.Token, User: "mallory"})
	assert.ErrorIs(t, err, server.ErrTokenUsed, "second approval on a third instance")

	var mu sync.Mutex
	var issued []url.Values
	status := map[string]int{}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			<-start
			rec := post(t, ps[i%len(ps)].AccessTokenHandler(), "http://provider.example/access_token", temp,
				oauth1.Param{Name: "oauth_verifier", Value: verifier})
			mu.Lock()
			defer mu.Unlock()
			status[http.StatusText(rec.Code)+" "+rec.Body.String()]++
			if rec.Code == http.StatusOK {
				v, err := url.ParseQuery(rec.Body.String())
				assert.NoError(t, err)
				issued = append(issued, v)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Len(t, issued, 1, "token credentials issued; answers: %v", status)
	assert.Equal(t, 63, status["Unauthorized oauth_problem=token_used"], "answers: %v", status)

	// The exchanges that lost stored token credentials before they lost,
	// and revoked them: one record is left, beside tombstones.
	assert.Equal(t, 1, liveTokens(t, newClient(), prefix), "token credentials kept")

	tok := &oauth1.Credentials{Token: issued[0].Get("oauth_token"), Secret: issued[0].Get("oauth_token_secret")}
	for i, p := range ps {
		var user string
		api := p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			v, _ := server.FromContext(r.Context())
			user = v.User
		}))
		rec := post(t, api, "http://provider.example/api", tok)
		assert.Equal(t, http.StatusOK, rec.Code, "instance %d: %s", i, rec.Body)
		assert.Equal(t, "alice", user, "instance %d", i)
	}

	// alice withdraws her grant on one instance: every instance refuses
	// the token at once.
	n, err := ps[3].RevokeGrant(ctx, consumerKey, "alice")
	assert.NoError(t, err)
	assert.Equal(t, 1, n, "tokens revoked")
	for i, p := range ps {
		rec := post(t, p.Middleware(http.NotFoundHandler()), "http://provider.example/api", tok)
		assert.Equal(t, http.StatusUnauthorized, rec.Code, "instance %d after revocation: %s", i, rec.Body)
		assert.Equal(t, "oauth_problem=token_revoked", rec.Body.String(), "instance %d after revocation", i)
	}
	unknown := &oauth1.Credentials{Token: "never-issued", Secret: tok.Secret}
	rec = post(t, ps[0].Middleware(http.NotFoundHandler()), "http://provider.example/api", unknown)
	assert.Equal(t, "oauth_problem=token_rejected", rec.Body.String(), "unknown token")
}

// TestDenyApproved checks, across instances, that Deny refuses temporary
// credentials another instance approved, and leaves the approval for the
// exchange.
func TestDenyApproved(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	approver, denier := newProvider(newClient(t, addr), prefix), newProvider(newClient(t, addr), prefix)
	ctx := context.Background()
	temp := server.TemporaryCredentials{Token: "temp", Secret: "s", ConsumerKey: consumerKey, Callback: "oob", Expires: time.Now().Add(time.Minute)}
	require.NoError(t, approver.Temporary.PutTemporary(ctx, temp, time.Now()))
	_, code, err := approver.Authorize(ctx, server.Approval{Token: "temp", User: "alice"})
	require.NoError(t, err)
	_, err = denier.Deny(ctx, "temp")
	assert.ErrorIs(t, err, server.ErrTokenUsed, "Deny of approved temporary credentials")
	got, err := approver.Temporary.TakeTemporary(ctx, "temp", time.Now())
	require.NoError(t, err)
	assert.Equal(t, code, got.VerificationCode)
	assert.Equal(t, "alice", got.User)
}
