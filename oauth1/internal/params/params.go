// Package params builds the parameter part of an OAuth 1.0 signature base
// string (RFC 5849 §3.4.1.3): it collects name/value pairs from query
// strings, form bodies and the protocol parameters, normalizes them, and
// writes the base string.
//
// What it trades for speed: a [Set] keeps every pair in its final form from
// the moment it is added. In the base string each name and value is
// percent-encoded (§3.4.1.3.2) and the joined string is encoded once more as
// a whole (§3.4.1.1); on a strictly encoded string that second encoding only
// turns each "%" into "%25". So a pair is stored encoded twice, with its
// "=" and "&" separators (as "%3D" and "%26"), and writing the base string
// is one copy per pair. Sorting in that form gives the order §3.4.1.3.2
// asks for, the order of the singly encoded strings, because "%" sorts below
// every unreserved byte and the second encoding changes nothing else.
//
// The plain construction in ref_test.go (split, decode, encode, sort, join,
// encode) is the specification; FuzzMatchesReference checks that the two
// agree byte for byte. The benchmarks are in the bench module.
package params

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/percent"
)

// A Set is a multiset of parameters. The zero value is empty and ready to
// use; Reset empties it for reuse and keeps its memory.
type Set struct {
	buf    []byte // the pairs in base-string form, back to back
	pairs  []pair
	sorted bool // pairs are in §3.4.1.3.2 order
}

// A pair is buf[name:eq] "%3D" buf[eq+3:end] "%26": offsets, not slices,
// because buf grows while pairs are added; 32-bit, and addForm refuses what
// would not fit.
type pair struct{ name, eq, end int32 }

func newPair(name, eq, end int) pair {
	return pair{int32(name), int32(eq), int32(end)}
}

// key returns the first eight bytes of p's name, big-endian and
// zero-padded, so that most comparisons in a sort are one integer compare
// (an encoded name holds no NUL, so the padding sorts right).
func (s *Set) key(p pair) uint64 {
	n := int(p.eq - p.name)
	if int(p.name)+8 <= len(s.buf) {
		k := binary.BigEndian.Uint64(s.buf[p.name:]) // past the name: masked off
		if n < 8 {
			k &^= ^uint64(0) >> (8 * n)
		}
		return k
	}
	var k uint64
	for i, c := range s.buf[p.name:min(p.eq, p.name+8)] {
		k |= uint64(c) << (56 - 8*i)
	}
	return k
}

// ErrTooLarge is returned for input whose parameter string would exceed
// 2 GiB.
var ErrTooLarge = errors.New("params: parameter string too large")

const (
	sepEq  = "%3D" // "=" between a name and its value, encoded
	sepAmp = "%26" // "&" after each pair, encoded
)

// Reset empties s, keeping its memory.
func (s *Set) Reset() {
	s.buf, s.pairs, s.sorted = s.buf[:0], s.pairs[:0], false
}

// Len returns the number of pairs in s.
func (s *Set) Len() int { return len(s.pairs) }

// Memory returns the bytes that s holds, for a pool to bound.
func (s *Set) Memory() int {
	return cap(s.buf) + cap(s.pairs)*12 // a pair is three int32
}

// Add adds the pair name=value; neither is encoded yet. It returns
// ErrTooLarge, and adds nothing, when the set would exceed 2 GiB.
func (s *Set) Add(name, value string) error {
	if int64(len(s.buf))+5*int64(len(name)+len(value))+6 > math.MaxInt32 {
		return ErrTooLarge
	}
	// Count the escapes first, to grow once and copy the usual pair (keys,
	// tokens, nonces, timestamps) whole.
	en, ev := ascii.CountEscapes(name), ascii.CountEscapes(value)
	buf := slices.Grow(s.buf, len(name)+len(value)+4*(en+ev)+len(sepEq)+len(sepAmp))
	n := len(buf)
	if en == 0 {
		buf = append(buf, name...)
	} else {
		buf = appendTwice(buf, name)
	}
	eq := len(buf)
	buf = append(buf, sepEq...)
	if ev == 0 {
		buf = append(buf, value...)
	} else {
		buf = appendTwice(buf, value)
	}
	s.pairs = append(s.pairs, newPair(n, eq, len(buf)))
	s.buf = append(buf, sepAmp...)
	s.sorted = false
	return nil
}

