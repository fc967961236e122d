// Package basestring parses, explains and compares OAuth 1.0a signature
// base strings (RFC 5849 §3.4.1), the
//
//	METHOD "&" encode(base string URI) "&" encode(parameter string)
//
// strings that both sides of a signed request compute and sign. When a
// provider answers "invalid signature" with the base string it expected,
// [Diff] compares it with the one the client signed and names the likely
// cause of each difference: a form body that was not signed, a value encoded
// twice, a "+" for a space, a default port left in, and the bugs real
// libraries make: UTF-8 text read as Latin-1 and encoded again, a repeated
// name signed with one of its values, a value cut short at a NUL byte or at
// an "=" or "?" inside it, names PHP renamed.
//
// [Parse] is strict: the parameter string must be encoded as a whole, so a
// base string has exactly two unencoded "&", and every escape must be
// "%XX". It does not check that the parameters are sorted or that escapes
// use uppercase hex; Diff reports those. Diff is lenient where Parse is
// strict: a base string that breaks the syntax in a way a client's bug
// explains is a [Syntax] difference, and the rest is still compared.
package basestring

import (
	"errors"
	"strconv"
	"strings"

	"github.com/countersign/countersign/percent"
)

// A BaseString is a parsed signature base string.
type BaseString struct {
	Method    string  // decoded, as signed (RFC 5849 requires uppercase)
	URI       string  // the base string URI, decoded
	RawMethod string  // the first part, as it appears in the base string
	RawURI    string  // the second part, as it appears in the base string
	Params    []Param // in the order they appear in the parameter string
}

// A Param is one name=value pair of the parameter string (§3.4.1.3.2).
// RawName and RawValue are as they appear in the parameter string, that is
// after the base string's own layer of encoding is removed: "Hello%20World"
// for the value "Hello World".
type Param struct {
	Name, Value       string // decoded
	RawName, RawValue string // percent-encoded, as signed
	Offset            int    // byte offset of the pair's encoding in the base string
}

// A SyntaxError reports a malformed base string and where it goes wrong.
type SyntaxError struct {
	Offset int    // byte offset in the base string
	Msg    string // what is wrong
	Err    error  // the underlying [*percent.EscapeError], if any
}

func (e *SyntaxError) Error() string {
	return "basestring: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse splits a signature base string into its method, base string URI and
// parameters, decoding each. A malformed base string is a [*SyntaxError].
func Parse(s string) (*BaseString, error) {
	i1 := strings.IndexByte(s, '&')
	if i1 < 0 {
		return nil, &SyntaxError{Offset: len(s), Msg: `want three "&"-separated parts (method, URI, parameters), found one`}
	}
	i2 := strings.IndexByte(s[i1+1:], '&')
	if i2 < 0 {
		return nil, &SyntaxError{Offset: len(s), Msg: `want three "&"-separated parts (method, URI, parameters), found two`}
	}
	i2 += i1 + 1
	if i3 := strings.IndexByte(s[i2+1:], '&'); i3 >= 0 {
		return nil, &SyntaxError{Offset: i2 + 1 + i3, Msg: `unencoded "&" in the parameter string (it must be encoded as a whole, "&" as %26)`}
	}
	b := &BaseString{RawMethod: s[:i1], RawURI: s[i1+1 : i2]}
	var err error
	if b.Method, err = decode(s[:i1], 0, "method"); err != nil {
		return nil, err
	}
	if b.Method == "" {
		return nil, &SyntaxError{Offset: 0, Msg: "empty method"}
	}
	if b.URI, err = decode(b.RawURI, i1+1, "base string URI"); err != nil {
		return nil, err
	}
	if !strings.Contains(b.URI, "://") {
		return nil, &SyntaxError{Offset: i1 + 1, Msg: "base string URI " + strconv.Quote(b.URI) + " is not absolute"}
	}
	raw := s[i2+1:]
	ps, err := decode(raw, i2+1, "parameter string")
	if err != nil {
		return nil, err
	}
	// at maps an offset in the decoded parameter string back to s.
	m := offsetMap{raw: raw}
	at := func(off int) int { return i2 + 1 + m.at(off) }
	for off := 0; off <= len(ps) && ps != ""; {
		end := strings.IndexByte(ps[off:], '&')
		if end < 0 {
			end = len(ps)
		} else {
			end += off
		}
		pair := ps[off:end]
		eq := strings.IndexByte(pair, '=')
		switch {
		case pair == "":
			return nil, &SyntaxError{Offset: at(off), Msg: "empty parameter"}
		case eq < 0:
			return nil, &SyntaxError{Offset: at(off), Msg: "parameter " + strconv.Quote(pair) + ` has no "="`}
		}
		p := Param{RawName: pair[:eq], RawValue: pair[eq+1:], Offset: at(off)}
		if p.Name, err = decodeAt(p.RawName, off, at, "parameter name"); err != nil {
			return nil, err
		}
		if p.Value, err = decodeAt(p.RawValue, off+eq+1, at, "value of "+strconv.Quote(p.Name)); err != nil {
			return nil, err
		}
		b.Params = append(b.Params, p)
		off = end + 1
	}
	return b, nil
}

func decode(s string, base int, what string) (string, error) {
	d, err := percent.Decode(s)
	var e *percent.EscapeError
	if errors.As(err, &e) {
		return "", &SyntaxError{Offset: base + e.Offset, Msg: "invalid escape " + strconv.Quote(e.Escape) + " in " + what, Err: err}
	}
	return d, err
}

// decodeAt decodes s, which starts at offset off of the decoded parameter
// string, and reports errors at their offset in the base string.
func decodeAt(s string, off int, at func(int) int, what string) (string, error) {
	d, err := percent.Decode(s)
	var e *percent.EscapeError
	if errors.As(err, &e) {
		return "", &SyntaxError{Offset: at(off + e.Offset), Msg: "invalid escape " + strconv.Quote(e.Escape) + " in " + what, Err: err}
	}
	return d, err
}

// An offsetMap maps offsets in the decoding of raw back to raw. It walks
// forward from the offset it was last asked for, so that mapping the
// offsets of a string's parameters in order takes linear time.
type offsetMap struct {
	raw      string
	dec, enc int // the last offset asked for, and where it is in raw
}

func (m *offsetMap) at(off int) int {
	if off < m.dec {
		m.dec, m.enc = 0, 0
	}
	for ; m.dec < off && m.enc < len(m.raw); m.dec++ {
		if m.raw[m.enc] == '%' && m.enc+2 < len(m.raw) && isHex(m.raw[m.enc+1]) && isHex(m.raw[m.enc+2]) {
			m.enc += 3
		} else {
			m.enc++
		}
	}
	return m.enc
}
