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
	long   []longPair // the pairs with a long name or value, in buf order
	sorted bool       // pairs are in §3.4.1.3.2 order
}

// A pair is a name of nlen bytes at buf[name:], "%3D", a value of vlen
// bytes and "%26": an offset, not slices, because buf grows while pairs are
// added; 32-bit, and addForm refuses what would not fit. Eight bytes, as a
// hostile form has a pair for every two bytes of body ("a&a&..."). A pair
// whose name or value has longLen bytes or more has vlen longLen, nlen at
// most longLen (exact below it, as the sort reads it), and its offsets in
// s.long.
type pair struct {
	name       uint32
	nlen, vlen uint16
}

// longLen marks the lengths of a pair kept in Set.long.
const longLen = 1<<16 - 1

// A longPair is a pair with a long name or value: buf[name:eq] "%3D"
// buf[eq+3:end] "%26".
type longPair struct{ name, eq, end int32 }

// newPair returns the pair buf[name:eq] "%3D" buf[eq+3:end] "%26", the last
// added to buf, recording it in s.long if it is long.
func (s *Set) newPair(name, eq, end int) pair {
	nlen, vlen := eq-name, end-eq-len(sepEq)
	if nlen >= longLen || vlen >= longLen {
		s.long = append(s.long, longPair{int32(name), int32(eq), int32(end)})
		return pair{uint32(name), uint16(min(nlen, longLen)), longLen}
	}
	return pair{uint32(name), uint16(nlen), uint16(vlen)}
}

// longBounds returns where the "%3D" and the "%26" of p, a pair kept in
// s.long, begin in s.buf.
func (s *Set) longBounds(p pair) (eq, end int) {
	// s.long is in the order of buf, as the pairs were added.
	lo, hi := 0, len(s.long)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if uint32(s.long[m].name) < p.name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	l := s.long[lo]
	return int(l.eq), int(l.end)
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
	s.buf, s.pairs, s.long, s.sorted = s.buf[:0], s.pairs[:0], s.long[:0], false
}

// Len returns the number of pairs in s.
func (s *Set) Len() int { return len(s.pairs) }

// Memory returns the bytes that s holds, for a pool to bound.
func (s *Set) Memory() int {
	return cap(s.buf) + cap(s.pairs)*8 + cap(s.long)*12
}

// Add adds the pair name=value; neither is encoded yet. It returns
// ErrTooLarge, and adds nothing, when the set would exceed 2 GiB.
func (s *Set) Add(name, value string) error {
	_, err := s.add(name, value, ascii.CountEscapes(name))
	return err
}

// AddUnreserved is Add for a name known to be all unreserved bytes, such
// as a protocol parameter's that its caller spells, which it does not scan.
// It reports whether value needs no escaping either, so that a caller
// writing it again may copy it as it is.
func (s *Set) AddUnreserved(name, value string) (plain bool, err error) {
	return s.add(name, value, 0)
}

// add is Add for a name with en escapes.
func (s *Set) add(name, value string, en int) (bool, error) {
	if int64(len(s.buf))+5*int64(len(name)+len(value))+6 > math.MaxInt32 {
		return false, ErrTooLarge
	}
	// Count the escapes first, to grow once and copy the usual pair (keys,
	// tokens, nonces, timestamps) whole.
	ev := ascii.CountEscapes(value)
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
	s.pairs = append(s.pairs, s.newPair(n, eq, len(buf)))
	s.buf = append(buf, sepAmp...)
	s.sorted = false
	return ev == 0, nil
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
	//
	// A short input, a query or a small body, gets eleven bytes a byte
	// instead, without the three scans: a pair of k bytes takes at most 5k
	// and 6, and k of them at least one byte and an "&" but the last.
	var need, pairs int64
	if n := int64(len(raw)); n <= maxShortForm && int64(len(s.buf))+11*n <= math.MaxInt32 {
		need, pairs = 11*n, (n+1)/2
	} else {
		amps := int64(count(raw, '&'))
		pcts := int64(count(raw, '%'))
		escaped := int64(ascii.CountEscapes(raw)) // "&" and "%" among them
		pairs = min(amps+1, int64(len(raw))-amps)
		need = int64(len(raw)) + 4*escaped - 2*pcts - 5*amps + int64(len(sepEq)+len(sepAmp))*pairs
		if int64(len(s.buf))+need > math.MaxInt32 {
			return ErrTooLarge
		}
	}
	// need bounds what is written: stores by index into its room, without
	// append's capacity check per byte.
	buf := slices.Grow(s.buf, int(need))
	out, j := buf[:cap(buf)], len(buf)
	s.pairs = slices.Grow(s.pairs, int(pairs))
	s.sorted = false
	for i := 0; i < len(raw); {
		if raw[i] == '&' {
			i++
			continue
		}
		name, eq := j, -1
	pair:
		for i < len(raw) {
			c := raw[i]
			i++
			if ascii.Unreserved(c) { // most bytes: first, and on their own
				out[j] = c
				j++
				continue
			}
			switch c {
			case '&':
				break pair
			case '=':
				if eq < 0 {
					eq = j
					j = putSep(out, j, sepEq)
					continue
				}
			case '+':
				c = ' '
			case '%':
				hi, ok1 := ascii.Unhex(at(raw, i))
				lo, ok2 := ascii.Unhex(at(raw, i+1))
				if !ok1 || !ok2 {
					s.buf = out[:j]
					return &percent.EscapeError{Offset: i - 1, Escape: string(raw[i-1 : min(i+2, len(raw))])}
				}
				c = hi<<4 | lo
				i += 2
			}
			j = putByteTwice(out, j, c)
		}
		if eq < 0 {
			eq = j
			j = putSep(out, j, sepEq)
		}
		s.pairs = append(s.pairs, s.newPair(name, eq, j))
		j = putSep(out, j, sepAmp)
	}
	s.buf = out[:j]
	return nil
}

