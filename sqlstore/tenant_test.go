package sqlstore_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// TestTenantsApart: two tenants of one database whose clients chose the
// same consumer key, tokens and nonces see nothing of each other's.
func TestTenantsApart(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
		n := server.Nonce{ConsumerKey: "acme", Token: "tok", Value: "n", Timestamp: now.Unix()}
		for _, tenant := range []string{"a", "b"} {
			fresh, err := sqlstore.NewNonceStore(db, tenant).Use(ctx, n, now, now.Add(5*time.Minute))
			require.NoError(t, err)
			assert.True(t, fresh, "tenant %s: the nonce the other tenant's client used", tenant)

			c, err := sqlstore.NewConsumerStore(db, tenant, nil)
			require.NoError(t, err)
			require.NoError(t, c.PutConsumer(ctx, "acme", server.Registration{Secret: "secret of " + tenant}))

			tokens := sqlstore.NewTokenStore(db, tenant)
			require.NoError(t, tokens.PutToken(ctx, server.TokenCredentials{Token: "tok", Secret: "s" + tenant, ConsumerKey: "acme", User: "u"}, now))

			temps := sqlstore.NewTemporaryStore(db, tenant)
			require.NoError(t, temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "tmp", Secret: "s" + tenant, ConsumerKey: "acme", Callback: "oob", Expires: now.Add(time.Hour)}, now))
		}
		for _, tenant := range []string{"a", "b"} {
			c, _ := sqlstore.NewConsumerStore(db, tenant, nil)
			r, err := c.Consumer(ctx, "acme", now)
			require.NoError(t, err)
			assert.Equal(t, "secret of "+tenant, r.Secret)
			tok, err := sqlstore.NewTokenStore(db, tenant).Token(ctx, "tok", now)
			require.NoError(t, err)
			assert.Equal(t, "s"+tenant, tok.Secret)
		}
		// Revoking a's grant leaves b's.
		_, err := sqlstore.NewTokenStore(db, "a").RevokeGrant(ctx, "acme", "u", now)
		require.NoError(t, err)
		_, err = sqlstore.NewTokenStore(db, "b").Token(ctx, "tok", now)
		assert.NoError(t, err, "b's token after a's grant was revoked")
		_, err = sqlstore.NewTemporaryStore(db, "a").TakeTemporary(ctx, "tmp", now)
		require.NoError(t, err)
		_, err = sqlstore.NewTemporaryStore(db, "b").TakeTemporary(ctx, "tmp", now)
		assert.NoError(t, err, "b's temporary credentials after a's were exchanged")
	})
}

// TestSealedSecret: a sealed consumer secret is not in the database as
// it is, does not open with another key, and does not open in another
// row.
func TestSealedSecret(t *testing.T) {
	ctx := context.Background()
	db := openSQLite(t, true)
	key := make([]byte, 32)
	key[0] = 1
	s, err := sqlstore.NewConsumerStore(db, "", key)
	require.NoError(t, err)
	require.NoError(t, s.PutConsumer(ctx, "app", server.Registration{Secret: "hunter2-hunter2"}))
	require.NoError(t, s.PutConsumer(ctx, "other", server.Registration{Secret: "other secret"}))
	var raw []byte
	require.NoError(t, db.QueryRowContext(ctx, `SELECT secret FROM oauth1_consumers WHERE consumer_key = 'app'`).Scan(&raw))
	assert.NotContains(t, string(raw), "hunter2")

	r, err := s.Consumer(ctx, "app", time.Now())
	require.NoError(t, err)
	assert.Equal(t, "hunter2-hunter2", r.Secret)

	other := make([]byte, 32)
	wrong, err := sqlstore.NewConsumerStore(db, "", other)
	require.NoError(t, err)
	_, err = wrong.Consumer(ctx, "app", time.Now())
	assert.Error(t, err, "opened with another key")
	plain, err := sqlstore.NewConsumerStore(db, "", nil)
	require.NoError(t, err)
	_, err = plain.Consumer(ctx, "app", time.Now())
	assert.Error(t, err, "read without a key")

	// app's sealed secret copied into other's row does not open there.
	_, err = db.ExecContext(ctx, `UPDATE oauth1_consumers SET secret = $1 WHERE consumer_key = 'other'`, raw)
	require.NoError(t, err)
	_, err = s.Consumer(ctx, "other", time.Now())
	assert.Error(t, err, "a sealed secret moved to another row")
	for _, e := range []error{err} {
		assert.NotContains(t, e.Error(), "hunter2")
	}

	_, err = sqlstore.NewConsumerStore(db, "", make([]byte, 16))
	assert.Error(t, err, "a 16-byte key")
}

