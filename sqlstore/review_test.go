package sqlstore_test

// The security review's tests: hostile input at every boundary of the
// stores, on both databases; secrets out of errors; failing closed.

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// hostile are the values an attacker (or a careless caller) may pass for
// any string: huge ones (1 MB, incompressible), NUL, bytes that are not
// UTF-8, SQL and format metacharacters, line breaks.
func hostile() map[string]string {
	big := make([]byte, 1<<19)
	rand.Read(big)
	return map[string]string{
		"1MB":       hex.EncodeToString(big),
		"NUL":       "a\x00b",
		"notUTF8":   "\xff\xfe\xc0\xae",
		"SQL":       `x'); DROP TABLE oauth1_nonces; -- " \ %_ $1 ?`,
		"fmt":       "%s%d%v%!%n%x %q \n\r\t line two",
		"empty":     "",
		"surrogate": "\xed\xa0\x80", // CESU-8 surrogate: not UTF-8
	}
}

// TestReviewHostileNonces: a nonce is recorded by its hash, so that any
// consumer key, token or value, whatever its size or bytes, is fresh once
// and a replay after, without a database error.
func TestReviewHostileNonces(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		s := sqlstore.NewNonceStore(db, "")
		for name, v := range hostile() {
			for i, n := range []server.Nonce{
				{ConsumerKey: v, Token: "t", Value: "n", Timestamp: now.Unix()},
				{ConsumerKey: "c", Token: v, Value: "n", Timestamp: now.Unix()},
				{ConsumerKey: "c", Token: "t", Value: v, Timestamp: now.Unix()},
				{ConsumerKey: v, Token: v, Value: v, Timestamp: -1 << 63},
			} {
				fresh, err := s.Use(ctx, n, now, now.Add(time.Minute))
				require.NoError(t, err, "%s #%d", name, i)
				replay, err := s.Use(ctx, n, now, now.Add(time.Minute))
				require.NoError(t, err, "%s #%d", name, i)
				assert.True(t, fresh && !replay, "%s #%d: fresh %v, then replay %v", name, i, fresh, replay)
			}
		}
	})
}

// TestReviewHostileTenant: a tenant the database cannot hold (NUL, not
// UTF-8, on PostgreSQL) fails every call with ErrStoreUnavailable, never
// a fresh nonce twice; SQL metacharacters in a tenant are data, keeping
// tenants apart.
func TestReviewHostileTenant(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		n := server.Nonce{ConsumerKey: "c", Token: "t", Value: "n", Timestamp: now.Unix()}
		for name, tenant := range hostile() {
			s := sqlstore.NewNonceStore(db, tenant)
			fresh, err := s.Use(ctx, n, now, now.Add(time.Minute))
			if err != nil {
				assert.ErrorIs(t, err, server.ErrStoreUnavailable, name)
				assert.False(t, fresh, name)
				continue
			}
			replay, err := s.Use(ctx, n, now, now.Add(time.Minute))
			require.NoError(t, err, name)
			assert.False(t, replay, "%s: a replay in the same tenant", name)
		}
		// Every tenant that could be stored took n once: "" is one of them,
		// so n in a further tenant is fresh, and "%" is no wildcard.
		fresh, err := sqlstore.NewNonceStore(db, "%").Use(ctx, n, now, now.Add(time.Minute))
		require.NoError(t, err)
		assert.True(t, fresh, `tenant "%" saw another tenant's nonce`)
	})
}

// TestReviewHostileLookups: a token, consumer key or user that no store
// could hold is unknown (ErrNotFound, a 401 problem), never a database
// error (503) nor a panic; neither is one of 1 MB.
func TestReviewHostileLookups(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		temps := sqlstore.NewTemporaryStore(db, "")
		tokens := sqlstore.NewTokenStore(db, "")
		consumers, err := sqlstore.NewConsumerStore(db, "", nil)
		require.NoError(t, err)
		for name, v := range hostile() {
			calls := map[string]error{}
			_, calls["Temporary"] = temps.Temporary(ctx, v, now)
			_, calls["TakeTemporary"] = temps.TakeTemporary(ctx, v, now)
			calls["Authorize"] = temps.Authorize(ctx, server.TemporaryCredentials{Token: v, User: "u", VerificationCode: "code"}, now)
			_, calls["Temporary.RevokeGrant"] = temps.RevokeGrant(ctx, v, v, now)
			_, calls["Token"] = tokens.Token(ctx, v, now)
			calls["Revoke"] = tokens.Revoke(ctx, v, now)
			_, calls["Token.RevokeGrant"] = tokens.RevokeGrant(ctx, v, v, now)
			_, calls["Consumer"] = consumers.Consumer(ctx, v, now)
			for call, err := range calls {
				assert.ErrorIs(t, err, server.ErrNotFound, "%s(%s)", call, name)
				assert.NotErrorIs(t, err, server.ErrStoreUnavailable, "%s(%s)", call, name)
			}
		}
	})
}

