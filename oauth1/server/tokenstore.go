package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// TemporaryCredentials is a provider's record of temporary credentials
// (RFC 5849 §2.1), from their issue to their exchange for token
// credentials. fmt and slog print it with Secret and VerificationCode redacted; JSON
// is its faithful serialization.
type TemporaryCredentials struct {
	Token, Secret string    // oauth_token, oauth_token_secret
	ConsumerKey   string    // the client they were issued to
	Callback      string    // oauth_callback: an absolute URL or "oob"
	Expires       time.Time // after this they are unknown
	User          string    // set by Authorize: the resource owner who approved
	// VerificationCode is the oauth_verifier value (RFC 5849 §2.2), set
	// by Authorize.
	VerificationCode string
}

// TokenCredentials is a provider's record of token credentials (§2.3): the
// token a client signs its requests with, on behalf of User. fmt and slog
// print it with Secret redacted; JSON is its faithful serialization.
type TokenCredentials struct {
	Token, Secret string
	ConsumerKey   string
	User          string
}

// ErrTokenUsed is returned, wrapped, by a [TokenStore] for temporary
// credentials that were already authorized (by Authorize) or exchanged (by
// TakeTemporary and every later call). A [Provider] answers it with the
// token_used problem.
var ErrTokenUsed = errors.New("oauth1: token already used")

// A TokenStore keeps a provider's temporary and token credentials. Every
// method is safe for concurrent use, also across processes for a shared
// store. Unknown or expired tokens are an error wrapping [ErrNotFound].
//
// Temporary credentials live until their Expires. Once TakeTemporary has
// removed them, every method for that token fails with [ErrTokenUsed] until
// Expires, so that a second exchange is reported as such; after Expires
// the token is unknown. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestTokenStore, for implementations.
type TokenStore interface {
	// PutTemporary stores new temporary credentials until t.Expires.
	PutTemporary(ctx context.Context, t TemporaryCredentials) error
	// Temporary returns the temporary credentials for token.
	Temporary(ctx context.Context, token string) (TemporaryCredentials, error)
	// Authorize records the approving user and the verification code,
	// once: a second call for the same token fails with an error wrapping
	// ErrTokenUsed.
	Authorize(ctx context.Context, token, user, code string) error
	// TakeTemporary removes and returns the temporary credentials for
	// token, atomically: of any number of concurrent calls (also from other
	// processes) exactly one succeeds; the others get an error wrapping
	// ErrTokenUsed.
	TakeTemporary(ctx context.Context, token string) (TemporaryCredentials, error)
	// PutToken stores token credentials (no expiry).
	PutToken(ctx context.Context, t TokenCredentials) error
	// Token returns the token credentials for token.
	Token(ctx context.Context, token string) (TokenCredentials, error)
}

// defaultMaxTemporary is the capacity of a [MemoryTokenStore] whose
// MaxTemporary is zero: with the default ten-minute TemporaryTTL, room for
// a sustained 200 flows a second, and at most about 300 MB when every
// callback is as long as a Provider allows.
const defaultMaxTemporary = 1 << 17

// ErrTokenStoreFull is returned by [MemoryTokenStore.PutTemporary] when the
// store holds its maximum number of unexpired temporary credentials. A
// [Provider] answers it with 503 Service Unavailable.
var ErrTokenStoreFull = errors.New("oauth1: token store is full")

// MemoryTokenStore is an in-memory [TokenStore] for a single process. The
// zero value is ready to use and safe for concurrent use; a
// MemoryTokenStore must not be copied after first use.
//
// Expired temporary credentials are dropped as new ones are stored. At
// most MaxTemporary are kept: when that many are unexpired, PutTemporary
// fails with [ErrTokenStoreFull] rather than drop any, so that a client
// flooding the temporary credential request cannot exhaust memory. Token
// credentials are kept until the process ends.
type MemoryTokenStore struct {
	// Now is the clock that decides expiry; nil means time.Now.
	Now func() time.Time

	// MaxTemporary bounds the temporary credentials kept, exchanged ones
	// included until they expire; zero means 1<<17 (131,072).
	MaxTemporary int

	mu         sync.Mutex
	temp       map[string]*tempEntry
	tokens     map[string]TokenCredentials
	sweepSize  int       // len(temp) at which PutTemporary next drops expired entries
	nextExpiry time.Time // the earliest Expires kept at the last sweep
}

type tempEntry struct {
	t          TemporaryCredentials
	authorized bool
	used       bool // taken: kept until t.Expires to answer ErrTokenUsed
}

