package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/redisstore"
)

// storeCalls returns every method of the stores, each returning its error,
// on the token and nonce "t".
func storeCalls(nonces *redisstore.NonceStore, temps *redisstore.TemporaryStore, tokens *redisstore.TokenStore) map[string]func(context.Context) error {
	now := time.Now()
	return map[string]func(context.Context) error{
		"Use": func(ctx context.Context) error {
			fresh, err := nonces.Use(ctx, server.Nonce{ConsumerKey: "c", Value: "t", Timestamp: now.Unix()}, now, now.Add(time.Minute))
			if err == nil && !fresh {
				return errors.New("not fresh") // a refusal, which fails closed as well
			}
			return err
		},
		"PutTemporary": func(ctx context.Context) error {
			return temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "t", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Minute)}, now)
		},
		"Temporary": func(ctx context.Context) error {
			_, err := temps.Temporary(ctx, "t", now)
			return err
		},
		"Authorize": func(ctx context.Context) error {
			return temps.Authorize(ctx, server.TemporaryCredentials{Token: "t", User: "u", VerificationCode: "v"}, now)
		},
		"TakeTemporary": func(ctx context.Context) error {
			_, err := temps.TakeTemporary(ctx, "t", now)
			return err
		},
		"PutToken": func(ctx context.Context) error {
			return tokens.PutToken(ctx, server.TokenCredentials{Token: "t", Secret: "s", ConsumerKey: "c", User: "u"}, now)
		},
		"Token": func(ctx context.Context) error {
			_, err := tokens.Token(ctx, "t", now)
			return err
		},
		"Revoke": func(ctx context.Context) error { return tokens.Revoke(ctx, "t", now) },
		"RevokeGrant": func(ctx context.Context) error {
			n, err := tokens.RevokeGrant(ctx, "c", "u", now)
			if err == nil && n == 0 {
				return errors.New("nothing revoked") // as good as an error here
			}
			return err
		},
	}
}

// fakeReply is a hook that replaces the reply to every command with
// reply, as a misbehaving proxy in front of Redis might: the command still
// runs in Redis.
type fakeReply struct{ reply any }

func (fakeReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (fakeReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h fakeReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		switch c := cmd.(type) {
		case *redis.Cmd:
			c.SetErr(nil)
			c.SetVal(h.reply)
		case *redis.SliceCmd:
			s, ok := h.reply.([]any)
			if !ok {
				// go-redis fails to parse a non-array for HMGET.
				c.SetErr(fmt.Errorf("redis: can't parse array reply: %v", h.reply))
				return c.Err()
			}
			c.SetErr(nil)
			c.SetVal(s)
		default: // the connection's HELLO and the like
			return err
		}
		return nil
	}
}

// TestMalformedReply gives every method replies of the wrong shape: each
// must return an error, never panic and never succeed.
func TestMalformedReply(t *testing.T) {
	addr := sharedAddr(t)
	replies := []any{
		nil, "", "garbage", int64(7), int64(-1),
		[]any{}, []any{nil}, []any{"ok"}, []any{"t"}, []any{"t", "s"}, []any{"t", "s", "c"},
		[]any{int64(1), int64(2)}, []any{"ok", "t", "s"},
		[]any{"ok", nil, nil, nil, nil, nil, nil, nil},
		[]any{"ok", int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7)},
		[]any{"ok", "t", "s", "c", "cb", "notanumber", "u", "v"},
		[]any{"ok", "t", "s", "c", "cb", "1", "u", "v", "sc", "extra"},
		[]any{"ok", "t", "s", "c", "cb", "1", "u", "v", int64(1)}, // a scope that is not a string
		[]any{"1", nil, "t", "s", "c", "cb", "u", "v", nil, int64(1)},
		[]any{"t", "s", "c", "u", nil, int64(1)},
		[]any{"1", nil, "t", "s", "c"}, // a short HMGET
		[]any{"1", nil, "t", "s", "c", "cb", "u"},
		[]any{"notanumber", nil, "t", "s", "c", "cb", "u", "v"},
		[]any{nil, nil, nil, nil}, // a token record without its fields, or a short Temporary
		[]any{"other", "s", "c", "u"},
		[]any{"t", nil, "c", "u"},
		[]any{[]any{"t"}, "s", "c", "u"},
	}
	for i, reply := range replies {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { rdb.Close() })
		rdb.AddHook(fakeReply{reply})
		prefix := testPrefix(t)
		for name, call := range storeCalls(redisstore.NewNonceStore(rdb, prefix), redisstore.NewTemporaryStore(rdb, prefix), redisstore.NewTokenStore(rdb, prefix)) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
						t.Errorf("%s with the reply %#v (case %d) panicked: %v", name, reply, i, p)
					}
				}()
				err = call(context.Background())
			}()
			if err == nil {
				t.Errorf("%s with the reply %#v (case %d) succeeded", name, reply, i)
			}
		}
	}
}