// TestReviewHostileValues: values the stores keep come back byte for
// byte, whatever SQL or format metacharacters they hold; values that
// cannot be kept are refused with a clear error, not stored altered.
func TestReviewHostileValues(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		tokens := sqlstore.NewTokenStore(db, "")
		temps := sqlstore.NewTemporaryStore(db, "")
		for name, v := range hostile() {
			if v == "" || len(v) > 4096 {
				continue // an empty token is refused; sizes below
			}
			tc := server.TokenCredentials{Token: "tok" + v, Secret: v + "s", ConsumerKey: "c" + v, User: "u" + v, Scope: v}
			err := tokens.PutToken(ctx, tc, now)
			if !strings.Contains(name, "UTF8") && name != "NUL" && name != "surrogate" {
				require.NoError(t, err, name)
				got, err := tokens.Token(ctx, tc.Token, now)
				require.NoError(t, err, name)
				assert.Equal(t, tc, got, name)
			} else {
				require.Error(t, err, name)
				assert.NotErrorIs(t, err, server.ErrStoreUnavailable, name)
				assert.NotContains(t, err.Error(), v+"s", "%s: the secret in the error", name)
			}
			tmp := server.TemporaryCredentials{Token: "tmp" + v, Secret: v, ConsumerKey: "c", Callback: "https://c.example/?q=" + v, Expires: now.Add(time.Hour)}
			if err := temps.PutTemporary(ctx, tmp, now); err == nil {
				got, err := temps.TakeTemporary(ctx, tmp.Token, now)
				require.NoError(t, err, name)
				assert.Equal(t, tmp.Callback, got.Callback, name)
				assert.Equal(t, tmp.Secret, got.Secret, name)
			}
		}
		// A megabyte of user or scope: kept, or refused, never a panic.
		big := hostile()["1MB"]
		err := tokens.PutToken(ctx, server.TokenCredentials{Token: "big", Secret: "s", ConsumerKey: "c", User: big, Scope: big}, now)
		if err != nil {
			t.Logf("a 1 MB user: %.200v", err)
		}
	})
}

// TestReviewMalformedSecret: a consumer row whose secret is not one the
// store wrote (empty, an unknown format byte, a sealed one cut short) is
// an error naming the consumer, never a panic nor a secret, with or
// without a key.
func TestReviewMalformedSecret(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		key := make([]byte, 32)
		keyed, err := sqlstore.NewConsumerStore(db, "", key)
		require.NoError(t, err)
		plain, err := sqlstore.NewConsumerStore(db, "", nil)
		require.NoError(t, err)
		for i, raw := range [][]byte{{}, {2, 'x'}, {1}, {1, 2, 3, 4, 5, 6}, append([]byte{1}, make([]byte, 17)...), {0xff}} {
			ck := fmt.Sprintf("app%d", i)
			_, err := db.ExecContext(ctx, `INSERT INTO oauth1_consumers (tenant, consumer_key, secret) VALUES ('', $1, $2)`, ck, raw)
			require.NoError(t, err)
			for name, s := range map[string]*sqlstore.ConsumerStore{"keyed": keyed, "keyless": plain} {
				var r server.Registration
				require.NotPanics(t, func() { r, err = s.Consumer(ctx, ck, time.Now()) }, "%s store, secret %x", name, raw)
				assert.Error(t, err, "%s store, secret %x: read as %q", name, raw, r.Secret)
				assert.NotErrorIs(t, err, server.ErrNotFound, "a malformed row is not an unknown client")
			}
		}
	})
}

// TestReviewSealedSwap: a sealed secret moved to another tenant's row of
// the same consumer key does not open there; a store with another key
// says so without the secret or the key.
func TestReviewSealedSwap(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		key := make([]byte, 32)
		rand.Read(key)
		a, err := sqlstore.NewConsumerStore(db, "tenant-a", key)
		require.NoError(t, err)
		b, err := sqlstore.NewConsumerStore(db, "tenant-b", key)
		require.NoError(t, err)
		require.NoError(t, a.PutConsumer(ctx, "app", server.Registration{Secret: "secret-of-a"}))
		require.NoError(t, b.PutConsumer(ctx, "app", server.Registration{Secret: "secret-of-b"}))
		// The operator of tenant b (or whoever writes the database) copies
		// a's sealed secret into b's row.
		_, err = db.ExecContext(ctx, `UPDATE oauth1_consumers SET secret = (SELECT secret FROM oauth1_consumers
WHERE tenant = 'tenant-a' AND consumer_key = 'app') WHERE tenant = 'tenant-b' AND consumer_key = 'app'`)
		require.NoError(t, err)
		r, err := b.Consumer(ctx, "app", time.Now())
		require.Error(t, err, "tenant b read %q", r.Secret)
		assert.NotContains(t, err.Error(), "secret-of")

		other := make([]byte, 32)
		rand.Read(other)
		wrong, err := sqlstore.NewConsumerStore(db, "tenant-a", other)
		require.NoError(t, err)
		_, err = wrong.Consumer(ctx, "app", time.Now())
		require.Error(t, err)
		assert.Contains(t, err.Error(), `"app"`, "the error names the consumer")
		for _, secret := range []string{"secret-of-a", hex.EncodeToString(key), hex.EncodeToString(other), string(key)} {
			assert.NotContains(t, err.Error(), secret)
		}
	})
}

