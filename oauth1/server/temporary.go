package server

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// TemporaryCredentials is a provider's record of temporary credentials
// (RFC 5849 §2.1), from their issue to their exchange for token
// credentials. fmt and slog print it with Secret and VerificationCode
// redacted, and JSON leaves them out.
type TemporaryCredentials struct {
	Token       string    // oauth_token
	Secret      string    `json:"-"` // oauth_token_secret
	ConsumerKey string    // the client they were issued to
	Callback    string    // oauth_callback: an absolute URL or "oob"
	Expires     time.Time // after this they are unknown
	User        string    // set by Authorize: the resource owner who approved
	// VerificationCode is the oauth_verifier value (RFC 5849 §2.2), set
	// by Authorize.
	VerificationCode string `json:"-"`
	// Scope is what the grant is for: what the client asked for (see
	// [Provider].Scope), then, set by Authorize, what the owner approved.
	Scope string
}

// ErrTokenUsed is returned, wrapped, by a [TemporaryStore] for temporary
// credentials that were already authorized (by Authorize) or exchanged (by
// TakeTemporary and every later call). A [Provider] answers it with the
// token_used problem.
var ErrTokenUsed = errors.New("oauth1: token already used")

// A TemporaryStore keeps a provider's temporary credentials, from the
// temporary credential request (RFC 5849 §2.1) through the resource
// owner's approval (§2.2) to their exchange for token credentials (§2.3).
// Every method is safe for concurrent use, also across processes for a
// shared store.
//
// now is the [Provider]'s clock (its Settings' Now): it decides expiry,
// so that a Provider on a test clock gets what it stored. Temporary
// credentials live while now is before their Expires; after that they are
// unknown, an error wrapping [ErrNotFound]. Once TakeTemporary has removed
// them, every method for that token fails with [ErrTokenUsed] until
// Expires, so that a second exchange is reported as such. Once RevokeGrant
// has returned, the temporary credentials it revoked are gone for every
// method, in any process: an error wrapping both [ErrTokenRevoked] and
// ErrNotFound, so that the exchange is refused with token_revoked. A store that
// cannot be reached returns an error wrapping [ErrStoreUnavailable].
// Package [github.com/countersign/countersign/oauth1/oauth1test] has a
// conformance test, TestTemporaryStore, for implementations.
type TemporaryStore interface {
	// PutTemporary stores new temporary credentials until t.Expires.
	PutTemporary(ctx context.Context, t TemporaryCredentials, now time.Time) error
	// Temporary returns the temporary credentials for token.
	Temporary(ctx context.Context, token string, now time.Time) (TemporaryCredentials, error)
	// Authorize records the approval of the temporary credentials
	// a.Token: a.User, the approving user, a.VerificationCode and a.Scope
	// replace those stored (the other fields of a are not set), once: a
	// second call for the same token fails with an error wrapping
	// ErrTokenUsed.
	Authorize(ctx context.Context, a TemporaryCredentials, now time.Time) error
	// TakeTemporary removes and returns the temporary credentials for
	// token, atomically: of any number of concurrent calls (also from other
	// processes) exactly one succeeds; the others get an error wrapping
	// ErrTokenUsed.
	TakeTemporary(ctx context.Context, token string, now time.Time) (TemporaryCredentials, error)
	// RevokeGrant revokes the temporary credentials that user approved
	// for the client consumerKey and that are not yet exchanged, so that
	// a grant withdrawn ([Provider.RevokeGrant]) cannot be taken up by an
	// approval made before, and returns how many it revoked; when there
	// were none, 0 and an error wrapping ErrNotFound. Credentials approved
	// while it runs may survive it.
	RevokeGrant(ctx context.Context, consumerKey, user string, now time.Time) (int, error)
}

// defaultMaxTemporary is the capacity of a [MemoryTemporaryStore] whose
// MaxTemporary is zero: with the default ten-minute TemporaryTTL, room for
// a sustained 200 flows a second, and at most about 300 MB when every
// callback is as long as a Provider allows.
const defaultMaxTemporary = 1 << 17

// defaultMaxTemporaryPerClient is the share of a [MemoryTemporaryStore]
// one client may hold when MaxTemporaryPerClient is zero: with the default
// ten-minute TemporaryTTL, a sustained 1.7 flows a second, and 1/128 of the
// default capacity, so that one client cannot take the store. redisstore's
// TemporaryStore has the same default: change both together.
const defaultMaxTemporaryPerClient = 1024

