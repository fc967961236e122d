package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// ExchangeStore is a [tokenexchange.Store] kept in a database, shared by
// the token exchange Handlers of every instance that uses the same
// database and tenant, so that a grant is exchanged once however many
// instances it is sent to. It is safe for concurrent use.
//
// A grant is one row of oauth1_exchanges. Claim is one statement, an
// INSERT that takes over a row only if its claim's lease or its keep has
// passed, and returns a row only then:
//
//	INSERT … ON CONFLICT (tenant, token) DO UPDATE SET owner = …
//	WHERE oauth1_exchanges.drop_at <= now RETURNING 1
//
// so that of concurrent claims exactly one gets [tokenexchange.Claimed],
// and the others are told, without a database error, what they found.
// Complete is one UPDATE of the claim still held by its owner, with, in
// the same transaction, the revocation of the grant's oldest exchanges
// past 16 made due at once; it returns once committed. Time is the clock
// the calls are passed (the Handler's); [Expire] drops answers past their
// window and records past their lease or keep. The store has no bound on
// the grants it records but the per-grant one: a database on disk holds
// millions.
type ExchangeStore struct {
	db     *sql.DB
	d      dialect
	tenant string
}

var _ tokenexchange.Store = (*ExchangeStore)(nil)

// NewExchangeStore returns an ExchangeStore that keeps its records in db,
// a database opened with [Open] and migrated, apart from other tenants'.
func NewExchangeStore(db *sql.DB, tenant string) *ExchangeStore {
	return &ExchangeStore{db: db, d: dialectOf(db), tenant: tenant}
}

// maxExchangesPerGrant is how many exchanges of one grant stay
// unrevoked, as tokenexchange.MemoryStore keeps.
const maxExchangesPerGrant = 16

const claimExchange = `INSERT INTO oauth1_exchanges (tenant, token, owner, drop_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant, token) DO UPDATE SET owner = excluded.owner, drop_at = excluded.drop_at,
	exchanged = NULL, answer = NULL, answer_until = NULL, consumer_key = '', usr = '', revoke_at = NULL
WHERE oauth1_exchanges.drop_at <= $5 RETURNING 1`

// Claim begins owner's exchange of the grant of token, unless one began
// before whose claim or record has not expired.
func (s *ExchangeStore) Claim(ctx context.Context, token, owner string, lease time.Duration, now time.Time) (tokenexchange.Claim, error) {
	if !storable(token) || !storable(owner) {
		return tokenexchange.Claim{}, errors.New("sqlstore: Claim: the token or owner holds NUL or is not UTF-8")
	}
	var one int
	err := s.db.QueryRowContext(ctx, claimExchange, s.tenant, token, owner, ms(now.Add(lease)), ms(now)).Scan(&one)
	if err == nil {
		return tokenexchange.Claim{State: tokenexchange.Claimed}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return tokenexchange.Claim{}, storeError(ctx, "claiming an exchange", err)
	}
	var exchanged, answerUntil sql.NullInt64
	var answer []byte
	err = s.db.QueryRowContext(ctx, `SELECT exchanged, answer, answer_until FROM oauth1_exchanges
WHERE tenant = $1 AND token = $2`, s.tenant, token).Scan(&exchanged, &answer, &answerUntil)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// Released or dropped since the INSERT: ask again shortly.
		return tokenexchange.Claim{State: tokenexchange.Busy}, nil
	case err != nil:
		return tokenexchange.Claim{}, storeError(ctx, "reading an exchange", err)
	case !exchanged.Valid:
		return tokenexchange.Claim{State: tokenexchange.Busy}, nil
	case answer != nil && answerUntil.Valid && ms(now) < answerUntil.Int64:
		return tokenexchange.Claim{State: tokenexchange.Answered, Answer: answer, Exchanged: time.UnixMilli(exchanged.Int64)}, nil
	}
	return tokenexchange.Claim{State: tokenexchange.Spent, Exchanged: time.UnixMilli(exchanged.Int64)}, nil
}

