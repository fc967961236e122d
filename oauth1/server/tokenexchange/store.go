package tokenexchange

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// State is where the exchange of one grant stands, as [Store.Claim] finds
// it.
type State int

const (
	// Claimed: no exchange of the grant had begun, and the caller's has:
	// it must Complete or Release its claim.
	Claimed State = iota + 1
	// Busy: another exchange of the grant holds a claim that has not
	// expired. Ask again shortly.
	Busy
	// Answered: the grant was exchanged, and its answer is still kept
	// (the repeat window has not passed).
	Answered
	// Spent: the grant was exchanged, and its answer is gone.
	Spent
)

// A Claim is what [Store.Claim] found.
type Claim struct {
	State State
	// Answer is the sealed answer of an Answered exchange, as Complete
	// was given it.
	Answer []byte
	// Exchanged is when the exchange completed, for Answered and Spent.
	Exchanged time.Time
}

// A Store records which grants were exchanged, so that a grant is
// exchanged once however many instances of the provider it is sent to,
// and which 1.0a tokens exchanged are still to be revoked, so that any
// instance revokes them when they are due, on its own clock. Grants are
// named by their 1.0a token; owner names one attempt (random, chosen by
// the [Handler]). Every method is safe for concurrent use, also across
// processes for a shared store, and is atomic: of the attempts that call
// Claim at once for a token nobody holds, exactly one gets Claimed. Time
// is the clock the calls are passed (the Handler's).
//
// The answer is an OAuth 2.0 token sealed by the Handler (AES-256-GCM, its
// key derived from the 1.0a token secret, which the store never sees), so
// a store holds no usable token; it keeps the answer for window only. The
// record of an exchange is kept until its 1.0a token is revoked (Revoked)
// and for keep after, and refuses the token's grant meanwhile. A store
// keeps at most 16 exchanges of one grant (ConsumerKey and User) not yet
// revoked, as many as a [server.TokenStore] keeps live tokens of one
// grant: when Complete records a 17th, the oldest becomes due at once. A
// store that cannot be reached returns an error wrapping
// [server.ErrStoreUnavailable]; a full one, [server.ErrStoreFull]. Module
// github.com/countersign/countersign/redisstore has a Redis one,
// ExchangeStore, for several instances.
type Store interface {
	// Claim begins owner's exchange of the grant of token, unless one
	// began before: it returns Claimed if it did, and otherwise what it
	// found. A claim expires after lease, when it is neither completed
	// nor released.
	Claim(ctx context.Context, token, owner string, lease time.Duration, now time.Time) (Claim, error)
	// Complete records owner's exchange of g (named by g.Token) as done,
	// with its sealed answer, kept for window, and records g's Token,
	// ConsumerKey and User as due for revocation at revokeAt. It fails if
	// owner no longer holds the claim. The record must be durable before
	// Complete returns: the answer is handed out only then.
	Complete(ctx context.Context, g Grant, owner string, answer []byte, window time.Duration, revokeAt, now time.Time) error
	// Release drops owner's claim of the grant of token, whose exchange
	// failed, so that a retry can claim it. Without a claim of owner's it
	// does nothing.
	Release(ctx context.Context, token, owner string, now time.Time) error
	// Due returns at most limit grants whose revocation is due by now
	// (Token, ConsumerKey and User as Complete recorded them), the
	// longest due first. A grant stays due, and is returned again, until
	// Revoked is called for its token.
	Due(ctx context.Context, now time.Time, limit int) ([]Grant, error)
	// Revoked records that the 1.0a token was revoked: it is no longer
	// due, and the record of its exchange is dropped after keep (which
	// covers a request that found the token live just before). A token
	// not recorded is no error.
	Revoked(ctx context.Context, token string, keep time.Duration, now time.Time) error
}

// Bounds of a MemoryStore.
const (
	// defaultMaxGrants bounds a MemoryStore whose MaxGrants is zero:
	// about 300 MB when full, each record of a grant about 250 bytes
	// with its key and indexes.
	defaultMaxGrants = 1 << 20
	// maxPerGrant is how many exchanges of one grant (consumer key and
	// user) a store keeps unrevoked: server.MemoryTokenStore keeps as
	// many live tokens of a grant.
	maxPerGrant = 16
)

// MemoryStore is a [Store] for a single process. The zero value is ready
// to use and safe for concurrent use; it must not be copied after first
// use. An answer is dropped once its window has passed, whether or not it
// is asked for again, and a record of an exchange once its token was
// revoked and keep has passed. At most MaxGrants grants are recorded:
// past that, Claim fails with [server.ErrStoreFull] (answered 503) until
// tokens due are revoked, and the records kept go on refusing their
// grants. Handlers that share one MemoryStore share their
// Settings.Nonces too (nil does), as instances that share any Store must.
type MemoryStore struct {
	// MaxGrants bounds the grants recorded; zero means 1<<20.
	MaxGrants int

	mu     sync.Mutex
	grants map[string]*record
	// users holds the unrevoked exchanges of each grant (consumer key
	// and user), oldest first.
	users map[[2]string][]string
	// Deadlines, each queue in the order they pass (about: a Store shared
	// by Handlers with other windows sweeps a little late).
	answers, leases, records []deadline
	due                      dueHeap // the exchanged records not yet revoked
}

type record struct {
	owner     string
	until     time.Time // claim: its lease; revoked: the record's keep
	answer    []byte
	answerEnd time.Time
	exchanged time.Time // zero while claimed
	user      [2]string // consumer key and user, once exchanged
	revokeAt  time.Time // zero once revoked
	token     string
	index     int // in MemoryStore.due
}

