package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// TestTemporaryGlobalBound: past MaxTemporary unexpired temporary
// credentials in all, across instances and clients, PutTemporary fails
// with ErrStoreFull, exactly, under concurrency; a request refused for its
// client's share takes no place in the store's bound.
func TestTemporaryGlobalBound(t *testing.T) {
	addr := sharedAddr(t)
	testTemporaryGlobalBound(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testTemporaryGlobalBound is TestTemporaryGlobalBound with the clients newClient returns.
func testTemporaryGlobalBound(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	ctx := context.Background()
	var stores [4]*redisstore.TemporaryStore
	for i := range stores {
		stores[i] = redisstore.NewTemporaryStore(newClient(), prefix)
		stores[i].MaxTemporary, stores[i].MaxTemporaryPerClient = 10, 4
	}
	var seq atomic.Int64
	put := func(s *redisstore.TemporaryStore, client string) error {
		now := time.Now()
		return s.PutTemporary(ctx, server.TemporaryCredentials{
			Token: fmt.Sprint("tok-", seq.Add(1)), Secret: "s", ConsumerKey: client, Callback: "oob",
			Expires: now.Add(time.Minute),
		}, now)
	}
	// One client over its share: 4 stored, 2 refused, naming it.
	for i := range 6 {
		err := put(stores[i%4], "hog")
		if i < 4 {
			require.NoError(t, err)
		} else {
			assert.ErrorIs(t, err, server.ErrStoreFull)
			assert.Contains(t, fmt.Sprint(err), `"hog"`)
		}
	}
	// 48 at once from 24 clients, across instances: exactly the 6 places
	// left are taken.
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for i := range 48 {
		wg.Go(func() {
			err := put(stores[i%4], fmt.Sprint("client-", i%24))
			switch {
			case err == nil:
				ok.Add(1)
			case assert.ErrorIs(t, err, server.ErrStoreFull):
				full.Add(1)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 6, ok.Load(), "stored of 48 at once")
	assert.EqualValues(t, 42, full.Load(), "refused of 48 at once")
	assert.ErrorIs(t, put(stores[0], "newcomer"), server.ErrStoreFull, "a client with nothing stored, the store full")
	assert.Len(t, allKeys(t, newClient(), prefix+"temp:*"), 10, "records stored")
}

// TestTokenBounds: past MaxTokens token credentials in all, or a client's
// MaxTokensPerClient, PutToken for a new grant fails with ErrStoreFull,
// exactly under concurrency across instances, while a grant that holds a
// token gives up its own oldest and is served; tokens kept go on working,
// other clients still get tokens while one client's share is full, and
// revocations (Revoke, RevokeGrant) free places; a token stored twice
// counts once.
func TestTokenBounds(t *testing.T) {
	addr := sharedAddr(t)
	testTokenBounds(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testTokenBounds is TestTokenBounds with the clients newClient returns.
func testTokenBounds(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	ctx := context.Background()
	now := time.Now()
	var stores [4]*redisstore.TokenStore
	for i := range stores {
		stores[i] = redisstore.NewTokenStore(newClient(), prefix)
		stores[i].MaxTokens, stores[i].MaxTokensPerClient = 10, 4
	}
	put := func(s *redisstore.TokenStore, token, client, user string) error {
		return s.PutToken(ctx, server.TokenCredentials{Token: token, Secret: "s", ConsumerKey: client, User: user}, now)
	}
	// 32 new grants at once from one client: exactly its share is stored.
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			err := put(stores[i%4], fmt.Sprint("hog-", i), "hog", fmt.Sprint("user-", i))
			switch {
			case err == nil:
				ok.Add(1)
			case assert.ErrorIs(t, err, server.ErrStoreFull):
				full.Add(1)
				assert.Contains(t, err.Error(), `"hog"`, "the error names the client")
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 4, ok.Load(), "stored for one client of 32 at once")
	assert.EqualValues(t, 28, full.Load(), "refused")
	var hogUser string
	for i := range 32 {
		if _, err := stores[0].Token(ctx, fmt.Sprint("hog-", i), now); err == nil {
			hogUser = fmt.Sprint("user-", i)
			// A user of the hog authorizes again, its share full: served,
			// and its old token is revoked.
			require.NoError(t, put(stores[1], "hog-again", "hog", hogUser))
			_, err := stores[2].Token(ctx, fmt.Sprint("hog-", i), now)
			assert.ErrorIs(t, err, server.ErrTokenRevoked, "the grant's old token, after it made room")
			break
		}
	}
	require.NotEmpty(t, hogUser)

	// A token stored twice counts once.
	require.NoError(t, put(stores[0], "a-1", "alice-app", "alice"))
	assert.Error(t, put(stores[1], "a-1", "alice-app", "alice"))
	// Other clients fill the rest: 6 places left.
	for i := range 5 {
		require.NoError(t, put(stores[i%4], fmt.Sprint("c-", i), fmt.Sprint("client-", i), "u"))
	}
	assert.ErrorIs(t, put(stores[0], "late", "latecomer", "u"), server.ErrStoreFull, "a new grant, the store full")
	require.NoError(t, put(stores[3], "a-2", "alice-app", "alice"), "a grant that holds a token, the store full")
	_, err := stores[0].Token(ctx, "a-1", now)
	assert.ErrorIs(t, err, server.ErrTokenRevoked, "the grant's old token, after it made room")
	assert.Equal(t, 10, liveTokens(t, newClient(), prefix), "records kept")
	for _, s := range stores {
		_, err := s.Token(ctx, "a-2", now)
		assert.NoError(t, err, "a token kept works with the store full")
	}

	// A revocation frees a place, and a grant's revocation its tokens'.
	require.NoError(t, stores[2].Revoke(ctx, "c-0", now))
	require.NoError(t, put(stores[0], "late", "latecomer", "u"))
	assert.ErrorIs(t, put(stores[0], "late-2", "latecomer", "u2"), server.ErrStoreFull)
	n := 0
	for i := range 32 {
		m, err := stores[3].RevokeGrant(ctx, "hog", fmt.Sprint("user-", i), now)
		if err != nil {
			require.ErrorIs(t, err, server.ErrNotFound)
		}
		n += m
	}
	require.Equal(t, 4, n, "the hog's tokens revoked")
	for i := range n {
		require.NoError(t, put(stores[i%4], fmt.Sprint("new-", i), "newcomer", fmt.Sprint("u", i)))
	}
	assert.ErrorIs(t, put(stores[0], "one-more", "newcomer", "u-more"), server.ErrStoreFull)
}

// TestTokenDefaultBounds: a TokenStore with zero bounds has the documented
// bound in all: past docMaxTokens, PutToken for a new grant is
// refused, and a grant that holds a token is served. The counter is set
// rather than filled, to keep the test quick.
func TestTokenDefaultBounds(t *testing.T) {
	const docMaxTokens = 1 << 20 // what a zero MaxTokens means, as its doc says
	addr, prefix := sharedAddr(t), testPrefix(t)
	ctx := context.Background()
	rdb := newClient(t, addr)
	s := redisstore.NewTokenStore(rdb, prefix)
	now := time.Now()
	put := func(token, user string) error {
		return s.PutToken(ctx, server.TokenCredentials{Token: token, Secret: "s", ConsumerKey: "c", User: user}, now)
	}
	require.NoError(t, put("first", "u"))
	require.NoError(t, rdb.Set(ctx, prefix+"count:{tokens}", docMaxTokens, 0).Err())
	assert.ErrorIs(t, put("second", "new-user"), server.ErrStoreFull, "a new grant at docMaxTokens")
	require.NoError(t, put("again", "u"), "a grant that holds a token at docMaxTokens")
	_, err := s.Token(ctx, "first", now)
	assert.ErrorIs(t, err, server.ErrTokenRevoked)
	require.NoError(t, rdb.Set(ctx, prefix+"count:{tokens}", 1, 0).Err())
	require.NoError(t, put("second", "new-user"))
}