// AddForm adds the pairs of an application/x-www-form-urlencoded string, a
// query or a form body, decoded as §3.4.1.3.1 says: split on "&" alone
// (net/url also splits on ";" in some versions), "+" is a space, empty
// pairs are skipped and a pair without "=" has an empty value. A malformed
// escape is a [*percent.EscapeError] with its offset in raw; the pairs
// before it stay added. Input that would take the set past 2 GiB is
// ErrTooLarge.
func (s *Set) AddForm(raw string) error { return addForm(s, raw) }

// AddFormBytes is AddForm for a body held in a byte slice. The Set keeps no
// reference to raw, nor does the error.
func (s *Set) AddFormBytes(raw []byte) error { return addForm(s, raw) }

func addForm[T string | []byte](s *Set, raw T) error {
	// Room for all of raw at once, so that a hostile form costs a few
	// times its size and no more: an unreserved byte takes one byte, a
	// "%XX" at most five ("%25XX"), as does any other byte ("+" or a raw
	// reserved byte) but "&", which takes none; each pair, of which there
	// are no more than "&"-separated segments that are not empty, gets
	// "%26" and at most "%3D".
	amps := int64(count(raw, '&'))
	pcts := int64(count(raw, '%'))
	escaped := int64(ascii.CountEscapes(raw)) // "&" and "%" among them
	pairs := min(amps+1, int64(len(raw))-amps)
	need := int64(len(raw)) + 4*escaped - 2*pcts - 5*amps + int64(len(sepEq)+len(sepAmp))*pairs
	if int64(len(s.buf))+need > math.MaxInt32 {
		return ErrTooLarge
	}
	buf := slices.Grow(s.buf, int(need))
	s.pairs = slices.Grow(s.pairs, int(pairs))
	s.sorted = false
	for i := 0; i < len(raw); {
		if raw[i] == '&' {
			i++
			continue
		}
		name, eq := len(buf), -1
	pair:
		for i < len(raw) {
			c := raw[i]
			i++
			if ascii.Unreserved(c) { // most bytes: first, and on their own
				buf = append(buf, c)
				continue
			}
			switch c {
			case '&':
				break pair
			case '=':
				if eq < 0 {
					eq = len(buf)
					buf = append(buf, sepEq...)
					continue
				}
			case '+':
				c = ' '
			case '%':
				hi, ok1 := ascii.Unhex(at(raw, i))
				lo, ok2 := ascii.Unhex(at(raw, i+1))
				if !ok1 || !ok2 {
					s.buf = buf
					return &percent.EscapeError{Offset: i - 1, Escape: string(raw[i-1 : min(i+2, len(raw))])}
				}
				c = hi<<4 | lo
				i += 2
			}
			buf = appendByteTwice(buf, c)
		}
		if eq < 0 {
			eq = len(buf)
			buf = append(buf, sepEq...)
		}
		s.pairs = append(s.pairs, newPair(name, eq, len(buf)))
		buf = append(buf, sepAmp...)
	}
	s.buf = buf
	return nil
}

// count returns the number of bytes c in raw.
func count[T string | []byte](raw T, c byte) int {
	switch r := any(raw).(type) {
	case string:
		return strings.Count(r, string(c))
	case []byte:
		return bytes.Count(r, []byte{c})
	}
	return 0
}

// at returns raw[i], or 0 (not a hex digit) past the end.
func at[T string | []byte](raw T, i int) byte {
	if i < len(raw) {
		return raw[i]
	}
	return 0
}

// appendTwice appends s percent-encoded twice.
func appendTwice(dst []byte, s string) []byte {
	i := 0
	for i < len(s) && ascii.Unreserved(s[i]) {
		i++
	}
	dst = append(dst, s[:i]...) // keys, tokens and nonces end here
	for ; i < len(s); i++ {
		dst = appendByteTwice(dst, s[i])
	}
	return dst
}

