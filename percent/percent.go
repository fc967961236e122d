// Package percent implements the percent-encoding of RFC 3986 §2.1 in the
// strict form that OAuth 1.0 requires (RFC 5849 §3.6): every byte outside the
// unreserved set ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 §2.3)
// becomes "%XX" with two UPPERCASE hexadecimal digits.
//
// Unlike [net/url.QueryEscape], a space is "%20", never "+", and unlike
// [net/url.PathEscape], the sub-delimiters "$&+,:;=@" are always escaped.
// Encoding works on bytes, not characters: each byte of a multi-byte UTF-8
// sequence, and each byte of invalid UTF-8, is escaped on its own, so
// "é" becomes "%C3%A9".
//
// [Decode] reverses [Encode]. It accepts upper- and lowercase hex digits,
// leaves "+" alone and rejects malformed escapes with an [*EscapeError] that
// says where. [DecodeForm] is the separate path for
// application/x-www-form-urlencoded data (query strings and form bodies,
// RFC 5849 §3.4.1.3.1), where "+" stands for a space. [Normalize] puts an
// already-encoded string into the normal form of RFC 3986 §6.2.2, so that two
// encodings of the same data can be compared.
//
// The zero-allocation forms [AppendEncode] and [AppendDecode] follow
// [encoding/hex]: they append to a caller's buffer and return it.
//
// The package has no dependency beyond the standard library and builds for
// every Go port, WebAssembly included: its tests run in CI under Node for
// js/wasm and under the wazero runtime for wasip1, with those of the
// signing packages of module github.com/countersign/countersign.
package percent

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
)

// EncodedLen returns the length of Encode(s) without encoding or allocating,
// so that callers can size a buffer for [AppendEncode].
func EncodedLen(s string) int {
	return len(s) + 2*ascii.CountEscapes(s)
}

// Encode returns s percent-encoded as RFC 5849 §3.6 requires. If no byte of s
// needs escaping, Encode returns s itself and does not allocate; otherwise it
// allocates exactly once.
func Encode(s string) string {
	e := ascii.CountEscapes(s)
	if e == 0 {
		return s
	}
	// Builder.Grow allocates without zeroing, and String does not copy. On
	// 1 KiB of mixed text, zeroing the result costs more than copying it
	// from a stack buffer a chunk at a time.
	var b strings.Builder
	b.Grow(len(s) + 2*e)
	var chunk [3 * encodeChunk]byte
	for len(s) > 0 {
		k := min(len(s), encodeChunk)
		b.Write(chunk[:encode(chunk[:], s[:k])])
		s = s[k:]
	}
	return b.String()
}

// encodeChunk is how many bytes of input Encode encodes at a time.
const encodeChunk = 128

// AppendEncode appends the percent-encoding of s to dst and returns the
// extended buffer. It does not allocate when dst has room for
// [EncodedLen](s) more bytes.
func AppendEncode(dst []byte, s string) []byte {
	e := ascii.CountEscapes(s)
	if e == 0 {
		return append(dst, s...)
	}
	n := len(s) + 2*e
	// slices.Grow grows geometrically, so that a caller appending many
	// values into one buffer reallocates O(log n) times, not once per value.
	dst = slices.Grow(dst, n)
	encode(dst[len(dst):len(dst)+n], s)
	return dst[:len(dst)+n]
}

// enc[c] holds what Encode writes for byte c: the bytes themselves in the
// low three bytes, little-endian, and how many of them count in the top byte.
var enc = func() (t [256]uint32) {
	for i := range t {
		c := byte(i)
		if ascii.Unreserved(c) {
			t[i] = uint32(c) | 1<<24
		} else {
			t[i] = '%' | uint32(ascii.UpperHex[c>>4])<<8 | uint32(ascii.UpperHex[c&15])<<16 | 3<<24
		}
	}
	return t
}()

