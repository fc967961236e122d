package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// TokenStore is a [server.TokenStore] kept in a database, shared by every
// [server.Provider] that uses the same database and tenant: it is safe
// for concurrent use, also across processes.
//
// Each token is a row of oauth1_tokens; revoking it clears its secret and
// records when, and the row stays as a tombstone for 24 hours on the
// clock [Expire] is passed, so that the token is refused with
// [server.ErrTokenRevoked] and cannot be stored again meanwhile.
//
// A grant (a client and a user) keeps its 16 newest tokens: PutToken
// inserts, then revokes the grant's tokens past the 16 newest, in one
// transaction. If MaxTokensPerClient is set, a client holds at most that
// many live tokens: past it, PutToken for a grant that holds a token
// revokes the grant's oldest to make room, and PutToken for a grant that
// holds none fails with [server.ErrStoreFull]. The count reads at most
// MaxTokensPerClient index entries; concurrent PutToken calls of one
// client or grant on PostgreSQL may pass a bound by a few, which the next
// PutToken of the grant takes back. Unlike redisstore's, the store has no
// bound on all tokens: a database on disk holds a million rows easily;
// the per-client bound keeps one client from taking it.
type TokenStore struct {
	// MaxTokensPerClient, if positive, bounds the live token credentials
	// of one client, so that one client's grants cannot grow the table
	// without bound; zero or negative means no bound. Set it before the
	// store is first used.
	MaxTokensPerClient int

	db     *sql.DB
	d      dialect
	tenant string
}

var _ server.TokenStore = (*TokenStore)(nil)

// maxTokensPerGrant is how many token credentials one grant keeps, the
// newest, as server.MemoryTokenStore and redisstore do.
const maxTokensPerGrant = 16

// revokedTTL is how long a revocation is remembered.
const revokedTTL = 24 * time.Hour

// NewTokenStore returns a TokenStore that keeps its records in db, a
// database opened with [Open] and migrated, apart from other tenants'.
func NewTokenStore(db *sql.DB, tenant string) *TokenStore {
	return &TokenStore{db: db, d: dialectOf(db), tenant: tenant}
}

var errRevoked = fmt.Errorf("sqlstore: token credentials: %w: %w", server.ErrNotFound, server.ErrTokenRevoked)

// PutToken stores t, revoking the oldest tokens of its grant past the
// bounds, in one transaction. It fails if t.Token is empty, already
// stored, or revoked less than 24 hours ago, and, for a grant that holds
// no token, with an error wrapping [server.ErrStoreFull] when the client
// holds MaxTokensPerClient tokens.
func (s *TokenStore) PutToken(ctx context.Context, t server.TokenCredentials, now time.Time) (err error) {
	if t.Token == "" {
		return errors.New("sqlstore: PutToken: empty token")
	}
	for _, f := range [...]string{t.Token, t.ConsumerKey, t.User, t.Scope} {
		if !storable(f) {
			return errors.New("sqlstore: PutToken: a field holds NUL or is not UTF-8")
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storeError(ctx, "storing token credentials", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	keep := maxTokensPerGrant
	if share := s.MaxTokensPerClient; share > 0 {
		var held, grant int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM oauth1_tokens
WHERE tenant = $1 AND consumer_key = $2 AND revoked IS NULL LIMIT $3) AS held`, s.tenant, t.ConsumerKey, share).Scan(&held); err != nil {
			return storeError(ctx, "counting token credentials", err)
		}
		if held >= share {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_tokens
WHERE tenant = $1 AND consumer_key = $2 AND usr = $3 AND revoked IS NULL`, s.tenant, t.ConsumerKey, t.User).Scan(&grant); err != nil {
				return storeError(ctx, "counting token credentials", err)
			}
			if grant == 0 {
				return fmt.Errorf("sqlstore: client %q has %d token credentials, its share: %w", t.ConsumerKey, share, server.ErrStoreFull)
			}
			// The grant makes room: it keeps as many as leave the
			// client at its share with the new one.
			keep = max(1, min(keep, grant-(held-share)))
		}
	}
	var revoked sql.NullInt64
	err = tx.QueryRowContext(ctx, `INSERT INTO oauth1_tokens (tenant, token, secret, consumer_key, usr, scope)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, token) DO NOTHING RETURNING revoked`,
		s.tenant, t.Token, []byte(t.Secret), t.ConsumerKey, t.User, t.Scope).Scan(&revoked)
	if errors.Is(err, sql.ErrNoRows) {
		if err := tx.QueryRowContext(ctx, `SELECT revoked FROM oauth1_tokens WHERE tenant = $1 AND token = $2`,
			s.tenant, t.Token).Scan(&revoked); err != nil {
			return storeError(ctx, "storing token credentials", err)
		}
		if revoked.Valid {
			return errors.New("sqlstore: PutToken: the token was revoked")
		}
		return errors.New("sqlstore: PutToken: the token is already stored")
	}
	if err != nil {
		return storeError(ctx, "storing token credentials", err)
	}
	if _, err := tx.ExecContext(ctx, s.d.q(`UPDATE oauth1_tokens SET revoked = $5, secret = substr(secret, 1, 0)
WHERE seq IN (SELECT seq FROM oauth1_tokens WHERE tenant = $1 AND consumer_key = $2 AND usr = $3 AND revoked IS NULL
	ORDER BY seq DESC LIMIT ALL OFFSET $4)`), s.tenant, t.ConsumerKey, t.User, keep, ms(now)); err != nil {
		return storeError(ctx, "revoking the grant's oldest token credentials", err)
	}
	if err := tx.Commit(); err != nil {
		return storeError(ctx, "storing token credentials", err)
	}
	return nil
}

