package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// TestRecordsWithoutScope checks that records written before the scope
// (no sc field) stay readable, with the empty scope, through the whole
// flow: Temporary, Authorize (which adds the scope approved),
// TakeTemporary and Token.
func TestRecordsWithoutScope(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	ctx := context.Background()
	prefix := testPrefix(t)
	temps, tokens := redisstore.NewTemporaryStore(rdb, prefix), redisstore.NewTokenStore(rdb, prefix)

	now := time.Now()
	temp := server.TemporaryCredentials{Token: "t", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Minute), Scope: "photos"}
	tok := server.TokenCredentials{Token: "k", Secret: "ks", ConsumerKey: "c", User: "u", Scope: "photos"}
	require.NoError(t, temps.PutTemporary(ctx, temp, now))
	require.NoError(t, tokens.PutToken(ctx, tok, now))
	// Make them what the earlier version wrote: every field but sc.
	for _, pattern := range []string{prefix + "temp:*", prefix + "token:*"} {
		keys, err := rdb.Keys(ctx, pattern).Result()
		require.NoError(t, err)
		require.Len(t, keys, 1, pattern)
		n, err := rdb.HDel(ctx, keys[0], "sc").Result()
		require.NoError(t, err)
		require.Equal(t, int64(1), n, "the record of %s had an sc field", pattern)
	}

	got, err := temps.Temporary(ctx, "t", now)
	require.NoError(t, err)
	temp.Scope = ""
	assert.Equal(t, temp.Token+temp.Secret+temp.ConsumerKey+temp.Callback, got.Token+got.Secret+got.ConsumerKey+got.Callback)
	assert.Empty(t, got.Scope)

	require.NoError(t, temps.Authorize(ctx, server.TemporaryCredentials{Token: "t", User: "u", VerificationCode: "v", Scope: "photos:read"}, now))
	got, err = temps.TakeTemporary(ctx, "t", now)
	require.NoError(t, err)
	assert.Equal(t, "photos:read", got.Scope, "the scope Authorize added to an old record")
	assert.Equal(t, "s", got.Secret)

	gotTok, err := tokens.Token(ctx, "k", now)
	require.NoError(t, err)
	tok.Scope = ""
	assert.True(t, gotTok == tok, "Token of a record without sc = %v, want %v", gotTok, tok)
}
