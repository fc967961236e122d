package sqlstore

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
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
// A store given a key still reads the secrets of rows written without
// one, and seals them when they are put again.
type ConsumerStore struct {
	db     *sql.DB
	tenant string
	aead   cipher.AEAD // nil: secrets kept as they are
}

var _ server.ConsumerStore = (*ConsumerStore)(nil)

// NewConsumerStore returns a ConsumerStore that keeps registrations in
// db, a database opened with [Open] and migrated, apart from other
// tenants'. key, if not nil, must be 32 bytes: the AES-256 key that seals
// the consumer secrets it writes and opens those it reads. A nil key
// keeps them as they are, and cannot read sealed ones.
func NewConsumerStore(db *sql.DB, tenant string, key []byte) (*ConsumerStore, error) {
	s := &ConsumerStore{db: db, tenant: tenant}
	if key != nil {
		if len(key) != 32 {
			return nil, fmt.Errorf("sqlstore: NewConsumerStore: the key is %d bytes, want 32 (AES-256)", len(key))
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		if s.aead, err = cipher.NewGCM(block); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// The first byte of a stored secret.
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
	if s.aead == nil {
		return append([]byte{secretPlain}, secret...)
	}
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(secret)+s.aead.Overhead())
	out[0] = secretSealed
	rand.Read(out[1:])
	return s.aead.Seal(out, out[1:], []byte(secret), s.additional(consumerKey))
}

// open returns the secret stored as b.
func (s *ConsumerStore) open(consumerKey string, b []byte) (string, error) {
	switch {
	case len(b) > 0 && b[0] == secretPlain:
		return string(b[1:]), nil
	case len(b) > 0 && b[0] == secretSealed && s.aead == nil:
		return "", fmt.Errorf("sqlstore: the secret of consumer %q is sealed, and the store has no key", consumerKey)
	case s.aead != nil && len(b) > 1+s.aead.NonceSize() && b[0] == secretSealed:
		n := 1 + s.aead.NonceSize()
		p, err := s.aead.Open(nil, b[1:n], b[n:], s.additional(consumerKey))
		if err != nil {
			return "", fmt.Errorf("sqlstore: the secret of consumer %q does not open with the store's key (another key, or another row's secret)", consumerKey)
		}
		return string(p), nil
	}
	return "", fmt.Errorf("sqlstore: the secret of consumer %q is malformed", consumerKey)
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
