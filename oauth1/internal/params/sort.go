package params

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// The order of §3.4.1.3.2: by name, then by value, byte-wise on the
// encoded forms. Small sets sort by insertion, large ones by MSD radix.

// key returns the first eight bytes of p's name, big-endian and
// zero-padded, so that most comparisons in a sort are one integer compare
// (an encoded name holds no NUL, so the padding sorts right).
func (s *Set) key(p pair) uint64 {
	n := int(p.nlen) // longLen for a longer name: over 8 too
	if int(p.name)+8 <= len(s.buf) {
		k := binary.BigEndian.Uint64(s.buf[p.name:]) // past the name: masked off
		if n < 8 {
			k &^= ^uint64(0) >> (8 * n)
		}
		return k
	}
	var k uint64
	for i, c := range s.buf[p.name : int(p.name)+min(n, 8)] {
		k |= uint64(c) << (56 - 8*i)
	}
	return k
}

// Sort sorts s by name and then value, byte-wise, in their encoded forms
// (§3.4.1.3.2).
func (s *Set) Sort() {
	if s.sorted {
		return
	}
	s.sorted = true
	if len(s.pairs) > 256 {
		s.radixSort()
		return
	}
	s.insertionSort(s.pairs)
}

// insertionSort sorts a request's usual dozen or two pairs, the protocol
// parameters among them already in order, and the runs of equal keys that
// radixSort leaves.
func (s *Set) insertionSort(ps []pair) {
	if len(ps) > 48 {
		slices.SortFunc(ps, s.compare)
		return
	}
	if len(ps) <= 16 {
		s.insertionSortKeyed(ps)
		return
	}
	for i := 1; i < len(ps); i++ {
		x, kx := ps[i], s.key(ps[i])
		j := i
		for ; j > 0; j-- {
			y := ps[j-1]
			if ky := s.key(y); ky < kx || ky == kx && s.compareTail(y, x) <= 0 {
				break
			}
			ps[j] = y
		}
		ps[j] = x
	}
}

// insertionSortKeyed is insertionSort for up to 16 pairs, a request's
// usual count, with their keys computed once and moved with them rather
// than at each comparison.
func (s *Set) insertionSortKeyed(ps []pair) {
	var keys [16]uint64
	ks := keys[:len(ps)]
	for i, p := range ps {
		ks[i] = s.key(p)
	}
	for i := 1; i < len(ps); i++ {
		x, kx := ps[i], ks[i]
		j := i
		for ; j > 0; j-- {
			y, ky := ps[j-1], ks[j-1]
			if ky < kx || ky == kx && s.compareTail(y, x) <= 0 {
				break
			}
			ps[j], ks[j] = y, ky
		}
		ps[j], ks[j] = x, kx
	}
}

// radixSort sorts a large set, a form of hundreds of pairs, a byte at a
// time from the first (MSD): by name, and the pairs of each name by value.
// Each pass reads one byte of each pair, so the sort costs about the bytes
// that tell the pairs apart, whatever their names share (a shared prefix,
// one repeated name); a comparison sort recompared those bytes each time.
func (s *Set) radixSort() { s.sortFrom(s.pairs, byName, 0) }

// The field of a pair a sort pass reads: its name, or its value once the
// names are known equal.
const (
	byName = iota
	byValue
)

// field returns where p's name or value lies in s.buf. Its common case
// is inlined; a pair kept in s.long takes a call.
func (s *Set) field(p pair, f int) (start, end int) {
	if p.vlen == longLen {
		return s.longField(p, f)
	}
	start, end = int(p.name), int(p.name)+int(p.nlen)
	if f == byValue {
		start, end = end+len(sepEq), end+len(sepEq)+int(p.vlen)
	}
	return start, end
}

// longField is field for a pair kept in s.long.
func (s *Set) longField(p pair, f int) (start, end int) {
	eq, end := s.longBounds(p)
	if f == byName {
		return int(p.name), eq
	}
	return eq + len(sepEq), end
}