var _ TokenStore = (*MemoryTokenStore)(nil)

func (m *MemoryTokenStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// PutTemporary stores t until t.Expires. It fails if t.Token is empty, if
// t.Expires is zero, if the token is already stored, or with
// [ErrTokenStoreFull].
func (m *MemoryTokenStore) PutTemporary(_ context.Context, t TemporaryCredentials) error {
	if t.Token == "" || t.Expires.IsZero() {
		return errors.New("oauth1: PutTemporary: empty token or zero Expires")
	}
	limit := m.MaxTemporary
	if limit <= 0 {
		limit = defaultMaxTemporary
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.temp == nil {
		m.temp = make(map[string]*tempEntry)
	}
	// A full store sweeps again only once something in it has expired.
	if len(m.temp) >= m.sweepSize || len(m.temp) >= limit && !now.Before(m.nextExpiry) {
		m.sweep(now)
	}
	if e, ok := m.temp[t.Token]; ok && now.Before(e.t.Expires) {
		return errors.New("oauth1: PutTemporary: the token is already stored")
	}
	if len(m.temp) >= limit {
		return fmt.Errorf("%w: %d temporary credentials", ErrTokenStoreFull, limit)
	}
	m.temp[t.Token] = &tempEntry{t: t}
	return nil
}

// sweep drops expired entries. m.mu must be held.
func (m *MemoryTokenStore) sweep(now time.Time) {
	m.nextExpiry = time.Time{}
	for k, e := range m.temp {
		switch {
		case !now.Before(e.t.Expires):
			delete(m.temp, k)
		case m.nextExpiry.IsZero() || e.t.Expires.Before(m.nextExpiry):
			m.nextExpiry = e.t.Expires
		}
	}
	m.sweepSize = max(2*len(m.temp), 64) // amortized: a sweep per doubling
}

// live returns the entry for token, or an error wrapping ErrNotFound or
// ErrTokenUsed. m.mu must be held.
func (m *MemoryTokenStore) live(token string, now time.Time) (*tempEntry, error) {
	e, ok := m.temp[token]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: temporary token %q", ErrNotFound, token)
	case !now.Before(e.t.Expires):
		delete(m.temp, token)
		return nil, fmt.Errorf("%w: temporary token %q expired", ErrNotFound, token)
	case e.used:
		return nil, fmt.Errorf("%w: temporary token %q was exchanged", ErrTokenUsed, token)
	}
	return e, nil
}

// Temporary returns the temporary credentials for token.
func (m *MemoryTokenStore) Temporary(_ context.Context, token string) (TemporaryCredentials, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(token, now)
	if err != nil {
		return TemporaryCredentials{}, err
	}
	return e.t, nil
}

// Authorize records user and the verification code for token, once.
func (m *MemoryTokenStore) Authorize(_ context.Context, token, user, code string) error {
	if code == "" {
		return errors.New("oauth1: Authorize: empty verification code")
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(token, now)
	if err != nil {
		return err
	}
	if e.authorized {
		return fmt.Errorf("%w: temporary token %q is already authorized", ErrTokenUsed, token)
	}
	e.authorized, e.t.User, e.t.VerificationCode = true, user, code
	return nil
}

// TakeTemporary removes and returns the temporary credentials for token.
func (m *MemoryTokenStore) TakeTemporary(_ context.Context, token string) (TemporaryCredentials, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(token, now)
	if err != nil {
		return TemporaryCredentials{}, err
	}
	t := e.t
	// Only the token and its expiry stay, to answer ErrTokenUsed.
	e.used, e.t = true, TemporaryCredentials{Token: t.Token, Expires: t.Expires}
	return t, nil
}

// PutToken stores t. It fails if t.Token is empty or already stored.
func (m *MemoryTokenStore) PutToken(_ context.Context, t TokenCredentials) error {
	if t.Token == "" {
		return errors.New("oauth1: PutToken: empty token")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = make(map[string]TokenCredentials)
	}
	if _, ok := m.tokens[t.Token]; ok {
		return errors.New("oauth1: PutToken: the token is already stored")
	}
	m.tokens[t.Token] = t
	return nil
}

// Token returns the token credentials for token.
func (m *MemoryTokenStore) Token(_ context.Context, token string) (TokenCredentials, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[token]
	if !ok {
		return TokenCredentials{}, fmt.Errorf("%w: token %q", ErrNotFound, token)
	}
	return t, nil
}