// encode writes the encoding of s to out, which must have room for
// EncodedLen(s) bytes, and returns that length. Blocks of eight input bytes
// go through put, which has no branch per byte: on text that mixes escaped
// and unreserved bytes, a per-byte branch is mispredicted often enough to
// cost more than the work. The block is unrolled by hand, since the compiler
// does not unroll loops and a loop's counter and branch cost as much as the
// work on each byte. The last few bytes, where out has too little room left
// for a block's spare bytes, take the plain loop.
func encode(out []byte, s string) int {
	i, j := 0, 0
	for len(s)-i >= 8 && len(out)-j >= blockRoom {
		o, b := (*[blockRoom]byte)(out[j:]), s[i:i+8]
		k := put(o, 0, b[0])
		k = put(o, k, b[1])
		k = put(o, k, b[2])
		k = put(o, k, b[3])
		k = put(o, k, b[4])
		k = put(o, k, b[5])
		k = put(o, k, b[6])
		k = put(o, k, b[7])
		i, j = i+8, j+k
	}
	for ; i < len(s); i++ {
		c := s[i]
		if ascii.Unreserved(c) {
			out[j] = c
			j++
		} else {
			out[j], out[j+1], out[j+2] = '%', ascii.UpperHex[c>>4], ascii.UpperHex[c&15]
			j += 3
		}
	}
	return j
}

// blockRoom is what one block of encode may write: put masks its offset to
// below 32 (eight bytes encode to at most 24, so the mask never changes an
// offset) and stores four bytes there. The mask and the array type let the
// compiler drop the bounds checks inside a block.
const blockRoom = 32 + 3

// put stores all four bytes of enc[c] at out[k:], unconditionally, and
// returns k advanced by the count in the top byte, so that the next store
// overwrites the spare ones.
func put(out *[blockRoom]byte, k int, c byte) int {
	e := enc[c]
	binary.LittleEndian.PutUint32(out[k&31:], e)
	return k + int(e>>24)
}

// An EscapeError reports a malformed "%XX" escape: a '%' that is not
// followed by two hexadecimal digits. EscapeError values are comparable.
type EscapeError struct {
	Offset int    // byte offset of the '%' in the input
	Escape string // the malformed escape, cut short at the end of the input
}

func (e *EscapeError) Error() string {
	return "percent: invalid escape " + strconv.Quote(e.Escape) + " at offset " + strconv.Itoa(e.Offset)
}

// Decode returns the bytes that s percent-encodes. It accepts upper- and
// lowercase hex digits and leaves every other byte, including '+', as it is.
// A '%' that is not followed by two hex digits is an [*EscapeError].
//
// Decoding works on bytes: the result may hold any byte value, including
// bytes that do not form valid UTF-8 ("%FF" decodes to the single byte 0xFF),
// exactly as Encode would have been given them ([unicode/utf8.ValidString]
// tells whether they are text).
func Decode(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	return decodeString(s, i, false)
}

// AppendDecode appends the decoding of s to dst and returns the extended
// buffer. On error it returns dst extended by what was decoded before the
// malformed escape, together with an [*EscapeError].
func AppendDecode(dst []byte, s string) ([]byte, error) {
	return decode(dst, s, 0, false)
}

// DecodeForm is [Decode] under the application/x-www-form-urlencoded rules
// that RFC 5849 §3.4.1.3.1 applies to query strings and form bodies: a '+'
// decodes to a space. "%2B" still decodes to '+'.
func DecodeForm(s string) (string, error) {
	i := strings.IndexAny(s, "%+")
	if i < 0 {
		return s, nil
	}
	return decodeString(s, i, true)
}

// AppendDecodeForm is [AppendDecode] under the rules of [DecodeForm].
func AppendDecodeForm(dst []byte, s string) ([]byte, error) {
	return decode(dst, s, 0, true)
}

