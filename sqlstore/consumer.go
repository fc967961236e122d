package sqlstore

import (
	"cmp"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// ConsumerStore is a [server.ConsumerStore] of client registrations kept
// in a database, for a [server.Provider]'s Consumers or a Verifier's
// store. It is safe for concurrent use.
//
// A registration is a row of oauth1_consumers: the consumer secret, the
// RSA public key (PKIX DER) and the callback schemes and callbacks (JSON
// arrays). The consumer secret is needed as it is, to check HMAC
// signatures (RFC 5849 §3.4.2 keys the HMAC with it), so it cannot be
// hashed as a password is: it is kept either as it is, readable by anyone
// who reads the database or its backups, or, given a key, sealed with
// AES-256-GCM, the tenant and consumer key bound to it as additional data
// (a sealed secret copied to another row does not open). The key is the
// operator's, kept apart from the database (a secrets manager, a file
// readable by the service only); without it the secrets cannot be read.
//
// A sealed secret names its key by the first 4 bytes of the key's
// SHA-256. To change keys, give NewConsumerStore the new key and the old
// ones, then call [ConsumerStore.Reseal], which seals every secret of the
// tenant under the new key; the old keys may then be dropped. A store
// still reads the secrets of rows written without a key, and Reseal seals
// them.
type ConsumerStore struct {
	db       *sql.DB
	tenant   string
	sealWith *sealer             // nil: secrets kept as they are
	keys     map[[4]byte]*sealer // every key given, by id
}

// A sealer is one key.
type sealer struct {
	id   [4]byte
	aead cipher.AEAD
}

var _ server.ConsumerStore = (*ConsumerStore)(nil)

// NewConsumerStore returns a ConsumerStore that keeps registrations in
// db, a database opened with [Open] and migrated, apart from other
// tenants'. key, if not nil, must be 32 bytes: the AES-256 key that seals
// the consumer secrets the store writes. Secrets sealed under key or under
// one of oldKeys (32 bytes each) are read. A nil key keeps secrets as they
// are.
func NewConsumerStore(db *sql.DB, tenant string, key []byte, oldKeys ...[]byte) (*ConsumerStore, error) {
	s := &ConsumerStore{db: db, tenant: tenant, keys: map[[4]byte]*sealer{}}
	for i, k := range append([][]byte{key}, oldKeys...) {
		if k == nil && i == 0 {
			continue
		}
		if len(k) != 32 {
			return nil, fmt.Errorf("sqlstore: NewConsumerStore: a key is %d bytes, want 32 (AES-256)", len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(k)
		sl := &sealer{id: [4]byte(sum[:4]), aead: aead}
		if i == 0 {
			s.sealWith = sl
		}
		if _, ok := s.keys[sl.id]; !ok {
			s.keys[sl.id] = sl
		}
	}
	return s, nil
}

// The first byte of a stored secret: plain, then the secret; or sealed,
// then the key's id, the nonce and the sealed secret.
const (
	secretPlain  = 0
	secretSealed = 1
)

// additional returns the additional data a secret is sealed with: the
// table, the tenant and the consumer key, length-prefixed.
func (s *ConsumerStore) additional(consumerKey string) []byte {
	b := []byte("oauth1_consumers")
	for _, f := range [...]string{s.tenant, consumerKey} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// seal returns the secret as stored.
func (s *ConsumerStore) seal(consumerKey, secret string) []byte {
	if s.sealWith == nil {
		return append([]byte{secretPlain}, secret...)
	}
	a := s.sealWith.aead
	out := make([]byte, 5+a.NonceSize(), 5+a.NonceSize()+len(secret)+a.Overhead())
	out[0] = secretSealed
	copy(out[1:5], s.sealWith.id[:])
	rand.Read(out[5:])
	return a.Seal(out, out[5:], []byte(secret), s.additional(consumerKey))
}

// current reports whether b is stored as this store writes: sealed under
// its key, or plain when it has none.
func (s *ConsumerStore) current(b []byte) bool {
	if s.sealWith == nil {
		return len(b) > 0 && b[0] == secretPlain
	}
	return len(b) > 5 && b[0] == secretSealed && [4]byte(b[1:5]) == s.sealWith.id
}

// open returns the secret stored as b.
func (s *ConsumerStore) open(consumerKey string, b []byte) (string, error) {
	switch {
	case len(b) > 0 && b[0] == secretPlain:
		return string(b[1:]), nil
	case len(b) > 5 && b[0] == secretSealed:
		sl := s.keys[[4]byte(b[1:5])]
		if sl == nil {
			return "", fmt.Errorf("sqlstore: the secret of consumer %q is sealed under a key the store was not given (id %x)", consumerKey, b[1:5])
		}
		n := 5 + sl.aead.NonceSize()
		if len(b) < n {
			break
		}
		p, err := sl.aead.Open(nil, b[5:n], b[n:], s.additional(consumerKey))
		if err != nil {
			return "", fmt.Errorf("sqlstore: the secret of consumer %q does not open (altered, or another row's)", consumerKey)
		}
		return string(p), nil
	}
	return "", fmt.Errorf("sqlstore: the secret of consumer %q is malformed", consumerKey)
}

// Reseal stores every consumer secret of the tenant as the store writes
// them (sealed under its key, or plain for a store without one), and
// returns how many it changed: after a new key, with the old ones given
// to NewConsumerStore, it leaves no secret under an old key. Each row is
// changed by one UPDATE that checks the row still holds what was read, so
// that a PutConsumer meanwhile is kept. A secret that does not open is an
// error, after the others were resealed.
func (s *ConsumerStore) Reseal(ctx context.Context) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT consumer_key, secret FROM oauth1_consumers WHERE tenant = $1`, s.tenant)
	if err != nil {
		return 0, storeError(ctx, "reading consumers", err)
	}
	type row struct {
		key    string
		secret []byte
	}
	var stale []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.secret); err != nil {
			rows.Close()
			return 0, storeError(ctx, "reading consumers", err)
		}
		if !s.current(r.secret) {
			stale = append(stale, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, storeError(ctx, "reading consumers", err)
	}
	n := 0
	var failed error
	for _, r := range stale {
		secret, err := s.open(r.key, r.secret)
		if err != nil {
			failed = cmp.Or(failed, err)
			continue
		}
		res, err := s.db.ExecContext(ctx, `UPDATE oauth1_consumers SET secret = $3 WHERE tenant = $1 AND consumer_key = $2 AND secret = $4`,
			s.tenant, r.key, s.seal(r.key, secret), r.secret)
		if err != nil {
			return n, storeError(ctx, "resealing a consumer secret", err)
		}
		if c, err := res.RowsAffected(); err == nil && c == 1 {
			n++
		}
	}
	return n, failed
}

// Consumer returns the registration for consumerKey.
func (s *ConsumerStore) Consumer(ctx context.Context, consumerKey string, _ time.Time) (server.Registration, error) {
	if !storable(consumerKey) || consumerKey == "" {
		return server.Registration{}, fmt.Errorf("%w: consumer key %q", server.ErrNotFound, consumerKey)
	}
	var secret, pub []byte
	var schemes, callbacks string
	err := s.db.QueryRowContext(ctx, `SELECT secret, public_key, callback_schemes, callbacks FROM oauth1_consumers
WHERE tenant = $1 AND consumer_key = $2`, s.tenant, consumerKey).Scan(&secret, &pub, &schemes, &callbacks)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return server.Registration{}, fmt.Errorf("%w: consumer key %q", server.ErrNotFound, consumerKey)
	case err != nil:
		return server.Registration{}, storeError(ctx, "reading a consumer", err)
	}
	var r server.Registration
	if r.Secret, err = s.open(consumerKey, secret); err != nil {
		return server.Registration{}, err
	}
	if len(pub) > 0 {
		k, err := x509.ParsePKIXPublicKey(pub)
		rk, ok := k.(*rsa.PublicKey)
		if err != nil || !ok {
			return server.Registration{}, fmt.Errorf("sqlstore: the public key of consumer %q is not an RSA key in PKIX DER", consumerKey)
		}
		r.PublicKey = rk
	}
	if json.Unmarshal([]byte(schemes), &r.CallbackSchemes) != nil || json.Unmarshal([]byte(callbacks), &r.Callbacks) != nil {
		return server.Registration{}, fmt.Errorf("sqlstore: the callbacks of consumer %q are not JSON arrays", consumerKey)
	}
	return r, nil
}

// PutConsumer registers r under consumerKey, replacing any registration
// it had.
func (s *ConsumerStore) PutConsumer(ctx context.Context, consumerKey string, r server.Registration) error {
	if consumerKey == "" || !storable(consumerKey) {
		return errors.New("sqlstore: PutConsumer: the consumer key is empty, holds NUL or is not UTF-8")
	}
	var pub []byte
	if r.PublicKey != nil {
		var err error
		if pub, err = x509.MarshalPKIXPublicKey(r.PublicKey); err != nil {
			return fmt.Errorf("sqlstore: PutConsumer: %w", err)
		}
	}
	schemes, err := json.Marshal(nonNil(r.CallbackSchemes))
	if err != nil {
		return err
	}
	callbacks, err := json.Marshal(nonNil(r.Callbacks))
	if err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO oauth1_consumers (tenant, consumer_key, secret, public_key, callback_schemes, callbacks)
VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, consumer_key) DO UPDATE SET secret = excluded.secret,
public_key = excluded.public_key, callback_schemes = excluded.callback_schemes, callbacks = excluded.callbacks`,
		s.tenant, consumerKey, s.seal(consumerKey, r.Secret), pub, string(schemes), string(callbacks)); err != nil {
		return storeError(ctx, "storing a consumer", err)
	}
	return nil
}

// DeleteConsumer removes the registration of consumerKey; an unknown key
// is an error wrapping [server.ErrNotFound]. Requests of the client are
// refused from then on; its tokens stay until revoked.
func (s *ConsumerStore) DeleteConsumer(ctx context.Context, consumerKey string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM oauth1_consumers WHERE tenant = $1 AND consumer_key = $2`, s.tenant, consumerKey)
	if err != nil {
		return storeError(ctx, "deleting a consumer", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return storeError(ctx, "deleting a consumer", err)
	} else if n == 0 {
		return fmt.Errorf("%w: consumer key %q", server.ErrNotFound, consumerKey)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
