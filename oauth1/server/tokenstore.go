package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// TokenCredentials is a provider's record of token credentials (§2.3): the
// token a client signs its requests with, on behalf of User. fmt and slog
// print it with Secret redacted; JSON is its faithful serialization.
type TokenCredentials struct {
	Token, Secret string
	ConsumerKey   string
	User          string
}

// A TokenStore keeps a provider's token credentials (RFC 5849 §2.3), from
// the exchange that issues them until they are revoked. Every method is
// safe for concurrent use, also across processes for a shared store.
//
// now is the [Provider]'s clock (its Verifier's Now); token credentials
// do not expire, but a store may use it for records of its own. Unknown
// and revoked tokens are an error wrapping [ErrNotFound]: once Revoke or
// RevokeGrant has returned, Token no longer finds the tokens they revoked,
// in any process, and a request signed with one is refused with
// token_rejected. A store that cannot be reached returns an error wrapping
// [ErrStoreUnavailable]. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestTokenStore, for implementations.
type TokenStore interface {
	// PutToken stores token credentials.
	PutToken(ctx context.Context, t TokenCredentials, now time.Time) error
	// Token returns the token credentials for token.
	Token(ctx context.Context, token string, now time.Time) (TokenCredentials, error)
	// Revoke removes the token credentials for token; an unknown token is
	// an error wrapping ErrNotFound.
	Revoke(ctx context.Context, token string, now time.Time) error
	// RevokeGrant removes every token credential issued to the client
	// consumerKey on behalf of user, the grant a resource owner withdraws,
	// and returns how many it removed: none is no error. Tokens stored
	// while it runs may survive it.
	RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error)
}

// MemoryTokenStore is an in-memory [TokenStore] for a single process. The
// zero value is ready to use and safe for concurrent use; a
// MemoryTokenStore must not be copied after first use. Token credentials
// are kept until they are revoked or the process ends.
type MemoryTokenStore struct {
	mu     sync.RWMutex
	tokens map[string]TokenCredentials
	grants map[grant]map[string]struct{} // the tokens of each grant
}

// grant is a client and the user who approved its tokens.
type grant struct{ consumerKey, user string }

var _ TokenStore = (*MemoryTokenStore)(nil)

// PutToken stores t. It fails if t.Token is empty or already stored.
func (m *MemoryTokenStore) PutToken(_ context.Context, t TokenCredentials, _ time.Time) error {
	if t.Token == "" {
		return errors.New("oauth1: PutToken: empty token")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = make(map[string]TokenCredentials)
		m.grants = make(map[grant]map[string]struct{})
	}
	if _, ok := m.tokens[t.Token]; ok {
		return errors.New("oauth1: PutToken: the token is already stored")
	}
	m.tokens[t.Token] = t
	g := grant{t.ConsumerKey, t.User}
	if m.grants[g] == nil {
		m.grants[g] = make(map[string]struct{})
	}
	m.grants[g][t.Token] = struct{}{}
	return nil
}

// Token returns the token credentials for token.
func (m *MemoryTokenStore) Token(_ context.Context, token string, _ time.Time) (TokenCredentials, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.tokens[token]
	if !ok {
		return TokenCredentials{}, fmt.Errorf("%w: token %q", ErrNotFound, token)
	}
	return t, nil
}

// Revoke removes the token credentials for token.
func (m *MemoryTokenStore) Revoke(_ context.Context, token string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[token]
	if !ok {
		return fmt.Errorf("%w: token %q", ErrNotFound, token)
	}
	delete(m.tokens, token)
	g := grant{t.ConsumerKey, t.User}
	if delete(m.grants[g], token); len(m.grants[g]) == 0 {
		delete(m.grants, g)
	}
	return nil
}

// RevokeGrant removes the token credentials of user for the client
// consumerKey, and returns how many it removed.
func (m *MemoryTokenStore) RevokeGrant(_ context.Context, consumerKey, user string, _ time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := grant{consumerKey, user}
	tokens := m.grants[g]
	for token := range tokens {
		delete(m.tokens, token)
	}
	delete(m.grants, g)
	return len(tokens), nil
}
