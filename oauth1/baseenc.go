package oauth1

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// The parameter string enters the signature base string encoded twice: each
// name and value is percent-encoded (§3.4.1.3.2), and the joined string is
// encoded again as a whole (§3.4.1.1). Applied to a strictly encoded string,
// the second encoding only turns each "%" into "%25", since every other byte
// is unreserved. So the signer keeps parameters in that final, doubly
// encoded form from the moment it reads them, and writing the base string is
// then a copy per parameter.
//
// Sorting in that form gives the order §3.4.1.3.2 asks for, which is the
// order of the singly encoded strings: the second encoding maps "%" to
// "%25" and leaves every other byte alone, and "%" sorts below every
// unreserved byte, so two strings compare the same way before and after it.
//
// The tables below pack up to five output bytes into a uint64, low byte
// first, with the count in the top byte; a writer stores all eight bytes and
// advances by the count, so that later stores overwrite the spare ones.

const hexUpper = "0123456789ABCDEF"

// twice[b] is the doubly encoded form of the byte b: b itself when it is
// unreserved, otherwise "%25" and b's two hex digits.
var twice = func() (t [256]uint64) {
	for b := range 256 {
		c := byte(b)
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' {
			t[b] = 1<<56 | uint64(c)
			continue
		}
		t[b] = 5<<56 | uint64(hexUpper[c&15])<<32 | uint64(hexUpper[c>>4])<<24 | '5'<<16 | '2'<<8 | '%'
	}
	return t
}()

// formName and formValue map a byte of raw form data (a query string or an
// application/x-www-form-urlencoded body) to the doubly encoded form of the
// byte it stands for: "+" is a space, and a byte that should have been
// escaped but was not is read as itself, as every form decoder does. A zero
// entry is a byte with a meaning of its own: "%" starts an escape, "&" ends
// the pair, and in a name, "=" ends the name.
var formName, formValue = func() (name, value [256]uint64) {
	value = twice
	value['+'] = twice[' ']
	value['%'], value['&'] = 0, 0
	name = value
	name['='] = 0
	return name, value
}()

// unhex[c] is the value of hex digit c, or 0xFF when c is not one.
var unhex = func() (t [256]uint8) {
	for i := range t {
		t[i] = 0xFF
	}
	for i := range 10 {
		t['0'+i] = uint8(i)
	}
	for i := range 6 {
		t['a'+i], t['A'+i] = uint8(10+i), uint8(10+i)
	}
	return t
}()

// Separators in the parameter string, encoded once more: "=" between a name
// and its value, "&" between pairs.
const (
	sepEq  = '%' | '3'<<8 | 'D'<<16 | 3<<56
	sepAmp = '%' | '2'<<8 | '6'<<16 | 3<<56
)

// put stores e at out[j:] and returns j advanced by e's count. out must have
// eight bytes of room at j.
func put(out []byte, j int, e uint64) int {
	binary.LittleEndian.PutUint64(out[j:j+8], e)
	return j + int(e>>56)
}

// appendTwice appends the doubly encoded form of s, a name or value that is
// not encoded yet (a protocol parameter, or one read back from a header).
func appendTwice(dst []byte, s string) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 5*len(s)+8)
	out := dst[:cap(dst)]
	j := n
	for i := 0; i < len(s); i++ {
		j = put(out, j, twice[s[i]])
	}
	return dst[:j]
}

// appendOnce appends e, which is in the doubly encoded form, in the singly
// encoded form: each "%25" becomes "%". Header and query delivery carry
// parameters encoded once.
func appendOnce(dst, e []byte) []byte {
	if bytes.IndexByte(e, '%') < 0 { // most protocol values
		return append(dst, e...)
	}
	for i := 0; i < len(e); i++ {
		dst = append(dst, e[i])
		if e[i] == '%' {
			i += 2
		}
	}
	return dst
}
