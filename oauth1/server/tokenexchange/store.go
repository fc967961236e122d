package tokenexchange

import (
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
// exchanged once however many instances of the provider it is sent to.
// Grants are named by their 1.0a token; owner names one attempt (random,
// chosen by the [Handler]). Every method is safe for concurrent use, also
// across processes for a shared store, and is atomic: of the attempts that
// call Claim at once for a grant nobody holds, exactly one gets Claimed.
//
// The answer is an OAuth 2.0 token sealed by the Handler (AES-256-GCM, its
// key derived from the 1.0a token secret, which the store never sees), so
// a store holds no usable token. A store keeps it for window only, and
// the record that the grant was exchanged for keep. A store that cannot
// be reached returns an error wrapping [server.ErrStoreUnavailable]; a
// full one, [server.ErrStoreFull]. Module
// github.com/countersign/countersign/redisstore has a Redis one,
// ExchangeStore, for several instances.
type Store interface {
	// Claim begins owner's exchange of grant, unless one began before:
	// it returns Claimed if it did, and otherwise what it found. A claim
	// expires after lease, when it is neither completed nor released.
	Claim(ctx context.Context, grant, owner string, lease time.Duration, now time.Time) (Claim, error)
	// Complete records owner's exchange of grant as done, with its sealed
	// answer, kept for window, and the record of the exchange, kept for
	// keep. It fails if owner no longer holds the claim.
	Complete(ctx context.Context, grant, owner string, answer []byte, window, keep time.Duration, now time.Time) error
	// Release drops owner's claim of grant, whose exchange failed, so
	// that a retry can claim it. Without a claim of owner's it does
	// nothing.
	Release(ctx context.Context, grant, owner string, now time.Time) error
}

// defaultMaxGrants bounds a MemoryStore whose MaxGrants is zero: about
// 300 MB when full, each record of a grant about 250 bytes with its key.
const defaultMaxGrants = 1 << 20

// MemoryStore is a [Store] for a single process. The zero value is ready
// to use and safe for concurrent use; it must not be copied after first
// use. Time is the clock the calls are passed (the Handler's). An answer
// is dropped once its window has passed, whether or not it is asked for
// again, and a record of an exchange once its keep has. At most MaxGrants
// grants are recorded: past that, Claim fails with [server.ErrStoreFull]
// (answered 503), and the records kept go on refusing their grants.
type MemoryStore struct {
	// MaxGrants bounds the grants recorded; zero means 1<<20.
	MaxGrants int

	mu     sync.Mutex
	grants map[string]*record
	// Deadlines, each queue in the order they pass (about: a Store shared
	// by Handlers with other windows sweeps a little late).
	answers, leases, records []deadline
}

type record struct {
	owner     string
	until     time.Time // claim: its lease; exchanged: the record's keep
	answer    []byte
	answerEnd time.Time
	exchanged time.Time // zero while claimed
}

type deadline struct {
	grant string
	at    time.Time
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
		if r := m.grants[q[0].grant]; r != nil && !now.Before(r.until) {
			delete(m.grants, q[0].grant)
		}
		q = q[1:]
	}
	return q
}

// Claim begins owner's exchange of grant, unless one began before.
func (m *MemoryStore) Claim(_ context.Context, grant, owner string, lease time.Duration, now time.Time) (Claim, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if r := m.grants[grant]; r != nil && now.Before(r.until) {
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
	if _, ok := m.grants[grant]; !ok && len(m.grants) >= limit {
		return Claim{}, fmt.Errorf("%w: %d grants recorded", server.ErrStoreFull, limit)
	}
	if m.grants == nil {
		m.grants = make(map[string]*record)
	}
	r := &record{owner: owner, until: now.Add(lease)}
	m.grants[grant] = r
	m.leases = append(m.leases, deadline{grant, r.until})
	return Claim{State: Claimed}, nil
}

// Complete records owner's exchange of grant as done.
func (m *MemoryStore) Complete(_ context.Context, grant, owner string, answer []byte, window, keep time.Duration, now time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.grants[grant]
	if r == nil || !r.exchanged.IsZero() || r.owner != owner || !now.Before(r.until) {
		return fmt.Errorf("tokenexchange: the claim of the exchange was lost (its lease expired)")
	}
	r.owner = ""
	r.exchanged = now
	r.until = now.Add(keep)
	r.answer = append([]byte(nil), answer...)
	r.answerEnd = now.Add(window)
	m.answers = append(m.answers, deadline{grant, r.answerEnd})
	m.records = append(m.records, deadline{grant, r.until})
	return nil
}

// Release drops owner's claim of grant.
func (m *MemoryStore) Release(_ context.Context, grant, owner string, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.grants[grant]; r != nil && r.exchanged.IsZero() && r.owner == owner {
		delete(m.grants, grant)
	}
	return nil
}