// TestMalformedRecord writes records of the wrong type or with fields
// missing straight into Redis, as another program sharing the prefix or a
// partial restore might: every read fails closed, with an error, and never
// returns credentials with fields missing (an empty secret would sign).
func TestMalformedRecord(t *testing.T) {
	rdb := newClient(t, sharedAddr(t))
	ctx := context.Background()
	prefix := testPrefix(t)
	s, tokens := redisstore.NewTemporaryStore(rdb, prefix), redisstore.NewTokenStore(rdb, prefix)

	// The keys of the token "t", found by storing it once.
	now := time.Now()
	exp := now.Add(time.Minute)
	require.NoError(t, s.PutTemporary(ctx, server.TemporaryCredentials{Token: "t", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: exp}, now))
	require.NoError(t, tokens.PutToken(ctx, server.TokenCredentials{Token: "t", Secret: "s", ConsumerKey: "c", User: "u"}, now))
	var tempKey, tokenKey string
	for _, prefixed := range []struct {
		kind string
		key  *string
	}{{"temp:", &tempKey}, {"token:", &tokenKey}} {
		keys, err := rdb.Keys(ctx, prefix+prefixed.kind+"*").Result()
		require.NoError(t, err)
		require.Len(t, keys, 1)
		*prefixed.key = keys[0]
	}
	ms := fmt.Sprint(exp.UnixMilli())

	for i, write := range []func(key string) error{
		func(key string) error { return rdb.Set(ctx, key, "a string", time.Minute).Err() },
		func(key string) error { return rdb.RPush(ctx, key, "a", "list").Err() },
		func(key string) error { return rdb.HSet(ctx, key, "e", ms).Err() },
		func(key string) error { return rdb.HSet(ctx, key, "t", "t").Err() },
		func(key string) error { return rdb.HSet(ctx, key, "t", "t", "e", ms).Err() },
		func(key string) error { return rdb.HSet(ctx, key, "t", "t", "s", "s", "e", ms).Err() },
		func(key string) error { return rdb.HSet(ctx, key, "t", "t", "s", "s", "c", "c", "e", "soon").Err() },
		func(key string) error {
			return rdb.HSet(ctx, key, "t", "t", "s", "s", "c", "c", "cb", "oob", "e", ms).Err() // no u, v
		},
		func(key string) error {
			return rdb.HSet(ctx, key, "t", "other", "s", "s", "c", "c", "cb", "oob", "u", "", "v", "", "e", ms).Err()
		},
		func(key string) error { return rdb.HSet(ctx, key, "t", "t", "s", "s", "u", "u").Err() }, // no c
		func(key string) error { return rdb.HSet(ctx, key, "t", "other", "s", "s", "c", "c", "u", "u").Err() },
		// Token credentials and a tombstone: revoked or not, refused.
		func(key string) error {
			return rdb.HSet(ctx, key, "t", "t", "s", "s", "c", "c", "u", "u", "r", "1").Err()
		},
	} {
		for _, key := range []string{tempKey, tokenKey} {
			require.NoError(t, rdb.Del(ctx, key).Err())
			require.NoError(t, write(key))
		}
		check := func(name string, f func() error) {
			t.Helper()
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
						t.Errorf("%s of malformed record %d panicked: %v", name, i, p)
					}
				}()
				err = f()
			}()
			assert.Error(t, err, "%s of malformed record %d", name, i)
		}
		check("Temporary", func() error { _, err := s.Temporary(ctx, "t", now); return err })
		check("Token", func() error { _, err := tokens.Token(ctx, "t", now); return err })
		check("TakeTemporary", func() error { _, err := s.TakeTemporary(ctx, "t", now); return err })
	}
}