// decode appends the decoding of s to dst, copying s[:start] verbatim: the
// caller has already established that it holds nothing to decode.
func decode(dst []byte, s string, start int, form bool) ([]byte, error) {
	// The appends below still check capacity, because a malformed escape
	// can make decodedLen too small.
	dst = slices.Grow(dst, decodedLen(s, start))
	dst = append(dst, s[:start]...)
	for i := start; i < len(s); {
		switch c := s[i]; {
		case c == '%':
			v, ok := unescape(s, i)
			if !ok {
				return dst, escapeError(s, i)
			}
			dst = append(dst, v)
			i += 3
		case c == '+' && form:
			dst = append(dst, ' ')
			i++
		default:
			j := plainEnd(s, i+1, form)
			dst = append(dst, s[i:j]...)
			i = j
		}
	}
	return dst, nil
}

// decodeString is decode with a string result: the same loop, into a
// strings.Builder grown once, whose String does not copy.
func decodeString(s string, start int, form bool) (string, error) {
	var b strings.Builder
	b.Grow(decodedLen(s, start))
	b.WriteString(s[:start])
	for i := start; i < len(s); {
		switch c := s[i]; {
		case c == '%':
			v, ok := unescape(s, i)
			if !ok {
				return "", escapeError(s, i)
			}
			b.WriteByte(v)
			i += 3
		case c == '+' && form:
			b.WriteByte(' ')
			i++
		default:
			j := plainEnd(s, i+1, form)
			b.WriteString(s[i:j])
			i = j
		}
	}
	return b.String(), nil
}

// decodedLen is the length of the decoding of s when every escape in
// s[start:] is well formed: each one turns three bytes into one.
func decodedLen(s string, start int) int {
	return max(0, len(s)-2*strings.Count(s[start:], "%"))
}

// plainEnd returns the index of the first byte at or after i that decoding
// changes, or len(s), so that runs of plain bytes are copied at once.
func plainEnd(s string, i int, form bool) int {
	for i < len(s) && s[i] != '%' && (s[i] != '+' || !form) {
		i++
	}
	return i
}

// unescape returns the byte that the escape s[i:i+3] stands for, and false
// if s[i+1:] does not start with two hex digits.
func unescape(s string, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, lo := unhex[s[i+1]], unhex[s[i+2]]
	return hi<<4 | lo, hi|lo != 0xFF
}

// unhex[c] is the value of hex digit c, or 0xFF when c is not one, so
// that one comparison checks two digits: hi|lo is 0xFF exactly when either
// is not a digit. Checking ascii.Unhex's two results instead costs about a
// tenth more on form data.
var unhex = func() (t [256]byte) {
	for i := range t {
		v, ok := ascii.Unhex(byte(i))
		if !ok {
			v = 0xFF
		}
		t[i] = v
	}
	return t
}()

func escapeError(s string, i int) *EscapeError {
	end := min(i+3, len(s))
	return &EscapeError{Offset: i, Escape: s[i:end]}
}

// Normalize returns s in the percent-encoding normal form of RFC 3986
// §6.2.2.1 and §6.2.2.2: the hex digits of every escape are uppercased and
// escapes of unreserved characters are decoded ("%7e" becomes "~", "%41"
// becomes "A"). Escapes of every other byte stay escaped ("%2f" becomes
// "%2F", never "/"), and bytes that are not escaped are left as they are,
// even when Encode would escape them. Two encoded strings are equivalent
// under those rules exactly when their normal forms are equal: "%7e" and "~"
// are, "%2F" and "/" are not. A malformed escape is an [*EscapeError].
func Normalize(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	// Normalizing never lengthens s.
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		v, ok := unescape(s, i)
		if !ok {
			return "", escapeError(s, i)
		}
		if ascii.Unreserved(v) {
			b.WriteByte(v)
		} else {
			b.WriteByte('%')
			b.WriteByte(ascii.UpperHex[v>>4])
			b.WriteByte(ascii.UpperHex[v&15])
		}
		i += 2
	}
	if out := b.String(); out != s {
		return out, nil
	}
	return s, nil
}
