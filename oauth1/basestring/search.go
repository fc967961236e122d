package basestring

import (
	"container/heap"
	"crypto"
	"encoding/base64"
	"hash"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// This file orders the sets of bugs that Reproduce and ReproduceWide try:
// each bug alone, likeliest first, then the sets of the bugs that change
// the request, in the order of how often real clients make them together,
// taking the bugs as independent.

// ReproduceWide is [Reproduce] for an operator who asked for it: it tries
// the same bugs, and then far more sets of them (up to five at once, the
// likeliest first), for at most 2,048 HMACs and 48 MiB of work counted as
// Reproduce counts it: about 100 ms of CPU where HMAC-SHA512 hashes 500 MB
// a second, whatever the request (BenchmarkReproduceCrafted). Like
// Reproduce it names a bug only when a variant's HMAC is the signature,
// and tries nothing for a base string, or a query and form body, over 8
// KiB. It costs up to 32 times what Reproduce does: run it when a person
// debugs a refusal (as "oauth1 verify" does), never on every refusal, nor
// on one a client can repeat at will.
func ReproduceWide(base, signature, method string, key Key, sent Request) (m Mistake, signed string, ok bool) {
	m, signed, ok, _ = reproduceWithin(wideBudget, base, signature, method, key, sent)
	return m, signed, ok
}

// A budget bounds one search.
type budget struct {
	hmacs  int   // HMACs, each over a distinct variant
	builds int   // variants built, distinct or not
	work   int64 // the work of building and signing them, in bytes hashed (work.go); 0 for mac.ReproduceWork's
	size   int   // the most bugs in a set
}

// The two budgets: the Verifier's on a live refusal, within its diagnosis
// budget (server charges mac.ReproduceWork, the work limit of this one),
// and an operator's, who asked for it, at about 100 ms of CPU at most.
// Building a variant costs more than its HMAC: the work counted (work.go)
// bounds both.
var (
	liveBudget = budget{hmacs: maxReproduceTries, builds: 160, size: 3}
	wideBudget = budget{hmacs: 2048, builds: 6144, work: maxWideWork, size: 5}
)

// A search signs the variants of one refused request in order, within a
// budget, until one signs to the signature.
type search struct {
	r      *rebuild
	base   string
	t      *hmacTry
	h      crypto.Hash
	key    string
	b      budget
	tried  map[string]bool
	builds int
	mac    hash.Hash      // keyed once, and reset for each variant
	limit  int64          // the work it may do
	next   int64          // the most one try has cost: what the next may cost
	v      *vocabulary    // the bugs tried, and their weights
	single map[bug]string // the variants of the bugs alone, built to find those that change it
}

// found is what a search returns on a match.
type found struct {
	bs     bug
	signed string
	form   sentForm
}

// try builds and signs the variant of bugs bs, and reports whether the
// budget is spent (stop), whether it changes the base string (changes),
// and a match.
func (s *search) try(bs bug) (stop, changes bool, f *found) {
	// Room is kept for the builds that name the bugs of a match (mistake).
	if s.t.n >= s.b.hmacs || s.builds >= s.b.builds || s.r.work+int64(1+s.b.size)*s.next > s.limit {
		return true, false, nil
	}
	w := s.r.work
	defer func() { s.next = max(s.next, s.r.work-w) }()
	v, built := s.single[bs] // a bug alone, built by changes
	if built {
		delete(s.single, bs)
	} else {
		s.builds++
		var ok bool
		if v, ok = s.r.build(bs); !ok || v == s.base || len(v) > maxVariantBytes {
			return false, false, nil
		}
	}
	if s.tried[v] {
		return false, true, nil
	}
	s.tried[v] = true
	if s.mac == nil {
		m, err := mac.New(s.h, []byte(s.key))
		if err != nil {
			return true, true, nil // FIPS 140-only mode refuses the hash or key
		}
		s.mac = m
	}
	s.mac.Reset()
	s.mac.Write([]byte(v))
	s.r.work += int64(len(v)) + workHMAC
	sum := s.mac.Sum(nil)
	s.t.n++
	mac.Diagnosed.Add(1)
	if form, ok := s.t.match(sum); ok {
		return true, true, &found{bs, v, form}
	}
	return false, true, nil
}

// run finds the bugs that change the base string alone (building their
// variants, signing none), then tries the sets of them, each bug alone
// among them, the likeliest first: a rare bug alone waits for the likely
// pairs, so that a larger vocabulary spends no HMAC on its rare bugs
// first.
func (s *search) run() *found {
	var active []bug
	for _, b := range s.v.order {
		if s.changes(b) || s.r.modifies(b) {
			active = append(active, b)
		}
	}
	// Best first: from a set whose likeliest-last member is active[i], the
	// next ones add active[i+1] or put it in active[i]'s place. With every
	// weight under 1, this lists each set once, none before a likelier one.
	q := &setQueue{}
	if len(active) > 0 {
		heap.Push(q, set{bs: active[0], last: 0, w: s.v.weight(active[0])})
	}
	for q.Len() > 0 {
		c := heap.Pop(q).(set)
		stop, _, f := s.try(c.bs)
		if f != nil || stop {
			return f
		}
		if i := c.last + 1; i < len(active) {
			if bitCount(c.bs) < s.b.size {
				heap.Push(q, set{bs: c.bs | active[i], last: i, w: c.w * s.v.weight(active[i])})
			}
			heap.Push(q, set{bs: c.bs&^active[c.last] | active[i], last: i, w: c.w / s.v.weight(active[c.last]) * s.v.weight(active[i])})
		}
	}
	return nil
}

// changes reports whether bug b alone changes the base string, building
// its variant within half the budget but signing nothing; try signs it
// later, in its turn, without building it again. The other half is kept
// for trying: on a large request the rarest bugs are not tried at all.
func (s *search) changes(b bug) bool {
	if 2*s.builds >= s.b.builds || s.r.work+int64(1+s.b.size)*s.next > s.limit/2 {
		return false
	}
	s.builds++
	w := s.r.work
	v, ok := s.r.build(b)
	s.next = max(s.next, s.r.work-w)
	if !ok || v == s.base || len(v) > maxVariantBytes {
		return false
	}
	if s.single == nil {
		s.single = map[bug]string{}
	}
	s.single[b] = v
	return true
}

// modifies reports whether b is a bug that changes nothing alone but
// changes how other bugs apply to this request: bugQueryOnly, for a
// request with both a query and a form body.
func (r *rebuild) modifies(b bug) bool {
	return b == bugQueryOnly && r.query != "" && r.form != ""
}

func bitCount(b bug) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// A set of bugs in the queue, with its weight and the index in the active
// bugs of its last one.
type set struct {
	bs   bug
	last int
	w    float64
}

type setQueue []set

func (q setQueue) Len() int { return len(q) }
func (q setQueue) Less(i, j int) bool {
	if q[i].w != q[j].w {
		return q[i].w > q[j].w
	}
	return q[i].bs < q[j].bs
}
func (q setQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *setQueue) Push(x any)   { *q = append(*q, x.(set)) }
func (q *setQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// bodyHash is the oauth_body_hash of form with hash h (§3.1 of the body
// hash extension), or "" when FIPS 140-only mode refuses h.
func bodyHash(h crypto.Hash, form string) string {
	if mac.CheckHash(h) != nil || !h.Available() {
		return ""
	}
	d := h.New()
	d.Write([]byte(form))
	return base64.StdEncoding.EncodeToString(d.Sum(nil))
}
