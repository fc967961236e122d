package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// TemporaryStore is a [server.TemporaryStore] kept in a database, shared
// by every [server.Provider] that uses the same database and tenant: it
// is safe for concurrent use, also across processes.
//
// A record is one row of oauth1_temporary, whose state goes from issued
// to authorized, then exchanged (or revoked). Each step that must happen
// once is one UPDATE … WHERE state = … RETURNING, so that of any number of
// concurrent attempts exactly one succeeds and the others are told
// [server.ErrTokenUsed], without a database error: Authorize moves issued
// to authorized, TakeTemporary issued or authorized to exchanged. Expiry
// is decided on the now each call is passed, the Provider's clock; rows
// stay until [Expire] drops them, after they expire. TakeTemporary then
// clears the secret and verification code of the row it exchanged.
//
// A client holds at most MaxTemporaryPerClient unexpired temporary
// credentials; PutTemporary counts them in the same statement that
// inserts, reading at most that many index entries. The count is exact
// on SQLite, whose writes are serial, and may be passed by a few
// concurrent PutTemporary calls of one client on PostgreSQL.
type TemporaryStore struct {
	// MaxTemporaryPerClient bounds the unexpired temporary credentials
	// kept for one client (consumer key), exchanged ones included until
	// they expire; zero means 1024, as in server.MemoryTemporaryStore and
	// redisstore (1.7 flows a second per client with a Provider's default
	// ten-minute TemporaryTTL), which a release may raise. Set it before
	// the store is first used.
	MaxTemporaryPerClient int

	db     *sql.DB
	d      dialect
	tenant string
}

var _ server.TemporaryStore = (*TemporaryStore)(nil)

// defaultMaxTemporaryPerClient is the quota of a TemporaryStore whose
// MaxTemporaryPerClient is zero.
const defaultMaxTemporaryPerClient = 1024

// NewTemporaryStore returns a TemporaryStore that keeps its records in
// db, a database opened with [Open] and migrated, apart from other
// tenants'.
func NewTemporaryStore(db *sql.DB, tenant string) *TemporaryStore {
	return &TemporaryStore{db: db, d: dialectOf(db), tenant: tenant}
}

// States of a temporary record.
const (
	tempIssued = iota
	tempAuthorized
	tempExchanged
	tempRevoked
)

var errTemporaryRevoked = fmt.Errorf("sqlstore: temporary credentials: %w: %w", server.ErrNotFound, server.ErrTokenRevoked)

const putTemporary = `INSERT INTO oauth1_temporary (tenant, token, secret, consumer_key, callback, expires, usr, verifier, scope)
SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
WHERE (SELECT count(*) FROM (SELECT 1 FROM oauth1_temporary
	WHERE tenant = $1 AND consumer_key = $4 AND expires > $10 LIMIT $11) AS held) < $11
ON CONFLICT (tenant, token) DO NOTHING RETURNING 1`

