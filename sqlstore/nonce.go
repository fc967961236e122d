package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// NonceStore is a [server.NonceStore] kept in a database, shared by every
// Verifier that uses the same database and tenant. It is safe for
// concurrent use.
//
// Each Use is one statement, an INSERT that, for a nonce already there,
// updates it only if it has expired, and returns a row only when it
// inserted or updated:
//
//	INSERT INTO oauth1_nonces (tenant, id, ts, expires) VALUES (…)
//	ON CONFLICT (tenant, id, ts) DO UPDATE SET expires = excluded.expires
//	WHERE oauth1_nonces.expires <= now RETURNING 1
//
// so that of any number of concurrent uses of one nonce, from any number
// of processes, exactly one is fresh and the others are refused as
// replays, without an error: the database's unique key decides, and
// neither a SELECT before the INSERT nor a duplicate-key error takes part.
// Its cost is that of one insert into the primary key, whatever the
// table holds; expired nonces are dropped apart from requests, by
// [Expire].
//
// A nonce is kept as 16 bytes of the SHA-256 of its consumer key, token,
// value and timestamp (length-prefixed, so that ("ab", "c") and ("a",
// "bc") stay apart), with its timestamp and expiry: 76 bytes a nonce on
// SQLite and 134 on PostgreSQL, table and indexes (measured with 100,000
// nonces). The Verifier keeps a nonce until its timestamp leaves the
// window (Window plus a second after the timestamp): with Expire running,
// a table holds the nonces of the last five minutes or so, 300 rows for
// each request a second (on PostgreSQL, up to an hour more, until their
// partition is dropped whole).
//
// Unlike redisstore's, a NonceStore bounds no client's share: a database
// on disk does not run out of memory the way Redis does, and a count per
// client on each request would grow with the table. A client flooding
// valid requests grows the table by its rate times the window; limit its
// rate in front of the Verifier.
type NonceStore struct {
	db     *sql.DB
	tenant string
	stmt   string
}

var _ server.NonceStore = (*NonceStore)(nil)

// NewNonceStore returns a NonceStore that keeps its nonces in db, a
// database opened with [Open] (or with the drivers it uses) and migrated,
// apart from other tenants': Verifiers that must refuse each other's
// replays share a tenant, and tenants whose consumer keys may be alike
// each have their own (such as "" for one, and a customer's name for
// each of several).
func NewNonceStore(db *sql.DB, tenant string) *NonceStore {
	return &NonceStore{db: db, tenant: tenant, stmt: dialectOf(db).q(useNonce)}
}

const useNonce = `INSERT INTO oauth1_nonces (tenant, id, ts, expires) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant, id, ts) DO UPDATE SET expires = excluded.expires
WHERE oauth1_nonces.expires <= $5 RETURNING 1`

// Use records n until expires and reports whether it was fresh: not
// recorded before, or recorded with an expiry that now has reached. Time
// is the clock the calls are passed, the Verifier's: a nonce expires when
// its timestamp leaves the Verifier's window. An error from the database
// is returned wrapping [server.ErrStoreUnavailable], never a fresh answer.
func (s *NonceStore) Use(ctx context.Context, n server.Nonce, now, expires time.Time) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.stmt, s.tenant, nonceID(n), n.Timestamp, ms(expires), ms(now)).Scan(&one)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, sql.ErrNoRows):
		return false, nil // a replay
	}
	return false, storeError(ctx, "recording a nonce", err)
}

// nonceID returns the first 16 bytes of the SHA-256 of n's fields, each
// length-prefixed, and its timestamp.
func nonceID(n server.Nonce) []byte {
	h := sha256.New()
	var num [8]byte
	for _, f := range [...]string{n.ConsumerKey, n.Token, n.Value} {
		binary.BigEndian.PutUint64(num[:], uint64(len(f)))
		h.Write(num[:])
		h.Write([]byte(f))
	}
	binary.BigEndian.PutUint64(num[:], uint64(n.Timestamp))
	h.Write(num[:])
	var sum [sha256.Size]byte
	return h.Sum(sum[:0])[:16]
}