// ErrStoreFull is returned, possibly wrapped, by a store that holds its
// maximum: by [MemoryNonceStore.Use] when the store holds its maximum
// number of unexpired nonces; by PutTemporary of [MemoryTemporaryStore] and redisstore's
// TemporaryStore when the store holds its maximum number of unexpired
// temporary credentials, or the client its share of them; by PutToken of
// [MemoryTokenStore] and redisstore's TokenStore for a new grant when the
// store holds its maximum number of token credentials, or the client its
// share. A full
// store refuses new credentials and keeps those it holds (but for a token
// store's grant, which gives up its own oldest token; see [TokenStore]).
// A [Verifier] and a [Provider] answer it with 503 Service Unavailable and
// Retry-After: 10, as they answer [ErrStoreUnavailable]: one policy for
// every store.
var ErrStoreFull = errors.New("oauth1: store is full")

// MemoryTemporaryStore is an in-memory [TemporaryStore] for a single
// process. The zero value is ready to use and safe for concurrent use; a
// MemoryTemporaryStore must not be copied after first use.
//
// Expired temporary credentials are dropped as new ones are stored, at a
// cost that does not grow with how many are kept. At most MaxTemporary are
// kept, and at most MaxTemporaryPerClient for one consumer key: past
// either, PutTemporary fails with [ErrStoreFull] rather than drop
// any, so that a client flooding the temporary credential request can
// exhaust neither memory nor the other clients' room.
type MemoryTemporaryStore struct {
	// MaxTemporary bounds the temporary credentials kept, exchanged ones
	// included until they expire; zero means 1<<17 (131,072).
	MaxTemporary int

	// MaxTemporaryPerClient bounds the temporary credentials kept for one
	// consumer key, counted as MaxTemporary counts them; zero means 1024
	// (the default of redisstore.TemporaryStore too), a sustained 1.7 flows a second with the default ten-minute
	// TemporaryTTL, and a negative value means no bound but MaxTemporary.
	// Raise it for a client that starts more flows than that.
	MaxTemporaryPerClient int

	mu         sync.Mutex
	temp       map[string]*tempEntry
	expiry     expiryHeap                        // the entries of temp, soonest Expires first
	perClient  map[string]int                    // entries of temp by client; no zero counts
	approved   map[grant]map[*tempEntry]struct{} // authorized entries not taken, by grant
	expiryWork int                               // entries expiry looked at: a test hook
}

type tempEntry struct {
	t          TemporaryCredentials
	client     string // t.ConsumerKey, kept once TakeTemporary clears t
	authorized bool
	used       bool // taken: kept until t.Expires to answer ErrTokenUsed
	revoked    bool // by RevokeGrant: kept until t.Expires to answer ErrTokenRevoked
}

// expiryHeap is a min-heap of entries by Expires: expiry looks at the
// expired entries and one more, whatever the number kept.
type expiryHeap []*tempEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].t.Expires.Before(h[j].t.Expires) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(*tempEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}

var _ TemporaryStore = (*MemoryTemporaryStore)(nil)