// PutTemporary stores t until t.Expires. It fails if t.Token is empty or
// already stored, if t.Expires is zero, and with an error wrapping
// [server.ErrStoreFull] when t.ConsumerKey holds MaxTemporaryPerClient
// unexpired temporary credentials.
func (s *TemporaryStore) PutTemporary(ctx context.Context, t server.TemporaryCredentials, now time.Time) error {
	if t.Token == "" || t.Expires.IsZero() {
		return errors.New("sqlstore: PutTemporary: empty token or zero Expires")
	}
	for _, f := range [...]string{t.Token, t.ConsumerKey, t.Callback, t.User, t.VerificationCode, t.Scope} {
		if !storable(f) {
			return errors.New("sqlstore: PutTemporary: a field holds NUL or is not UTF-8")
		}
	}
	quota := s.MaxTemporaryPerClient
	if quota <= 0 {
		quota = defaultMaxTemporaryPerClient
	}
	var one int
	err := s.db.QueryRowContext(ctx, putTemporary, s.tenant, t.Token, []byte(t.Secret), t.ConsumerKey, t.Callback,
		ms(t.Expires), t.User, t.VerificationCode, t.Scope, ms(now), quota).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return storeError(ctx, "storing temporary credentials", err)
	}
	// Not inserted: the token is there, or the client holds its quota.
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_temporary WHERE tenant = $1 AND token = $2`,
		s.tenant, t.Token).Scan(&n); err != nil {
		return storeError(ctx, "storing temporary credentials", err)
	}
	if n > 0 {
		return errors.New("sqlstore: PutTemporary: the token is already stored")
	}
	return fmt.Errorf("sqlstore: client %q has %d unexpired temporary credentials, its quota: %w",
		t.ConsumerKey, quota, server.ErrStoreFull)
}

const temporaryColumns = `token, secret, consumer_key, callback, expires, usr, verifier, scope, state`

// scanTemporary reads a row of temporaryColumns.
func scanTemporary(row *sql.Row) (server.TemporaryCredentials, int, error) {
	var t server.TemporaryCredentials
	var expires int64
	var state int
	var secret []byte
	err := row.Scan(&t.Token, &secret, &t.ConsumerKey, &t.Callback, &expires, &t.User, &t.VerificationCode, &t.Scope, &state)
	t.Expires, t.Secret = time.UnixMilli(expires), string(secret)
	return t, state, err
}

// Temporary returns the temporary credentials for token.
func (s *TemporaryStore) Temporary(ctx context.Context, token string, now time.Time) (server.TemporaryCredentials, error) {
	if !storable(token) {
		return server.TemporaryCredentials{}, fmt.Errorf("sqlstore: temporary credentials: %w", server.ErrNotFound)
	}
	t, state, err := scanTemporary(s.db.QueryRowContext(ctx,
		`SELECT `+temporaryColumns+` FROM oauth1_temporary WHERE tenant = $1 AND token = $2`, s.tenant, token))
	if err == nil && state != tempIssued && state != tempAuthorized {
		err = s.explain(state, now, t.Expires)
		t = server.TemporaryCredentials{}
	} else if err == nil && !now.Before(t.Expires) {
		return server.TemporaryCredentials{}, fmt.Errorf("sqlstore: temporary credentials expired: %w", server.ErrNotFound)
	}
	return t, s.notFound(ctx, "reading temporary credentials", err)
}

// explain returns the error for a record in state at now.
func (s *TemporaryStore) explain(state int, now, expires time.Time) error {
	switch {
	case !now.Before(expires):
		return fmt.Errorf("sqlstore: temporary credentials expired: %w", server.ErrNotFound)
	case state == tempExchanged:
		return fmt.Errorf("sqlstore: temporary credentials were exchanged: %w", server.ErrTokenUsed)
	case state == tempRevoked:
		return errTemporaryRevoked
	case state == tempAuthorized:
		return fmt.Errorf("sqlstore: temporary credentials already authorized: %w", server.ErrTokenUsed)
	}
	return fmt.Errorf("sqlstore: temporary credentials in state %d", state)
}

// notFound maps sql.ErrNoRows to server.ErrNotFound, and a database
// error to one wrapping server.ErrStoreUnavailable.
func (s *TemporaryStore) notFound(ctx context.Context, doing string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("sqlstore: temporary credentials: %w", server.ErrNotFound)
	case errors.Is(err, server.ErrNotFound), errors.Is(err, server.ErrTokenUsed):
		return err
	}
	return storeError(ctx, doing, err)
}

// why explains, after an UPDATE that changed no row, why token was not
// in a state it could leave.
func (s *TemporaryStore) why(ctx context.Context, token string, now time.Time) error {
	var state int
	var expires int64
	err := s.db.QueryRowContext(ctx, `SELECT state, expires FROM oauth1_temporary WHERE tenant = $1 AND token = $2`,
		s.tenant, token).Scan(&state, &expires)
	if err == nil {
		err = s.explain(state, now, time.UnixMilli(expires))
	}
	return s.notFound(ctx, "reading temporary credentials", err)
}

// Authorize records a.User, a.VerificationCode and a.Scope for a.Token,
// once: one UPDATE of an issued, unexpired record.
func (s *TemporaryStore) Authorize(ctx context.Context, a server.TemporaryCredentials, now time.Time) error {
	if a.VerificationCode == "" {
		return errors.New("sqlstore: Authorize: empty verification code")
	}
	if !storable(a.Token) {
		return fmt.Errorf("sqlstore: temporary credentials: %w", server.ErrNotFound)
	}
	if !storable(a.User) || !storable(a.VerificationCode) || !storable(a.Scope) {
		return errors.New("sqlstore: Authorize: a field holds NUL or is not UTF-8")
	}
	res, err := s.db.ExecContext(ctx, `UPDATE oauth1_temporary SET usr = $3, verifier = $4, scope = $5, state = 1
WHERE tenant = $1 AND token = $2 AND state = 0 AND expires > $6`, s.tenant, a.Token, a.User, a.VerificationCode, a.Scope, ms(now))
	if err != nil {
		return storeError(ctx, "authorizing temporary credentials", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return storeError(ctx, "authorizing temporary credentials", err)
	} else if n == 1 {
		return nil
	}
	return s.why(ctx, a.Token, now)
}

// TakeTemporary returns the temporary credentials for token and marks
// them exchanged, in one UPDATE … RETURNING: of concurrent calls, one
// gets them and the others [server.ErrTokenUsed].
func (s *TemporaryStore) TakeTemporary(ctx context.Context, token string, now time.Time) (server.TemporaryCredentials, error) {
	if !storable(token) {
		return server.TemporaryCredentials{}, fmt.Errorf("sqlstore: temporary credentials: %w", server.ErrNotFound)
	}
	t, _, err := scanTemporary(s.db.QueryRowContext(ctx, `UPDATE oauth1_temporary SET state = 2
WHERE tenant = $1 AND token = $2 AND state IN (0, 1) AND expires > $3 RETURNING `+temporaryColumns, s.tenant, token, ms(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return server.TemporaryCredentials{}, s.why(ctx, token, now)
	}
	if err != nil {
		return server.TemporaryCredentials{}, storeError(ctx, "taking temporary credentials", err)
	}
	// The secret and verifier are of no more use: cleared, best effort
	// (the row goes at Expire anyway).
	s.db.ExecContext(ctx, `UPDATE oauth1_temporary SET secret = substr(secret, 1, 0), verifier = ''
WHERE tenant = $1 AND token = $2 AND state = 2`, s.tenant, token)
	return t, nil
}

// RevokeGrant revokes, in one UPDATE, the temporary credentials user
// approved for the client consumerKey that are unexpired and not yet
// exchanged, and returns how many it revoked; none is an error wrapping
// [server.ErrNotFound].
func (s *TemporaryStore) RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error) {
	if !storable(consumerKey) || !storable(user) {
		return 0, fmt.Errorf("sqlstore: no approved temporary credentials of the grant: %w", server.ErrNotFound)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE oauth1_temporary SET state = 3, secret = substr(secret, 1, 0), verifier = ''
WHERE tenant = $1 AND consumer_key = $2 AND usr = $3 AND state = 1 AND expires > $4`, s.tenant, consumerKey, user, ms(now))
	if err != nil {
		return 0, storeError(ctx, "revoking temporary credentials", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, storeError(ctx, "revoking temporary credentials", err)
	}
	if n == 0 {
		return 0, fmt.Errorf("sqlstore: no approved temporary credentials of the grant: %w", server.ErrNotFound)
	}
	return int(n), nil
}
