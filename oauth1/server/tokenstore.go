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
// print it with Secret redacted, and JSON leaves it out.
type TokenCredentials struct {
	Token       string
	Secret      string `json:"-"`
	ConsumerKey string // the client they were issued to
	User        string // the resource owner who approved
	// Scope is what the grant is for, as the owner approved it (see
	// [Provider].Scope); a store keeps it as it keeps the other fields.
	Scope string
}

// ErrTokenRevoked is returned, wrapped together with [ErrNotFound], by a
// [TokenStore] for token credentials that were revoked: a request signed
// with them is refused with token_revoked, which tells the client to send
// the user through authorization again, rather than token_rejected.
var ErrTokenRevoked = errors.New("oauth1: token revoked")

// A TokenStore keeps a provider's token credentials (RFC 5849 §2.3), from
// the exchange that issues them until they are revoked. Every method is
// safe for concurrent use, also across processes for a shared store.
//
// now is the [Provider]'s clock (its Settings' Now); token credentials
// do not expire, but a store may use it for records of its own. An unknown
// token is an error wrapping [ErrNotFound]. Once Revoke or RevokeGrant has
// returned, Token no longer finds the tokens they revoked, in any process:
// it returns an error wrapping both [ErrTokenRevoked] and ErrNotFound, and
// a request signed with one is refused with token_revoked. A store
// remembers a revocation for a bounded time, at least an hour, or a
// bounded number of revocations, so that revoking cannot grow it without
// bound; a revocation forgotten leaves an unknown token, refused with
// token_rejected. A token revoked cannot be stored again while its
// revocation is remembered. A store may bound the token credentials it
// keeps, in all and for one client: a full store fails PutToken with an
// error wrapping [ErrStoreFull], and never drops credentials it holds to
// make room, so that a full store refuses new grants and keeps serving
// the users it has. A store that cannot be reached returns an
// error wrapping [ErrStoreUnavailable]. Package
// [github.com/countersign/countersign/oauth1/oauth1test] has a conformance
// test, TestTokenStore, for implementations.
type TokenStore interface {
	// PutToken stores token credentials.
	PutToken(ctx context.Context, t TokenCredentials, now time.Time) error
	// Token returns the token credentials for token.
	Token(ctx context.Context, token string, now time.Time) (TokenCredentials, error)
	// Revoke removes the token credentials for token; an unknown or
	// already revoked token is an error wrapping ErrNotFound.
	Revoke(ctx context.Context, token string, now time.Time) error
	// RevokeGrant removes every token credential issued to the client
	// consumerKey on behalf of user, the grant a resource owner withdraws,
	// and returns how many it removed: none is no error. Tokens stored
	// while it runs may survive it.
	RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error)
}

// Bounds of a MemoryTokenStore's record of revoked tokens.
const (
	revokedTTL = 24 * time.Hour
	maxRevoked = 1 << 16
)

// Bounds of a MemoryTokenStore's token credentials when its MaxTokens and
// MaxTokensPerClient are zero: about 600 MB when full (560 B a token
// measured, with consumer keys and users of a few dozen bytes, one token a
// user), and 1/16 of that for one client.
const (
	defaultMaxTokens          = 1 << 20
	defaultMaxTokensPerClient = 1 << 16
)

// MemoryTokenStore is an in-memory [TokenStore] for a single process. The
// zero value is ready to use and safe for concurrent use; a
// MemoryTokenStore must not be copied after first use. Token credentials
// are kept until they are revoked or the process ends. Revoked tokens are
// remembered (Token returns [ErrTokenRevoked]) for 24 hours on the clock
// the calls are passed, and only the last 65,536 of them: a loop that
// issues and revokes tokens cannot grow the store without bound.
//
// At most MaxTokens token credentials are kept, and at most
// MaxTokensPerClient for one consumer key: past either, PutToken fails
// with [ErrStoreFull] (a Provider answers the token request 503) and the
// credentials kept go on working, so that a client that collects tokens
// (with a user account that approves its flows) exhausts only its share.
type MemoryTokenStore struct {
	// MaxTokens bounds the token credentials kept; zero means 1<<20
	// (1,048,576), about 600 MB when full.
	MaxTokens int

	// MaxTokensPerClient bounds the token credentials kept for one
	// consumer key; zero means 1<<16 (65,536), 1/16 of the default
	// MaxTokens, and a negative value means no bound but MaxTokens. Raise
	// it for a client with more users than that.
	MaxTokensPerClient int

	mu        sync.RWMutex
	perClient map[string]int // tokens by consumer key; no zero counts
	tokens    map[string]TokenCredentials
	grants    map[grant]map[string]struct{} // the tokens of each grant

	revoked map[string]time.Time // when each remembered token was revoked
	order   []revocation         // the same, oldest first
}

