package server

import (
	"math"
	"sync/atomic"
)

// Expiry of the in-memory nonce store: sweeps of expired nonces, apart
// from the check of a fresh one.

// sweep drops the expired nonces of every set of the holding that has
// any, and the sets left empty but keep, in shard s of store m.
func (hd *holding) sweep(s *nonceShard, m *MemoryNonceStore, keep *nonceSet, now int64) {
	next := int64(math.MaxInt64)
	for set := hd.sets; set != nil; {
		following := set.next // remove unlinks set
		if now >= set.nextSweep {
			set.sweep(now, &m.count)
		}
		if len(set.seen) == 0 && set != keep {
			s.remove(m, set)
		} else {
			next = min(next, set.nextSweep)
		}
		set = following
	}
	hd.nextSweep = next
}

// sweep drops the expired nonces of every shard, one shard at a time,
// unless no nonce has expired since the last sweep.
func (m *MemoryNonceStore) sweep(now int64) {
	if now < m.nextSweep.Load() {
		return
	}
	// Raised first, then lowered to each set's next expiry: a nonce added
	// meanwhile lowers it itself (set.use), and a concurrent sweep that
	// raises it again visits every shard after.
	m.nextSweep.Store(math.MaxInt64)
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		for _, set := range s.consumers {
			if now >= set.nextSweep {
				set.sweep(now, &m.count)
			}
			if len(set.seen) == 0 {
				s.remove(m, set)
			} else {
				m.lowerNextSweep(set.nextSweep)
			}
		}
		s.mu.Unlock()
	}
}

// remove drops set, which is empty, and its holding if it was the last of
// its sets.
func (s *nonceShard) remove(m *MemoryNonceStore, set *nonceSet) {
	hd := set.hold
	delete(s.consumers, client{hd.who.key, set.reg})
	if set.prev != nil {
		set.prev.next = set.next
	} else {
		hd.sets = set.next
	}
	if set.next != nil {
		set.next.prev = set.prev
	}
	set.prev, set.next = nil, nil
	if hd.sets == nil {
		delete(s.holdings, hd.who)
		m.clients.Add(-1)
	}
}

// lowerNextSweep makes m.nextSweep no later than t.
func (m *MemoryNonceStore) lowerNextSweep(t int64) {
	for {
		n := m.nextSweep.Load()
		if n <= t || m.nextSweep.CompareAndSwap(n, t) {
			return
		}
	}
}

// sweep drops every expired nonce, wherever it is in the insertion order,
// and notes when the next one expires: until then another sweep would free
// nothing, so a store that is full of live nonces does not sweep the shard
// on every refused request.
func (s *nonceSet) sweep(now int64, count *atomic.Int64) {
	next := int64(math.MaxInt64)
	kept := s.order[:0]
	dropped := 0
	for _, e := range s.order[s.head:] {
		if s.seen[e.h] != e.expires {
			continue // superseded: the nonce was recorded again
		}
		if e.expires <= now {
			delete(s.seen, e.h)
			dropped++
			continue
		}
		kept = append(kept, e)
		next = min(next, e.expires)
	}
	clear(s.order[len(kept):])
	s.order, s.head, s.nextSweep = kept, 0, next
	count.Add(-int64(dropped))
	s.hold.held -= int64(dropped)
}

// purge drops the expired nonces at the front of the insertion order.
func (s *nonceSet) purge(now int64, count *atomic.Int64) {
	dropped := 0
	for s.head < len(s.order) && s.order[s.head].expires <= now {
		e := s.order[s.head]
		// The map may hold a later expiry for the same hash, if the nonce was
		// recorded again after expiring; only the matching entry removes it.
		if s.seen[e.h] == e.expires {
			delete(s.seen, e.h)
			dropped++
		}
		s.head++
	}
	if dropped > 0 {
		count.Add(-int64(dropped))
		s.hold.held -= int64(dropped)
	}
	// Compact when the dead prefix is half the slice, so that order stays
	// within twice the live count.
	if s.head > 0 && s.head >= len(s.order)/2 {
		n := copy(s.order, s.order[s.head:])
		clear(s.order[n:])
		s.order = s.order[:n]
		s.head = 0
	}
}
