package redisstore_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// TestTokenStorePopularClient: a TokenStore with zero bounds takes 70,000
// users of one client, each authorized once (from 16 connections at
// once), and the counts in Redis say 70,000: the bound is per grant, and a
// client with more users than the old share is never refused. Before the
// fix, PutToken failed with ErrStoreFull past 65,536 tokens of one client
// (DefaultMaxTokensPerClient), for good. It sends about 140,000 commands
// to Redis, a few seconds: set COUNTERSIGN_LONG_TESTS=1 to run it;
// TestTokenStorePopularClientQuick runs by default.
func TestTokenStorePopularClient(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("stores 70,000 token credentials in Redis, a few seconds: set COUNTERSIGN_LONG_TESTS=1 to run it")
	}
	testPopularClient(t, 70_000)
}

// TestTokenStorePopularClientQuick is TestTokenStorePopularClient with the
// 65,536 tokens before it counted rather than stored: the client's counter
// is set, as the old store's share would have been full, and 100 more users
// are still served.
func TestTokenStorePopularClientQuick(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	ctx := context.Background()
	rdb := newClient(t, addr)
	s := redisstore.NewTokenStore(rdb, prefix)
	now := time.Now()
	require.NoError(t, s.PutToken(ctx, server.TokenCredentials{Token: "first", Secret: "s", ConsumerKey: "popular", User: "u-first"}, now))
	var client string
	for _, k := range allKeys(t, rdb, prefix+"count:{tokens}:client:*") {
		client = k
	}
	require.NotEmpty(t, client)
	require.NoError(t, rdb.Set(ctx, client, 1<<16, 0).Err())
	require.NoError(t, rdb.Set(ctx, prefix+"count:{tokens}", 1<<16, 0).Err())
	for i := range 100 {
		require.NoError(t, s.PutToken(ctx, server.TokenCredentials{Token: fmt.Sprint("t-", i), Secret: "s", ConsumerKey: "popular", User: fmt.Sprint("u-", i)}, now),
			"user %d of a client with 65,536 tokens", i)
	}
	n, err := rdb.Get(ctx, client).Int()
	require.NoError(t, err)
	assert.Equal(t, 1<<16+100, n, "the client's counter")
}

// testPopularClient stores a token for each of users users of one client.
func testPopularClient(t *testing.T, users int) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	ctx := context.Background()
	rdb := newClient(t, addr)
	s := redisstore.NewTokenStore(rdb, prefix)
	now := time.Now()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < users; i += 16 {
				if err := s.PutToken(ctx, server.TokenCredentials{Token: fmt.Sprint("t-", i), Secret: "s", ConsumerKey: "popular", User: fmt.Sprint("u-", i)}, now); err != nil {
					t.Errorf("PutToken for user %d of one client: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d users of one client stored in %v", users, time.Since(start))
	total, err := rdb.Get(ctx, prefix+"count:{tokens}").Int()
	require.NoError(t, err)
	assert.Equal(t, users, total, "the store's counter")
	for _, i := range []int{0, users - 1} {
		_, err := s.Token(ctx, fmt.Sprint("t-", i), now)
		assert.NoError(t, err)
	}
}

// TestExchangeKeepsApproval: with the token store full, a Provider on
// Redis answers a new grant's exchange 503 with Retry-After: 10 and the
// temporary credentials stay approved: once a revocation made room, the
// client's retry with the same verifier gets token credentials, which
// work. Before the fix the retry got token_used.
func TestExchangeKeepsApproval(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	ctx := context.Background()
	p := newProvider(newClient(t, addr), prefix)
	p.Tokens.(*redisstore.TokenStore).MaxTokens = 1
	flow := func(user string) (*oauth1.Credentials, string) {
		t.Helper()
		rec := post(t, p.RequestTokenHandler(), "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: "oob"})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		form, err := url.ParseQuery(rec.Body.String())
		require.NoError(t, err)
		temp := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
		_, code, err := p.Authorize(ctx, server.Approval{Token: temp.Token, User: user})
		require.NoError(t, err)
		return temp, code
	}
	exchange := func(temp *oauth1.Credentials, code string) (int, string, http.Header) {
		rec := post(t, p.AccessTokenHandler(), "http://provider.example/access_token", temp, oauth1.Param{Name: "oauth_verifier", Value: code})
		return rec.Code, rec.Body.String(), rec.Header()
	}
	temp, code := flow("alice")
	status, body, _ := exchange(temp, code)
	require.Equal(t, http.StatusOK, status, body)
	form, _ := url.ParseQuery(body)
	alice := form.Get("oauth_token")

	temp, code = flow("bob")
	status, body, h := exchange(temp, code)
	assert.Equal(t, http.StatusServiceUnavailable, status, body)
	assert.Equal(t, "10", h.Get("Retry-After"))

	require.NoError(t, p.Revoke(ctx, alice))
	status, body, _ = exchange(temp, code)
	require.Equal(t, http.StatusOK, status, "the retry with the same verifier: %s", body)
	form, _ = url.ParseQuery(body)
	bob := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
	rec := post(t, p.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})), "http://provider.example/api", bob)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	status, body, _ = exchange(temp, code)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.True(t, strings.Contains(body, "token_used"), body)
}

// TestProviderReauthorize: one user authorizes one client 300 times
// through a Provider on Redis: never refused; the 16 newest tokens work
// and an older one is refused with token_revoked; RevokeGrant then
// revokes the 16 and says so, and once more finds none (ErrNotFound).
func TestProviderReauthorize(t *testing.T) {
	addr, prefix := sharedAddr(t), testPrefix(t)
	ctx := context.Background()
	p := newProvider(newClient(t, addr), prefix)
	api := p.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	var toks []*oauth1.Credentials
	for i := range 300 {
		rec := post(t, p.RequestTokenHandler(), "http://provider.example/request_token", nil, oauth1.Param{Name: "oauth_callback", Value: "oob"})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		form, _ := url.ParseQuery(rec.Body.String())
		temp := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
		_, code, err := p.Authorize(ctx, server.Approval{Token: temp.Token, User: "alice"})
		require.NoError(t, err)
		rec = post(t, p.AccessTokenHandler(), "http://provider.example/access_token", temp, oauth1.Param{Name: "oauth_verifier", Value: code})
		require.Equal(t, http.StatusOK, rec.Code, "authorization %d: %s", i+1, rec.Body)
		form, _ = url.ParseQuery(rec.Body.String())
		toks = append(toks, &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")})
	}
	for _, tok := range toks[len(toks)-16:] {
		rec := post(t, api, "http://provider.example/api", tok)
		assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	for _, tok := range []*oauth1.Credentials{toks[0], toks[len(toks)-17]} {
		rec := post(t, api, "http://provider.example/api", tok)
		assert.Equal(t, http.StatusUnauthorized, rec.Code)
		assert.Contains(t, rec.Body.String(), "oauth_problem=token_revoked")
	}
	n, err := p.RevokeGrant(ctx, consumerKey, "alice")
	assert.NoError(t, err)
	assert.Equal(t, 16, n)
	n, err = p.RevokeGrant(ctx, consumerKey, "alice")
	assert.ErrorIs(t, err, server.ErrNotFound)
	assert.Zero(t, n)
}