// revocation is a token and when it was revoked.
type revocation struct {
	token string
	at    time.Time
}

// grant is a client and the user who approved its tokens.
type grant struct{ consumerKey, user string }

var _ TokenStore = (*MemoryTokenStore)(nil)

// PutToken stores t. It fails if t.Token is empty, already stored or
// revoked, or with [ErrStoreFull], naming the client when it is the
// client's share that is full.
func (m *MemoryTokenStore) PutToken(_ context.Context, t TokenCredentials, now time.Time) error {
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
	if m.isRevoked(t.Token, now) {
		return errors.New("oauth1: PutToken: the token was revoked")
	}
	limit, perClient := m.MaxTokens, m.MaxTokensPerClient
	if limit <= 0 {
		limit = defaultMaxTokens
	}
	if perClient == 0 {
		perClient = defaultMaxTokensPerClient
	}
	if len(m.tokens) >= limit {
		return fmt.Errorf("%w: %d token credentials", ErrStoreFull, limit)
	}
	if n := m.perClient[t.ConsumerKey]; perClient > 0 && n >= perClient {
		return fmt.Errorf("%w: client %q holds %d token credentials, its share", ErrStoreFull, t.ConsumerKey, n)
	}
	if m.perClient == nil {
		m.perClient = make(map[string]int)
	}
	m.perClient[t.ConsumerKey]++
	m.tokens[t.Token] = t
	g := grant{t.ConsumerKey, t.User}
	if m.grants[g] == nil {
		m.grants[g] = make(map[string]struct{})
	}
	m.grants[g][t.Token] = struct{}{}
	return nil
}

// Token returns the token credentials for token.
func (m *MemoryTokenStore) Token(_ context.Context, token string, now time.Time) (TokenCredentials, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	t, ok := m.tokens[token]
	if !ok {
		return TokenCredentials{}, m.notFound(token, now)
	}
	return t, nil
}

// notFound is the error for token, which is not stored: revoked, or
// unknown. m.mu must be held.
func (m *MemoryTokenStore) notFound(token string, now time.Time) error {
	if m.isRevoked(token, now) {
		return fmt.Errorf("%w: %w: token %q", ErrNotFound, ErrTokenRevoked, token)
	}
	return fmt.Errorf("%w: token %q", ErrNotFound, token)
}

// isRevoked reports whether token was revoked less than revokedTTL before
// now. m.mu must be held.
func (m *MemoryTokenStore) isRevoked(token string, now time.Time) bool {
	at, ok := m.revoked[token]
	return ok && now.Before(at.Add(revokedTTL))
}

// Revoke removes the token credentials for token.
func (m *MemoryTokenStore) Revoke(_ context.Context, token string, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tokens[token]
	if !ok {
		return m.notFound(token, now)
	}
	m.remove(t, now)
	g := grant{t.ConsumerKey, t.User}
	if len(m.grants[g]) == 0 {
		delete(m.grants, g)
	}
	return nil
}

// RevokeGrant removes the token credentials of user for the client
// consumerKey, and returns how many it removed.
func (m *MemoryTokenStore) RevokeGrant(_ context.Context, consumerKey, user string, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := grant{consumerKey, user}
	tokens := m.grants[g]
	n := len(tokens) // remove deletes from tokens
	for token := range tokens {
		m.remove(m.tokens[token], now)
	}
	delete(m.grants, g)
	return n, nil
}

// remove deletes t, stored, and remembers its revocation at now, within
// the bounds: revocations older than revokedTTL, and the oldest beyond
// maxRevoked, are forgotten. m.mu must be held.
func (m *MemoryTokenStore) remove(t TokenCredentials, now time.Time) {
	delete(m.tokens, t.Token)
	delete(m.grants[grant{t.ConsumerKey, t.User}], t.Token)
	if m.perClient[t.ConsumerKey]--; m.perClient[t.ConsumerKey] <= 0 {
		delete(m.perClient, t.ConsumerKey)
	}
	if m.revoked == nil {
		m.revoked = make(map[string]time.Time)
	}
	for len(m.order) > 0 && (len(m.order) >= maxRevoked || !now.Before(m.order[0].at.Add(revokedTTL))) {
		if old := m.order[0]; m.revoked[old.token].Equal(old.at) { // not revoked again since
			delete(m.revoked, old.token)
		}
		m.order[0] = revocation{} // let the token go
		m.order = m.order[1:]
	}
	m.revoked[t.Token] = now
	m.order = append(m.order, revocation{t.Token, now})
}