// live reports whether r still refuses its grant at now.
func (r *record) live(now time.Time) bool {
	return !r.exchanged.IsZero() && !r.revokeAt.IsZero() || now.Before(r.until)
}

type deadline struct {
	grant string
	at    time.Time
}

// dueHeap orders the records to revoke, soonest due first.
type dueHeap []*record

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].revokeAt.Before(h[j].revokeAt) }
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *dueHeap) Push(x any) {
	r := x.(*record)
	r.index = len(*h)
	*h = append(*h, r)
}
func (h *dueHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return r
}

var _ Store = (*MemoryStore)(nil)

// sweep drops the answers and records that expired by now. m.mu is held.
func (m *MemoryStore) sweep(now time.Time) {
	for len(m.answers) > 0 && !now.Before(m.answers[0].at) {
		if r := m.grants[m.answers[0].grant]; r != nil && !now.Before(r.answerEnd) {
			clear(r.answer)
			r.answer = nil
		}
		m.answers = m.answers[1:]
	}
	m.leases = m.drop(m.leases, now)
	m.records = m.drop(m.records, now)
}

// drop removes the grants of q whose deadline passed by now, and returns
// the rest of q. m.mu is held.
func (m *MemoryStore) drop(q []deadline, now time.Time) []deadline {
	for len(q) > 0 && !now.Before(q[0].at) {
		if r := m.grants[q[0].grant]; r != nil && !r.live(now) {
			delete(m.grants, q[0].grant)
		}
		q = q[1:]
	}
	return q
}

// Claim begins owner's exchange of the grant of token, unless one began
// before.
func (m *MemoryStore) Claim(_ context.Context, token, owner string, lease time.Duration, now time.Time) (Claim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if r := m.grants[token]; r != nil && r.live(now) {
		switch {
		case r.exchanged.IsZero():
			return Claim{State: Busy}, nil
		case r.answer != nil && now.Before(r.answerEnd):
			return Claim{State: Answered, Answer: append([]byte(nil), r.answer...), Exchanged: r.exchanged}, nil
		default:
			return Claim{State: Spent, Exchanged: r.exchanged}, nil
		}
	}
	limit := m.MaxGrants
	if limit <= 0 {
		limit = defaultMaxGrants
	}
	if _, ok := m.grants[token]; !ok && len(m.grants) >= limit {
		return Claim{}, fmt.Errorf("%w: %d grants recorded", server.ErrStoreFull, limit)
	}
	if m.grants == nil {
		m.grants = make(map[string]*record)
		m.users = make(map[[2]string][]string)
	}
	r := &record{owner: owner, until: now.Add(lease), token: token}
	m.grants[token] = r
	m.leases = append(m.leases, deadline{token, r.until})
	return Claim{State: Claimed}, nil
}

// Complete records owner's exchange of g as done, and its token due for
// revocation at revokeAt.
func (m *MemoryStore) Complete(_ context.Context, g Grant, owner string, answer []byte, window time.Duration, revokeAt, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.grants[g.Token]
	if r == nil || !r.exchanged.IsZero() || r.owner != owner || !now.Before(r.until) {
		return fmt.Errorf("tokenexchange: the claim of the exchange was lost (its lease expired)")
	}
	if revokeAt.IsZero() {
		revokeAt = now // zero marks a record revoked
	}
	r.owner = ""
	r.exchanged = now
	r.answer = append([]byte(nil), answer...)
	r.answerEnd = now.Add(window)
	r.user = [2]string{g.ConsumerKey, g.User}
	r.revokeAt = revokeAt
	m.answers = append(m.answers, deadline{g.Token, r.answerEnd})
	heap.Push(&m.due, r)
	// Past maxPerGrant, the oldest exchanges of the grant are due now.
	u := append(m.users[r.user], g.Token)
	for _, old := range u[:max(len(u)-maxPerGrant, 0)] {
		if o := m.grants[old]; o != nil && now.Before(o.revokeAt) {
			o.revokeAt = now
			heap.Fix(&m.due, o.index)
		}
	}
	m.users[r.user] = u
	return nil
}

// Release drops owner's claim of the grant of token.
func (m *MemoryStore) Release(_ context.Context, token, owner string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.grants[token]; r != nil && r.exchanged.IsZero() && r.owner == owner {
		delete(m.grants, token)
	}
	return nil
}

// Due returns at most limit grants whose revocation is due by now.
func (m *MemoryStore) Due(_ context.Context, now time.Time, limit int) ([]Grant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Grant
	var popped []*record
	for len(out) < limit && m.due.Len() > 0 && !now.Before(m.due[0].revokeAt) {
		r := heap.Pop(&m.due).(*record)
		out = append(out, Grant{ConsumerKey: r.user[0], User: r.user[1], Token: r.token})
		popped = append(popped, r)
	}
	for _, r := range popped {
		heap.Push(&m.due, r) // due until Revoked
	}
	return out, nil
}

// Revoked records that the 1.0a token was revoked.
func (m *MemoryStore) Revoked(_ context.Context, token string, keep time.Duration, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.grants[token]
	if r == nil || r.exchanged.IsZero() || r.revokeAt.IsZero() {
		return nil
	}
	heap.Remove(&m.due, r.index)
	r.revokeAt = time.Time{}
	r.until = now.Add(keep)
	m.records = append(m.records, deadline{token, r.until})
	u := m.users[r.user]
	for i, t := range u {
		if t == token {
			u = append(u[:i], u[i+1:]...)
			break
		}
	}
	if len(u) == 0 {
		delete(m.users, r.user)
	} else {
		m.users[r.user] = u
	}
	return nil
}