// TestResealRotation: after a new key, a store given the old one reads
// every secret; Reseal seals them all under the new key (plain ones too),
// after which the new key alone reads them and the old one none; a store
// without a key given the new one as old unseals them.
func TestResealRotation(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Now()
		oldKey, newKey := make([]byte, 32), make([]byte, 32)
		oldKey[0], newKey[0] = 1, 2
		before, err := sqlstore.NewConsumerStore(db, "t", oldKey)
		require.NoError(t, err)
		require.NoError(t, before.PutConsumer(ctx, "a", server.Registration{Secret: "secret a"}))
		require.NoError(t, before.PutConsumer(ctx, "b", server.Registration{Secret: "secret b"}))
		plain, err := sqlstore.NewConsumerStore(db, "t", nil)
		require.NoError(t, err)
		require.NoError(t, plain.PutConsumer(ctx, "c", server.Registration{Secret: "secret c"}))
		other, err := sqlstore.NewConsumerStore(db, "other tenant", oldKey)
		require.NoError(t, err)
		require.NoError(t, other.PutConsumer(ctx, "a", server.Registration{Secret: "other a"}))

		rotating, err := sqlstore.NewConsumerStore(db, "t", newKey, oldKey)
		require.NoError(t, err)
		for _, k := range []string{"a", "b", "c"} {
			r, err := rotating.Consumer(ctx, k, now)
			require.NoError(t, err)
			assert.Equal(t, "secret "+k, r.Secret)
		}
		n, err := rotating.Reseal(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		n, err = rotating.Reseal(ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, n, "a second Reseal")

		after, err := sqlstore.NewConsumerStore(db, "t", newKey)
		require.NoError(t, err)
		for _, k := range []string{"a", "b", "c"} {
			r, err := after.Consumer(ctx, k, now)
			require.NoError(t, err, k)
			assert.Equal(t, "secret "+k, r.Secret)
			_, err = before.Consumer(ctx, k, now)
			assert.Error(t, err, "%s under the old key alone, after Reseal", k)
		}
		r, err := other.Consumer(ctx, "a", now)
		require.NoError(t, err)
		assert.Equal(t, "other a", r.Secret, "another tenant's secrets are not resealed")

		unseal, err := sqlstore.NewConsumerStore(db, "t", nil, newKey)
		require.NoError(t, err)
		n, err = unseal.Reseal(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, n)
		r, err = plain.Consumer(ctx, "a", now)
		require.NoError(t, err)
		assert.Equal(t, "secret a", r.Secret)
	})
}

// TestTakeTemporaryClears: the row of exchanged temporary credentials
// keeps neither their secret nor their verification code.
func TestTakeTemporaryClears(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		now := time.Now()
		s := sqlstore.NewTemporaryStore(db, "")
		require.NoError(t, s.PutTemporary(ctx, server.TemporaryCredentials{Token: "t", Secret: "temp-secret", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Hour)}, now))
		require.NoError(t, s.Authorize(ctx, server.TemporaryCredentials{Token: "t", User: "u", VerificationCode: "code-123"}, now))
		got, err := s.TakeTemporary(ctx, "t", now)
		require.NoError(t, err)
		assert.Equal(t, "temp-secret", got.Secret)
		assert.Equal(t, "code-123", got.VerificationCode)
		var secret []byte
		var verifier string
		require.NoError(t, db.QueryRowContext(ctx, `SELECT secret, verifier FROM oauth1_temporary WHERE token = 't'`).Scan(&secret, &verifier))
		assert.Empty(t, secret)
		assert.Empty(t, verifier)
	})
}