// Complete records owner's exchange of g as done, with its sealed
// answer, kept for window, and g's token due for revocation at revokeAt;
// the grant's oldest unrevoked exchanges past 16 become due at once. It
// fails if owner no longer holds the claim.
func (s *ExchangeStore) Complete(ctx context.Context, g tokenexchange.Grant, owner string, answer []byte, window time.Duration, revokeAt, now time.Time) (err error) {
	if !storable(g.Token) || !storable(g.ConsumerKey) || !storable(g.User) || !storable(owner) {
		return errors.New("sqlstore: Complete: a field holds NUL or is not UTF-8")
	}
	if revokeAt.IsZero() {
		revokeAt = now
	}
	if answer == nil {
		answer = []byte{}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storeError(ctx, "completing an exchange", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	res, err := tx.ExecContext(ctx, `UPDATE oauth1_exchanges SET owner = '', drop_at = NULL, exchanged = $4,
	answer = $5, answer_until = $6, consumer_key = $7, usr = $8, revoke_at = $9
WHERE tenant = $1 AND token = $2 AND owner = $3 AND exchanged IS NULL AND drop_at > $4`,
		s.tenant, g.Token, owner, ms(now), answer, ms(now.Add(window)), g.ConsumerKey, g.User, ms(revokeAt))
	if err != nil {
		return storeError(ctx, "completing an exchange", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return storeError(ctx, "completing an exchange", err)
	} else if n != 1 {
		return errors.New("sqlstore: the claim of the exchange was lost (its lease expired)")
	}
	if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE oauth1_exchanges SET revoke_at = $5
WHERE seq IN (SELECT seq FROM oauth1_exchanges WHERE tenant = $1 AND consumer_key = $2 AND usr = $3 AND revoke_at IS NOT NULL
	ORDER BY exchanged DESC, seq DESC LIMIT ALL OFFSET $4) AND revoke_at > $5`),
		s.tenant, g.ConsumerKey, g.User, maxExchangesPerGrant, ms(now)); err != nil {
		return storeError(ctx, "making the grant's oldest exchanges due", err)
	}
	if err := tx.Commit(); err != nil {
		return storeError(ctx, "completing an exchange", err)
	}
	return nil
}

// Release drops owner's claim of the grant of token; without a claim of
// owner's it does nothing.
func (s *ExchangeStore) Release(ctx context.Context, token, owner string, _ time.Time) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM oauth1_exchanges
WHERE tenant = $1 AND token = $2 AND owner = $3 AND exchanged IS NULL`, s.tenant, token, owner); err != nil {
		return storeError(ctx, "releasing an exchange", err)
	}
	return nil
}

// Due returns at most limit grants whose revocation is due by now, the
// longest due first.
func (s *ExchangeStore) Due(ctx context.Context, now time.Time, limit int) ([]tokenexchange.Grant, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT token, consumer_key, usr FROM oauth1_exchanges
WHERE tenant = $1 AND revoke_at IS NOT NULL AND revoke_at <= $2 ORDER BY revoke_at, seq LIMIT $3`, s.tenant, ms(now), limit)
	if err != nil {
		return nil, storeError(ctx, "listing the exchanges due", err)
	}
	defer rows.Close()
	var out []tokenexchange.Grant
	for rows.Next() {
		var g tokenexchange.Grant
		if err := rows.Scan(&g.Token, &g.ConsumerKey, &g.User); err != nil {
			return nil, storeError(ctx, "listing the exchanges due", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, storeError(ctx, "listing the exchanges due", err)
	}
	return out, nil
}

// Revoked records that the 1.0a token was revoked: it is no longer due,
// and its record is dropped by Expire once keep has passed.
func (s *ExchangeStore) Revoked(ctx context.Context, token string, keep time.Duration, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE oauth1_exchanges SET revoke_at = NULL, answer = NULL, drop_at = $3
WHERE tenant = $1 AND token = $2 AND exchanged IS NOT NULL AND revoke_at IS NOT NULL`, s.tenant, token, ms(now.Add(keep))); err != nil {
		return storeError(ctx, "recording a revocation", err)
	}
	return nil
}