// putSep stores sep, three bytes, at out[j:] and returns the index past it.
func putSep(out []byte, j int, sep string) int {
	o := out[j : j+3]
	o[0], o[1], o[2] = sep[0], sep[1], sep[2]
	return j + 3
}

// putByteTwice stores c percent-encoded twice at out[j:], as appendByteTwice
// appends it, and returns the index past it.
func putByteTwice(out []byte, j int, c byte) int {
	if ascii.Unreserved(c) {
		out[j] = c
		return j + 1
	}
	o := out[j : j+5]
	o[0], o[1], o[2], o[3], o[4] = '%', '2', '5', ascii.UpperHex[c>>4], ascii.UpperHex[c&15]
	return j + 5
}

// maxShortForm is the longest form addForm sizes for without scanning it.
const maxShortForm = 128

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

func (s *Set) name(p pair) []byte {
	start, end := s.field(p, byName)
	return s.buf[start:end]
}

func (s *Set) value(p pair) []byte {
	start, end := s.field(p, byValue)
	return s.buf[start:end]
}

// Delete removes every pair named name.
func (s *Set) Delete(name string) {
	var scratch [64]byte
	enc := appendTwice(scratch[:0], name)
	s.pairs = slices.DeleteFunc(s.pairs, func(p pair) bool { return bytes.Equal(s.name(p), enc) })
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
	dst = appendPrefix(dst, method, uri, len(s.buf))
	dst = s.appendPairs(dst, s.pairs)
	return trimAmp(dst, len(s.pairs) > 0)
}

// appendPrefix appends the method uppercased and the base string URI, each
// percent-encoded and followed by "&", with room for more bytes after them.
func appendPrefix(dst []byte, method string, uri []byte, more int) []byte {
	dst = appendMethod(dst, method, 3*len(uri)+more)
	dst = ascii.AppendEncode(dst, uri)
	return append(dst, '&')
}

// appendMethod appends the method uppercased and percent-encoded, and "&",
// with room for more bytes after them.
func appendMethod(dst []byte, method string, more int) []byte {
	dst = slices.Grow(dst, 2+len(method)+more)
	if upperLetters(method) { // GET, POST: as they are
		return append(append(dst, method...), '&')
	}
	m := len(dst)
	dst = percent.AppendEncode(dst, method) // a token may hold "!", "*"...
	for i := m; i < len(dst); i++ {
		if c := dst[i]; 'a' <= c && c <= 'z' {
			dst[i] = c - ('a' - 'A')
		}
	}
	return append(dst, '&')
}

// upperLetters reports whether s is all of A to Z, which neither
// uppercasing nor percent-encoding changes.
func upperLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// appendPairs appends the pairs ps of s, each followed by its "%26".
// Pairs that follow each other in buf in sorted order too, such as the
// protocol parameters added in order, are copied as one run.
func (s *Set) appendPairs(dst []byte, ps []pair) []byte {
	start, end := 0, 0
	for _, p := range ps {
		if int(p.name) != end {
			dst = append(dst, s.buf[start:end]...)
			start = int(p.name)
		}
		if p.vlen == longLen {
			_, end = s.longBounds(p)
		} else { // bounds, by hand: it is not inlined
			end = int(p.name) + int(p.nlen) + len(sepEq) + int(p.vlen)
		}
		end += len(sepAmp)
	}
	return append(dst, s.buf[start:end]...)
}

// trimAmp drops the "%26" after the last pair, if any pair was written.
func trimAmp(dst []byte, any bool) []byte {
	if any {
		dst = dst[:len(dst)-len(sepAmp)]
	}
	return dst
}