// appendByteTwice appends c percent-encoded twice: c itself when it is
// unreserved, otherwise "%25" and its two hex digits.
func appendByteTwice(dst []byte, c byte) []byte {
	if ascii.Unreserved(c) {
		return append(dst, c)
	}
	return append(dst, '%', '2', '5', ascii.UpperHex[c>>4], ascii.UpperHex[c&15])
}

func (s *Set) name(p pair) []byte  { return s.buf[p.name:p.eq] }
func (s *Set) value(p pair) []byte { return s.buf[int(p.eq)+len(sepEq) : p.end] }

// Delete removes every pair named name.
func (s *Set) Delete(name string) {
	var scratch [64]byte
	enc := appendTwice(scratch[:0], name)
	s.pairs = slices.DeleteFunc(s.pairs, func(p pair) bool { return bytes.Equal(s.name(p), enc) })
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

// field returns where p's name or value lies in s.buf.
func (s *Set) field(p pair, f int) (start, end int) {
	if f == byName {
		return int(p.name), int(p.eq)
	}
	return int(p.eq) + len(sepEq), int(p.end)
}

// keyAt returns the eight bytes of p's field f from depth on, big-endian
// and zero-padded: an encoded name or value holds no NUL, so the padding
// sorts a shorter one first, and a key whose last byte is 0 is of a field
// that ends in it.
func (s *Set) keyAt(p pair, f, depth int) uint64 {
	start, end := s.field(p, f)
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
		start, end := s.field(p, f)
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
	if a.eq-a.name > 8 || b.eq-b.name > 8 {
		if c := bytes.Compare(s.name(a), s.name(b)); c != 0 {
			return c
		}
	}
	return bytes.Compare(s.value(a), s.value(b))
}

// search returns the index of the first pair whose name is not below enc,
// an encoded name. s must be sorted.
func (s *Set) search(enc []byte) int {
	lo, hi := 0, len(s.pairs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(s.name(s.pairs[m]), enc) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Count returns the number of pairs named name. It sorts s first.
func (s *Set) Count(name string) int {
	s.Sort()
	var scratch [64]byte
	enc := appendTwice(scratch[:0], name)
	n := 0
	for _, p := range s.pairs[s.search(enc):] {
		if !bytes.Equal(s.name(p), enc) {
			break
		}
		n++
	}
	return n
}

// Repeated returns the first name, in sorted order, that begins with
// prefix and occurs more than once, encoded once as a header carries it.
// It sorts s first.
func (s *Set) Repeated(prefix string) (string, bool) {
	s.Sort()
	var scratch [64]byte
	enc := appendTwice(scratch[:0], prefix)
	ps := s.pairs[s.search(enc):]
	for i := 1; i < len(ps) && bytes.HasPrefix(s.name(ps[i]), enc); i++ {
		if name := s.name(ps[i]); bytes.Equal(name, s.name(ps[i-1])) {
			return string(bytes.ReplaceAll(name, []byte("%25"), []byte("%"))), true
		}
	}
	return "", false
}

// AppendBaseString sorts s and appends the signature base string of
// §3.4.1.1: the method uppercased and the base string URI, each
// percent-encoded, and the normalized parameters, joined by "&".
func (s *Set) AppendBaseString(dst []byte, method string, uri []byte) []byte {
	s.Sort()
	n := 2 + len(method) + 3*len(uri) + len(s.buf)
	dst = slices.Grow(dst, n)
	m := len(dst)
	dst = percent.AppendEncode(dst, method) // a token may hold "!", "*"...
	for i := m; i < len(dst); i++ {
		if c := dst[i]; 'a' <= c && c <= 'z' {
			dst[i] = c - ('a' - 'A')
		}
	}
	dst = append(dst, '&')
	dst = ascii.AppendEncode(dst, uri)
	dst = append(dst, '&')
	for _, p := range s.pairs {
		dst = append(dst, s.buf[p.name:int(p.end)+len(sepAmp)]...)
	}
	if len(s.pairs) > 0 {
		dst = dst[:len(dst)-len(sepAmp)]
	}
	return dst
}