// keyAt returns the eight bytes of p's field f from depth on, big-endian
// and zero-padded: an encoded name or value holds no NUL, so the padding
// sorts a shorter one first, and a key whose last byte is 0 is of a field
// that ends in it.
func (s *Set) keyAt(p pair, f, depth int) uint64 {
	// field, by hand: the sort's inner loop, and field is not inlined.
	start, end := int(p.name), int(p.name)+int(p.nlen)
	if p.vlen == longLen {
		start, end = s.longField(p, f)
	} else if f == byValue {
		start, end = end+len(sepEq), end+len(sepEq)+int(p.vlen)
	}
	i := start + depth
	n := end - i
	if n <= 0 {
		return 0
	}
	if i+8 <= len(s.buf) {
		k := binary.BigEndian.Uint64(s.buf[i:]) // past the field: masked off
		if n < 8 {
			k &^= ^uint64(0) >> (8 * n)
		}
		return k
	}
	var k uint64
	for j, c := range s.buf[i:min(end, i+8)] {
		k |= uint64(c) << (56 - 8*j)
	}
	return k
}

// sortFrom sorts ps, whose fields f agree in their first depth bytes (and
// whose names are equal, for values).
func (s *Set) sortFrom(ps []pair, f, depth int) {
	for len(ps) > 48 {
		first := s.keyAt(ps[0], f, depth)
		same := ^uint64(0) // the key bits every pair shares
		for _, p := range ps[1:] {
			same &^= s.keyAt(p, f, depth) ^ first
		}
		if same != ^uint64(0) {
			s.flagSort(ps, f, depth, 56, same)
			return
		}
		// Equal keys: the next eight bytes, or the values of equal names.
		if first&0xFF != 0 {
			depth += 8
			continue
		}
		if f == byValue {
			return // equal pairs
		}
		f, depth = byValue, 0
	}
	s.insertionSort(ps) // few: the whole comparison
}

// flagSort sorts ps, whose keys at depth agree above the byte at shift and
// in the bits of same, by that byte in place (American flag sort: no
// second buffer, which for a hostile form of one-letter pairs was another
// six bytes per byte of input), then each bucket by the bytes after it.
func (s *Set) flagSort(ps []pair, f, depth, shift int, same uint64) {
	for shift >= 0 && byte(same>>shift) == 0xFF {
		shift -= 8 // a byte no key differs in
	}
	if shift < 0 {
		s.sortFrom(ps, f, depth+8)
		return
	}
	if len(ps) <= 48 {
		s.insertionSort(ps)
		return
	}
	at := depth + (56-shift)/8 // the byte sorted on, 0 past the field
	digit := func(p pair) byte {
		start, end := int(p.name), int(p.name)+int(p.nlen) // field, by hand, as in keyAt
		if p.vlen == longLen {
			start, end = s.longField(p, f)
		} else if f == byValue {
			start, end = end+len(sepEq), end+len(sepEq)+int(p.vlen)
		}
		if start+at < end {
			return s.buf[start+at]
		}
		return 0
	}
	var end, next [256]int32 // next[d]: where bucket d's next pair goes
	for _, p := range ps {
		end[digit(p)]++
	}
	var sum int32
	for d := range end {
		next[d] = sum
		sum += end[d]
		end[d] = sum
	}
	for d := range 256 {
		for next[d] < end[d] {
			p := ps[next[d]]
			// Swap p into its bucket, and what was there into its own,
			// until one belongs in bucket d.
			for e := digit(p); e != byte(d); e = digit(p) {
				ps[next[e]], p = p, ps[next[e]]
				next[e]++
			}
			ps[next[d]] = p
			next[d]++
		}
	}
	// Bucket 0 holds the fields that end before the byte sorted on: equal.
	if f == byName && end[0] > 1 {
		s.sortFrom(ps[:end[0]], byValue, 0)
	}
	for d := 1; d < 256; d++ {
		if n := end[d] - end[d-1]; n > 1 {
			s.flagSort(ps[end[d-1]:end[d]], f, depth, shift-8, same)
		}
	}
}

func (s *Set) compare(a, b pair) int {
	if ka, kb := s.key(a), s.key(b); ka != kb {
		if ka < kb {
			return -1
		}
		return 1
	}
	return s.compareTail(a, b)
}

// compareTail orders a and b, whose keys are equal.
func (s *Set) compareTail(a, b pair) int {
	// Equal keys of names of at most eight bytes are equal names.
	if a.nlen > 8 || b.nlen > 8 { // longLen for a long name
		if c := bytes.Compare(s.name(a), s.name(b)); c != 0 {
			return c
		}
	}
	return bytes.Compare(s.value(a), s.value(b))
}