// TestReviewOpenHidesPassword: an error of Open never repeats the
// password of a PostgreSQL DSN, whether the server cannot be reached or
// the DSN does not parse.
func TestReviewOpenHidesPassword(t *testing.T) {
	const pw = "Pw0rdXYZZY"
	for _, dsn := range []string{
		"postgres://alice:" + pw + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgresql://alice:" + pw + "@127.0.0.1:1/db?sslmode=disable&connect_timeout=2",
		"postgres://alice:" + pw + "@127.0.0.1:99999999/db",
		"postgres://alice:" + pw + "@[::1/db",
		"postgres://alice:" + pw + "@127.0.0.1:1/db?sslmode=bogus",
		"postgres://alice:" + pw + "@127.0.0.1:1/db?password=" + pw + "&sslmode=disable&connect_timeout=2",
		"postgres://alice:%zz" + pw + "@127.0.0.1:1/db",
		// Not PostgreSQL's prefix, byte for byte: taken for a SQLite path.
		"POSTGRES://alice:" + pw + "@127.0.0.1:1/db",
		"postgres:/alice:" + pw + "@127.0.0.1:1/db",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		db, err := sqlstore.Open(ctx, dsn)
		cancel()
		if db != nil {
			db.Close()
		}
		require.Error(t, err, dsn)
		assert.NotContains(t, err.Error(), pw, "Open(%s)", dsn)
		assert.NotContains(t, fmt.Sprintf("%#v", err), pw, "Open(%s), %%#v", dsn)
	}
}

// TestReviewCanceled: a call whose context is done (canceled, or past its
// deadline) fails with an error wrapping ErrStoreUnavailable and the
// context's error, and Use never answers fresh.
func TestReviewCanceled(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		now := time.Now()
		temps := sqlstore.NewTemporaryStore(db, "")
		require.NoError(t, temps.PutTemporary(context.Background(), server.TemporaryCredentials{Token: "t", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Hour)}, now))
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		past, cancel2 := context.WithDeadline(context.Background(), now.Add(-time.Second))
		defer cancel2()
		for name, ctx := range map[string]context.Context{"canceled": canceled, "deadline": past} {
			nonces := sqlstore.NewNonceStore(db, "")
			tokens := sqlstore.NewTokenStore(db, "")
			consumers, err := sqlstore.NewConsumerStore(db, "", nil)
			require.NoError(t, err)
			fresh, err := nonces.Use(ctx, server.Nonce{ConsumerKey: "c", Value: name, Timestamp: now.Unix()}, now, now.Add(time.Minute))
			assert.False(t, fresh, "%s: a fresh nonce", name)
			calls := map[string]error{"Use": err}
			_, calls["Temporary"] = temps.Temporary(ctx, "t", now)
			_, calls["TakeTemporary"] = temps.TakeTemporary(ctx, "t", now)
			calls["Authorize"] = temps.Authorize(ctx, server.TemporaryCredentials{Token: "t", User: "u", VerificationCode: "v"}, now)
			calls["PutToken"] = tokens.PutToken(ctx, server.TokenCredentials{Token: "k", Secret: "s", ConsumerKey: "c", User: "u"}, now)
			_, calls["Token"] = tokens.Token(ctx, "k", now)
			_, calls["Consumer"] = consumers.Consumer(ctx, "c", now)
			calls["Expire"] = sqlstore.Expire(ctx, db, now)
			for call, err := range calls {
				assert.ErrorIs(t, err, server.ErrStoreUnavailable, "%s, %s", call, name)
				assert.True(t, errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded), "%s, %s: %v", call, name, err)
			}
		}
		// Nothing was taken: the temporary credentials are still there.
		_, err := temps.TakeTemporary(context.Background(), "t", now)
		assert.NoError(t, err)
	})
}

// TestReviewPrivateFile: a SQLite file Open creates, and its -wal and
// -shm files, are readable by their owner only: they hold every token
// secret and verification code, and the consumer secrets unless sealed;
// another user of the machine who reads them signs as any client and
// user. A file that exists keeps the mode its operator gave it.
func TestReviewPrivateFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, dsn := range []string{filepath.Join(dir, "new.db"), "file:" + filepath.Join(dir, "uri.db") + "?_pragma=synchronous(FULL)"} {
		db, err := sqlstore.Open(ctx, dsn)
		require.NoError(t, err)
		_, err = sqlstore.Migrate(ctx, db, false)
		require.NoError(t, err)
		path := strings.TrimPrefix(strings.Split(dsn, "?")[0], "file:")
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(f)
			require.NoError(t, err, f)
			assert.Zero(t, fi.Mode().Perm()&0o077, "%s is %v", f, fi.Mode())
		}
		db.Close()
	}
	shared := filepath.Join(dir, "shared.db")
	require.NoError(t, os.WriteFile(shared, nil, 0o640))
	require.NoError(t, os.Chmod(shared, 0o640))
	db, err := sqlstore.Open(ctx, shared)
	require.NoError(t, err)
	db.Close()
	fi, err := os.Stat(shared)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm())
}
