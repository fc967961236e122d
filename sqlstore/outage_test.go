package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/sunset"
	"github.com/countersign/countersign/sqlstore"
	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

// TestOutage: with the database gone (a closed pool; a PostgreSQL server
// stopped), every call of every store returns an error wrapping
// server.ErrStoreUnavailable, and Use never reports a nonce fresh.
func TestOutage(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		db := openSQLite(t, true)
		outage(t, db, func() { db.Close() })
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		pgtest.Shared(t) // skips as the others do when PostgreSQL is missing
		srv, err := pgtest.Start()
		require.NoError(t, err)
		db := open(t, srv.URL("postgres"), true)
		outage(t, db, srv.Stop)
	})
}

func outage(t *testing.T, db *sql.DB, stop func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	now := time.Now()
	nonces := sqlstore.NewNonceStore(db, "")
	temps := sqlstore.NewTemporaryStore(db, "")
	tokens := sqlstore.NewTokenStore(db, "")
	consumers, err := sqlstore.NewConsumerStore(db, "", nil)
	require.NoError(t, err)
	usage := sqlstore.NewUsage(db, "")
	require.NoError(t, temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "t", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Hour)}, now))
	stop()

	n := server.Nonce{ConsumerKey: "c", Value: "v", Timestamp: now.Unix()}
	fresh, err := nonces.Use(ctx, n, now, now.Add(time.Minute))
	assert.False(t, fresh, "Use with the database down reported a fresh nonce")
	calls := map[string]error{"Use": err}
	calls["PutTemporary"] = temps.PutTemporary(ctx, server.TemporaryCredentials{Token: "t2", Secret: "s", ConsumerKey: "c", Callback: "oob", Expires: now.Add(time.Hour)}, now)
	_, calls["Temporary"] = temps.Temporary(ctx, "t", now)
	calls["Authorize"] = temps.Authorize(ctx, server.TemporaryCredentials{Token: "t", User: "u", VerificationCode: "v"}, now)
	_, calls["TakeTemporary"] = temps.TakeTemporary(ctx, "t", now)
	_, calls["Temporary.RevokeGrant"] = temps.RevokeGrant(ctx, "c", "u", now)
	calls["PutToken"] = tokens.PutToken(ctx, server.TokenCredentials{Token: "k", Secret: "s", ConsumerKey: "c", User: "u"}, now)
	_, calls["Token"] = tokens.Token(ctx, "k", now)
	calls["Revoke"] = tokens.Revoke(ctx, "k", now)
	_, calls["Token.RevokeGrant"] = tokens.RevokeGrant(ctx, "c", "u", now)
	_, calls["Consumer"] = consumers.Consumer(ctx, "c", now)
	calls["PutConsumer"] = consumers.PutConsumer(ctx, "c", server.Registration{Secret: "s"})
	calls["Usage.Add"] = usage.Add(ctx, []sunset.Client{{ConsumerKey: "c", Requests: 1, LastSeen: now}})
	_, calls["Usage.Clients"] = usage.Clients(ctx)
	calls["Expire"] = sqlstore.Expire(ctx, db, now)
	_, calls["Migrate"] = sqlstore.Migrate(ctx, db, true)
	for name, err := range calls {
		if !errors.Is(err, server.ErrStoreUnavailable) {
			t.Errorf("%s with the database down: %v, want an error wrapping ErrStoreUnavailable", name, err)
		}
	}
}
