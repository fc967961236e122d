package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// revocation is remembered.
//
// Token credentials do not expire and every exchange issues new ones, so
// a store bounds those of one grant (a client and a user), keeping the
// newest: PutToken past the bound revokes the grant's oldest token, which
// is refused from then on with token_revoked, as any revocation. The bound
// is at least 16, so that a user signed in to one client on several
// devices keeps each, and at most 256, so that RevokeGrant's work stays
// small (it is 16 in MemoryTokenStore and redisstore). A user who
// authorizes again, any number of times, is never refused. A store may
// also bound the token credentials it keeps in all, and for one client if
// its operator asks for it: past such a bound, PutToken for a grant that
// holds a token revokes the grant's oldest too, and PutToken for a grant
// that holds none fails with an error wrapping [ErrStoreFull]. A store
// never drops the credentials of another grant to make room. A store that
// cannot be reached returns an error wrapping [ErrStoreUnavailable].
// Package [github.com/countersign/countersign/oauth1/oauth1test] has a
// conformance test, TestTokenStore, for implementations.
type TokenStore interface {
	// PutToken stores token credentials, revoking the oldest of their
	// grant past the store's bounds.
	PutToken(ctx context.Context, t TokenCredentials, now time.Time) error
	// Token returns the token credentials for token.
	Token(ctx context.Context, token string, now time.Time) (TokenCredentials, error)
	// Revoke removes the token credentials for token; an unknown or
	// already revoked token is an error wrapping ErrNotFound.
	Revoke(ctx context.Context, token string, now time.Time) error
	// RevokeGrant removes every token credential issued to the client
	// consumerKey on behalf of user, the grant a resource owner withdraws,
	// and returns how many it removed; when there were none, 0 and an
	// error wrapping ErrNotFound. Tokens stored while it runs may survive
	// it.
	RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error)
}

// Bounds of a MemoryTokenStore's record of revoked tokens.
const (
	revokedTTL = 24 * time.Hour
	maxRevoked = 1 << 16
)

// maxTokensPerGrant is how many token credentials a MemoryTokenStore keeps
// for one grant, the newest. redisstore's TokenStore keeps as many: change
// both together, never below the 16 that TokenStore promises.
const maxTokensPerGrant = 16

// defaultMaxTokens bounds a MemoryTokenStore's token credentials when its
// MaxTokens is zero: about 600 MB when full (560 B a token measured, with
// consumer keys and users of a few dozen bytes), room for a million grants
// of one token, or 65,536 users who each hold 16.
const defaultMaxTokens = 1 << 20

// MemoryTokenStore is an in-memory [TokenStore] for a single process. The
// zero value is ready to use and safe for concurrent use; a
// MemoryTokenStore must not be copied after first use. Token credentials
// are kept until they are revoked or the process ends. Revoked tokens are
// remembered (Token returns [ErrTokenRevoked]) for 24 hours on the clock
// the calls are passed, and only the last 65,536 of them: a loop that
// issues and revokes tokens cannot grow the store without bound.
//
// Each grant (a consumer key and a user) keeps its 16 newest token
// credentials: a 17th revokes the oldest, so that a user who authorizes a
// client again and again holds at most 16, and is never refused. At most
// MaxTokens are kept in all, and, if MaxTokensPerClient is set, at most
// that many for one consumer key. Past either, PutToken for a grant that
// holds a token revokes the grant's oldest to make room, so that a user
// who authorizes again is served even then, and PutToken for a new grant
// fails with [ErrStoreFull] (a Provider answers the token request 503,
// and the approval stays usable for a retry) until revocations free room;
// the credentials kept go on working. One client's users re-authorizing
// never fill the store: only a million grants, or users who each keep
// many devices signed in, reach the default MaxTokens.
type MemoryTokenStore struct {
	// MaxTokens bounds the token credentials kept; zero means 1<<20
	// (1,048,576), about 600 MB when full.
	MaxTokens int

	// MaxTokensPerClient, if positive, bounds the token credentials kept
	// for one consumer key, so that one client's grants cannot take the
	// whole store; zero or negative means no bound but MaxTokens.
	MaxTokensPerClient int

	mu        sync.RWMutex
	perClient map[string]int // tokens by consumer key; no zero counts
	tokens    map[string]TokenCredentials
	grants    map[grant][]string // the tokens of each grant, oldest first

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

// PutToken stores t, revoking the oldest token of its grant past the
// bounds. It fails if t.Token is empty, already stored or revoked, or,
// for a grant that holds no token, with [ErrStoreFull], naming the client
// when it is the client's share that is full.
func (m *MemoryTokenStore) PutToken(_ context.Context, t TokenCredentials, now time.Time) error {
	if t.Token == "" {
		return errors.New("oauth1: PutToken: empty token")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tokens == nil {
		m.tokens = make(map[string]TokenCredentials)
		m.grants = make(map[grant][]string)
		m.perClient = make(map[string]int)
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
	g := grant{t.ConsumerKey, t.User}
	full := func() error {
		switch {
		case len(m.grants[g]) >= maxTokensPerGrant:
			return nil // the grant's own bound: never refused
		case len(m.tokens) >= limit:
			return fmt.Errorf("%w: %d token credentials", ErrStoreFull, limit)
		case perClient > 0 && m.perClient[t.ConsumerKey] >= perClient:
			return fmt.Errorf("%w: client %q holds %d token credentials, its share", ErrStoreFull, t.ConsumerKey, m.perClient[t.ConsumerKey])
		}
		return errNotFull
	}
	for {
		err := full()
		if err == errNotFull {
			break
		}
		tokens := m.grants[g]
		if len(tokens) == 0 {
			return err
		}
		m.remove(m.tokens[tokens[0]], now) // the grant's oldest
	}
	m.perClient[t.ConsumerKey]++
	m.tokens[t.Token] = t
	m.grants[g] = append(m.grants[g], t.Token)
	return nil
}

// errNotFull says that a MemoryTokenStore has room for one more token.
var errNotFull = errors.New("not full")

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
	return nil
}

// RevokeGrant removes the token credentials of user for the client
// consumerKey, and returns how many it removed; none is an error wrapping
// [ErrNotFound].
func (m *MemoryTokenStore) RevokeGrant(_ context.Context, consumerKey, user string, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := grant{consumerKey, user}
	n := len(m.grants[g])
	for len(m.grants[g]) > 0 {
		m.remove(m.tokens[m.grants[g][0]], now)
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: no token credentials of client %q for user %q", ErrNotFound, consumerKey, user)
	}
	return n, nil
}

// remove deletes t, stored, and remembers its revocation at now, within
// the bounds: revocations older than revokedTTL, and the oldest beyond
// maxRevoked, are forgotten. m.mu must be held.
func (m *MemoryTokenStore) remove(t TokenCredentials, now time.Time) {
	delete(m.tokens, t.Token)
	g := grant{t.ConsumerKey, t.User}
	if tokens := slices.DeleteFunc(m.grants[g], func(s string) bool { return s == t.Token }); len(tokens) > 0 {
		m.grants[g] = tokens
	} else {
		delete(m.grants, g)
	}
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