// PutTemporary stores t until t.Expires. It fails if t.Token is empty, if
// t.Expires is zero, if the token is already stored, or with
// [ErrStoreFull], naming the client when it is the client's share
// that is full.
func (m *MemoryTemporaryStore) PutTemporary(_ context.Context, t TemporaryCredentials, now time.Time) error {
	if t.Token == "" || t.Expires.IsZero() {
		return errors.New("oauth1: PutTemporary: empty token or zero Expires")
	}
	limit := m.MaxTemporary
	if limit <= 0 {
		limit = defaultMaxTemporary
	}
	perClient := m.MaxTemporaryPerClient
	if perClient == 0 {
		perClient = defaultMaxTemporaryPerClient
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.temp == nil {
		m.temp = make(map[string]*tempEntry)
		m.perClient = make(map[string]int)
		m.approved = make(map[grant]map[*tempEntry]struct{})
	}
	m.expire(now)
	if _, ok := m.temp[t.Token]; ok {
		return errors.New("oauth1: PutTemporary: the token is already stored")
	}
	if len(m.temp) >= limit {
		return fmt.Errorf("%w: %d temporary credentials", ErrStoreFull, limit)
	}
	if n := m.perClient[t.ConsumerKey]; perClient > 0 && n >= perClient {
		return fmt.Errorf("%w: client %q holds %d temporary credentials, its share", ErrStoreFull, t.ConsumerKey, n)
	}
	e := &tempEntry{t: t, client: t.ConsumerKey}
	m.temp[t.Token] = e
	m.perClient[e.client]++
	heap.Push(&m.expiry, e)
	return nil
}

// expire drops the expired entries, soonest first. m.mu must be held.
func (m *MemoryTemporaryStore) expire(now time.Time) {
	for len(m.expiry) > 0 {
		m.expiryWork++
		e := m.expiry[0]
		if now.Before(e.t.Expires) {
			return
		}
		heap.Pop(&m.expiry)
		delete(m.temp, e.t.Token)
		m.unlist(e)
		if m.perClient[e.client]--; m.perClient[e.client] <= 0 {
			delete(m.perClient, e.client)
		}
	}
}

// live returns the entry for token, or an error wrapping ErrNotFound or
// ErrTokenUsed. m.mu must be held.
func (m *MemoryTemporaryStore) live(token string, now time.Time) (*tempEntry, error) {
	e, ok := m.temp[token]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: temporary token %q", ErrNotFound, token)
	case !now.Before(e.t.Expires): // left for expire, which drops it with its count
		return nil, fmt.Errorf("%w: temporary token %q expired", ErrNotFound, token)
	case e.used:
		return nil, fmt.Errorf("%w: temporary token %q was exchanged", ErrTokenUsed, token)
	case e.revoked:
		return nil, fmt.Errorf("%w: %w: temporary token %q: its grant was revoked", ErrNotFound, ErrTokenRevoked, token)
	}
	return e, nil
}

// Temporary returns the temporary credentials for token.
func (m *MemoryTemporaryStore) Temporary(_ context.Context, token string, now time.Time) (TemporaryCredentials, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(token, now)
	if err != nil {
		return TemporaryCredentials{}, err
	}
	return e.t, nil
}

// Authorize records a.User, a.VerificationCode and a.Scope for a.Token,
// once.
func (m *MemoryTemporaryStore) Authorize(_ context.Context, a TemporaryCredentials, now time.Time) error {
	if a.VerificationCode == "" {
		return errors.New("oauth1: Authorize: empty verification code")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(a.Token, now)
	if err != nil {
		return err
	}
	if e.authorized {
		return fmt.Errorf("%w: temporary token %q is already authorized", ErrTokenUsed, a.Token)
	}
	e.authorized, e.t.User, e.t.VerificationCode, e.t.Scope = true, a.User, a.VerificationCode, a.Scope
	g := grant{e.client, a.User}
	if m.approved[g] == nil {
		m.approved[g] = make(map[*tempEntry]struct{})
	}
	m.approved[g][e] = struct{}{}
	return nil
}

// unlist removes e from the approved entries of its grant, if it is
// there. m.mu must be held.
func (m *MemoryTemporaryStore) unlist(e *tempEntry) {
	if !e.authorized {
		return
	}
	g := grant{e.client, e.t.User}
	delete(m.approved[g], e)
	if len(m.approved[g]) == 0 {
		delete(m.approved, g)
	}
}

// RevokeGrant revokes the temporary credentials user approved for the
// client consumerKey and that are not yet exchanged, and returns how many
// it revoked; none is an error wrapping [ErrNotFound]. They stay, without
// their secret, until they expire, to
// answer [ErrTokenRevoked].
func (m *MemoryTemporaryStore) RevokeGrant(_ context.Context, consumerKey, user string, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := grant{consumerKey, user}
	n := 0
	for e := range m.approved[g] {
		if now.Before(e.t.Expires) {
			n++
		}
		e.revoked = true
		e.t = TemporaryCredentials{Token: e.t.Token, Expires: e.t.Expires, User: user}
	}
	delete(m.approved, g)
	if n == 0 {
		return 0, fmt.Errorf("%w: no approved temporary credentials of client %q for user %q", ErrNotFound, consumerKey, user)
	}
	return n, nil
}

// TakeTemporary removes and returns the temporary credentials for token.
func (m *MemoryTemporaryStore) TakeTemporary(_ context.Context, token string, now time.Time) (TemporaryCredentials, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.live(token, now)
	if err != nil {
		return TemporaryCredentials{}, err
	}
	t := e.t
	m.unlist(e)
	// Only the token and its expiry stay, to answer ErrTokenUsed.
	e.used, e.t = true, TemporaryCredentials{Token: t.Token, Expires: t.Expires}
	return t, nil
}
