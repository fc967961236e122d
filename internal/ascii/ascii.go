// Package ascii holds the byte classes that the percent and oauth1 packages
// share, so that each fact is written once: the unreserved set of RFC 3986
// §2.3, hex digits, and the token characters of RFC 9110 §5.6.2.
package ascii

import (
	"encoding/binary"
	"slices"
	"sync"
)

// UpperHex is the digit alphabet of a percent-encoding (RFC 5849 §3.6 asks
// for uppercase).
const UpperHex = "0123456789ABCDEF"

// Unreserved reports whether c is in the RFC 3986 §2.3 unreserved set:
// ALPHA / DIGIT / "-" / "." / "_" / "~". Every other byte is escaped.
func Unreserved(c byte) bool { return unreserved[c] }

var unreserved = func() (t [256]bool) {
	for i := range t {
		c := byte(i)
		t[i] = 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~'
	}
	return t
}()

// Unhex returns the value of the hex digit c (either case), and false when c
// is not one.
func Unhex(c byte) (byte, bool) {
	v := unhex[c]
	return v, v != 0xFF
}

var unhex = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := range 10 {
		t['0'+i] = byte(i)
	}
	for i := range 6 {
		t['A'+i], t['a'+i] = byte(10+i), byte(10+i)
	}
	return t
}()

// TokenChar reports whether c is a tchar of RFC 9110 §5.6.2, the bytes of
// an HTTP method name, header field name or unquoted parameter value.
func TokenChar(c byte) bool { return token[c] }

var token = func() (t [256]bool) {
	for i := range t {
		c := byte(i)
		t[i] = 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
	}
	for _, c := range []byte("!#$%&'*+-.^_`|~") {
		t[c] = true
	}
	return t
}()

// AppendEncode appends b percent-encoded (RFC 3986 §2.1, uppercase hex):
// percent.AppendEncode for bytes, for the few short byte strings that
// signing encodes.
func AppendEncode(dst, b []byte) []byte {
	// Room for the worst case at once, then indexed stores: no capacity
	// check per byte, as append makes.
	n := len(dst)
	dst = slices.Grow(dst, 3*len(b))
	out := dst[n : n+3*len(b)]
	j := 0
	for _, c := range b {
		if unreserved[c] {
			out[j] = c
			j++
		} else {
			o := out[j : j+3]
			o[0], o[1], o[2] = '%', UpperHex[c>>4], UpperHex[c&15]
			j += 3
		}
	}
	return dst[:n+j]
}

// CountEscapes returns how many bytes of s are not unreserved, that is how
// many a percent-encoding escapes.
func CountEscapes[T string | []byte](s T) int {
	pairsOnce.Do(buildPairs)
	t := pairs
	n := 0
	// Two bytes a lookup and sixteen independent lookups an iteration keep
	// the load ports busy: this runs over every byte of a form body. One
	// step of eight then serves the common lengths below 48 (nonces,
	// tokens, URIs). Slicing b first lets the compiler drop the bounds
	// checks.
	for len(s) >= 32 {
		b := s[:32]
		n += int(t[pair(b, 0)]) + int(t[pair(b, 2)]) + int(t[pair(b, 4)]) + int(t[pair(b, 6)]) +
			int(t[pair(b, 8)]) + int(t[pair(b, 10)]) + int(t[pair(b, 12)]) + int(t[pair(b, 14)]) +
			int(t[pair(b, 16)]) + int(t[pair(b, 18)]) + int(t[pair(b, 20)]) + int(t[pair(b, 22)]) +
			int(t[pair(b, 24)]) + int(t[pair(b, 26)]) + int(t[pair(b, 28)]) + int(t[pair(b, 30)])
		s = s[32:]
	}
	if len(s) >= 16 {
		b := s[:16]
		n += int(t[pair(b, 0)]) + int(t[pair(b, 2)]) + int(t[pair(b, 4)]) + int(t[pair(b, 6)]) +
			int(t[pair(b, 8)]) + int(t[pair(b, 10)]) + int(t[pair(b, 12)]) + int(t[pair(b, 14)])
		s = s[16:]
	}
	for ; len(s) >= 2; s = s[2:] {
		n += int(t[pair(s, 0)])
	}
	if len(s) == 1 && !unreserved[s[0]] {
		n++
	}
	return n
}

func pair[T string | []byte](s T, i int) uint16 { return uint16(s[i]) | uint16(s[i+1])<<8 }

// pairs[x] is the number of the two bytes of the little-endian x that are
// not unreserved. Looking bytes up two at a time halves the loads: with a
// 256-entry table instead, CountEscapes took 1.2 to 2 times as long from 40
// bytes up. The 64 KiB table is built on first use, in about 20µs, and not
// at init, where it cost every program that imports percent 0.3 ms of
// start-up and 64 KiB whether it counted escapes or not. The inlined fast
// path of sync.Once costs under a nanosecond a call; calling the function
// that sync.OnceValue returns costs several.
var (
	pairsOnce sync.Once
	pairs     *[1 << 16]uint8
)

// buildPairs fills row h of pairs (second byte h) with the counts of the
// first bytes, plus one if h is escaped, a word of eight entries at a time:
// a third of the time of one entry at a time.
func buildPairs() {
	var row [256 / 8]uint64
	for i := range 256 {
		if !unreserved[i] {
			row[i/8] |= 1 << (8 * (i % 8))
		}
	}
	t := new([1 << 16]uint8)
	for h := range 256 {
		var add uint64
		if !unreserved[h] {
			add = 0x0101010101010101
		}
		r := (*[256]uint8)(t[h<<8:])
		for w, v := range row {
			binary.LittleEndian.PutUint64(r[8*w:], v+add)
		}
	}
	pairs = t
}