// Token returns the token credentials for token.
func (s *TokenStore) Token(ctx context.Context, token string, _ time.Time) (server.TokenCredentials, error) {
	if !storable(token) {
		return server.TokenCredentials{}, fmt.Errorf("sqlstore: token credentials: %w", server.ErrNotFound)
	}
	var t server.TokenCredentials
	var secret []byte
	var revoked sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT token, secret, consumer_key, usr, scope, revoked FROM oauth1_tokens
WHERE tenant = $1 AND token = $2`, s.tenant, token).Scan(&t.Token, &secret, &t.ConsumerKey, &t.User, &t.Scope, &revoked)
	t.Secret = string(secret)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return server.TokenCredentials{}, fmt.Errorf("sqlstore: token credentials: %w", server.ErrNotFound)
	case err != nil:
		return server.TokenCredentials{}, storeError(ctx, "reading token credentials", err)
	case revoked.Valid:
		return server.TokenCredentials{}, errRevoked
	}
	return t, nil
}

// Revoke revokes the token credentials for token, in one UPDATE.
func (s *TokenStore) Revoke(ctx context.Context, token string, now time.Time) error {
	if !storable(token) {
		return fmt.Errorf("sqlstore: token credentials: %w", server.ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE oauth1_tokens SET revoked = $3, secret = substr(secret, 1, 0)
WHERE tenant = $1 AND token = $2 AND revoked IS NULL`, s.tenant, token, ms(now))
	if err != nil {
		return storeError(ctx, "revoking token credentials", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return storeError(ctx, "revoking token credentials", err)
	}
	if n == 1 {
		return nil
	}
	_, err = s.Token(ctx, token, now)
	if err == nil { // stored meanwhile: not this call's to revoke
		err = fmt.Errorf("sqlstore: token credentials: %w", server.ErrNotFound)
	}
	return err
}

// RevokeGrant revokes, in one UPDATE, every live token credential issued
// to the client consumerKey on behalf of user, and returns how many; none
// is an error wrapping [server.ErrNotFound].
func (s *TokenStore) RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error) {
	if !storable(consumerKey) || !storable(user) {
		return 0, fmt.Errorf("sqlstore: no token credentials of the grant: %w", server.ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE oauth1_tokens SET revoked = $4, secret = substr(secret, 1, 0)
WHERE tenant = $1 AND consumer_key = $2 AND usr = $3 AND revoked IS NULL`, s.tenant, consumerKey, user, ms(now))
	if err != nil {
		return 0, storeError(ctx, "revoking token credentials", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, storeError(ctx, "revoking token credentials", err)
	}
	if n == 0 {
		return 0, fmt.Errorf("sqlstore: no token credentials of the grant: %w", server.ErrNotFound)
	}
	return int(n), nil
}
