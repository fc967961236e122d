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
// an "=" or "?" inside it, names PHP renamed. When the base strings agree
// and the signature is still refused, the key differs: [KeyMistake] names
// how (an empty token secret, swapped secrets, a trailing newline, ...).
// When the client's base string is not at hand and the key is right,
// [Reproduce] names the client's bug from its signature alone: it signs
// the variants of the provider's base string that real client libraries
// make, each bug alone and then sets of them in the order real clients
// make them, within a fixed budget of HMACs, and returns the one that
// gives the signature; [ReproduceWide] tries far more, for an operator.
//
// [Parse] is strict: the parameter string must be encoded as a whole, so a
// base string has exactly two unencoded "&", and every escape must be
// "%XX". It does not check that the parameters are sorted or that escapes
// use uppercase hex; Diff reports those. Diff is lenient where Parse is
// strict: a base string that breaks the syntax in a way a client's bug
// explains is a [Syntax] difference, and the rest is still compared.
package basestring

import (
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
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
	t := tokenizer{s: s}
	return t.parse()
}

// A tokenizer splits a base string into its parts and pairs and decodes
// them; Parse and Diff both parse with it. Strict (side ""), it stops at
// the first break of the syntax. Loose (side "want" or "got", for Diff),
// it notes each break as a Syntax difference and goes on as far as the
// break allows, so that the rest can still be compared.
type tokenizer struct {
	s       string
	side    string
	err     *SyntaxError    // the first break, as strict parsing reports it
	issues  []Difference    // loose: the breaks, as Syntax differences
	flagged map[string]bool // loose: the decoded names of the pairs a Syntax difference covers
}

// parse returns the parsed base string, or the first break of the syntax
// when parsing stops: in strict mode at any break, in loose mode only when
// there is nothing to compare (no method, no absolute URI, fewer than three
// parts).
func (t *tokenizer) parse() (*BaseString, error) {
	i1, i2, amp, err := splitParts(t.s)
	if err != nil {
		return nil, err
	}
	// Strict parsing reports this before anything in the parts.
	if amp >= 0 && t.fail(amp, `unencoded "&" in the parameter string (it must be encoded as a whole, "&" as %26)`, nil) {
		return nil, t.err
	}
	b := &BaseString{RawMethod: t.s[:i1], RawURI: t.s[i1+1 : i2]}
	if !t.method(b) || !t.uri(b, i1+1) || !t.params(b, i2+1, amp) {
		return nil, t.err
	}
	return b, nil
}

// splitParts finds the two "&" that end the method and the base string
// URI, and the first "&" after them (-1 if none), which only a parameter
// string that was not encoded as a whole holds.
func splitParts(s string) (i1, i2, amp int, err error) {
	i1 = strings.IndexByte(s, '&')
	if i1 < 0 {
		return 0, 0, 0, &SyntaxError{Offset: len(s), Msg: `want three "&"-separated parts (method, URI, parameters), found one`}
	}
	j := strings.IndexByte(s[i1+1:], '&')
	if j < 0 {
		return 0, 0, 0, &SyntaxError{Offset: len(s), Msg: `want three "&"-separated parts (method, URI, parameters), found two`}
	}
	i2 = i1 + 1 + j
	if amp = strings.IndexByte(s[i2+1:], '&'); amp >= 0 {
		amp += i2 + 1
	}
	return i1, i2, amp, nil
}

// method decodes b.RawMethod; an empty method ends parsing in both modes.
func (t *tokenizer) method(b *BaseString) bool {
	m, esc := decode(b.RawMethod)
	if esc != nil && t.failEscape(esc.Offset, esc, "method") {
		return false
	}
	if m == "" {
		t.fail(0, "empty method", nil)
		return false
	}
	if esc != nil {
		t.note("", `has a "%" in the method that is not an escape`, 0, b.RawMethod)
	}
	b.Method = m
	return true
}

// uri decodes b.RawURI, which starts at offset at; a URI that is not
// absolute ends parsing in both modes.
func (t *tokenizer) uri(b *BaseString, at int) bool {
	u, esc := decode(b.RawURI)
	if esc != nil && t.failEscape(at+esc.Offset, esc, "base string URI") {
		return false
	}
	if !strings.Contains(u, "://") {
		t.fail(at, "base string URI "+strconv.Quote(u)+" is not absolute", nil)
		return false
	}
	if esc != nil {
		t.note("", `has a "%" in the base string URI that is not an escape: the URI must be encoded as a whole (§3.4.1.1), "%" as "%25"`, at, b.RawURI)
	}
	b.URI = u
	return true
}

// params decodes the parameter string, which starts at offset base, and
// splits it into pairs. amp is the offset of an unencoded "&" in it, or -1:
// a parameter string with one was joined but not encoded again, and its
// pairs are taken as they are.
func (t *tokenizer) params(b *BaseString, base, amp int) bool {
	raw := t.s[base:]
	ps := raw
	pos := func(off int) int { return base + off } // offset in ps -> offset in s
	if amp >= 0 {
		t.note("", `has an unencoded "&" in the parameter string: after joining the pairs with "&", the client did not encode the whole string again (RFC 5849 §3.4.1.1); its pairs are compared as they are`, amp, cut(raw))
	} else {
		var esc *percent.EscapeError
		if ps, esc = decode(raw); esc != nil {
			if t.failEscape(base+esc.Offset, esc, "parameter string") {
				return false
			}
			t.note("", `has a "%" in the parameter string that is not an escape: the parameter string must be encoded as a whole (§3.4.1.1)`, base, cut(raw))
		}
		m := offsetMap{raw: raw}
		pos = func(off int) int { return base + m.at(off) }
	}
	for off := 0; ps != "" && off <= len(ps); {
		end := strings.IndexByte(ps[off:], '&')
		if end < 0 {
			end = len(ps)
		} else {
			end += off
		}
		if !t.pair(b, ps[off:end], off, pos) {
			return false
		}
		off = end + 1
	}
	return true
}

// pair adds the name=value pair that starts at offset off of the decoded
// parameter string; pos maps such offsets to offsets in s.
func (t *tokenizer) pair(b *BaseString, pair string, off int, pos func(int) int) bool {
	at := pos(off)
	if pair == "" {
		if t.fail(at, "empty parameter", nil) {
			return false
		}
		t.note("", `has an empty pair ("&&"): the client joined a parameter that has no name`, at, "")
		return true
	}
	name, value, hasEq := strings.Cut(pair, "=")
	if !hasEq && t.fail(at, "parameter "+strconv.Quote(pair)+` has no "="`, nil) {
		return false
	}
	p := Param{RawName: name, RawValue: value, Offset: at}
	var nameEsc, valueEsc *percent.EscapeError
	if p.Name, nameEsc = decode(name); nameEsc != nil && t.failEscape(pos(off+nameEsc.Offset), nameEsc, "parameter name") {
		return false
	}
	if p.Value, valueEsc = decode(value); valueEsc != nil && t.failEscape(pos(off+len(name)+1+valueEsc.Offset), valueEsc, "value of "+strconv.Quote(p.Name)) {
		return false
	}
	switch {
	case !hasEq:
		t.note(p.Name, "has the pair "+strconv.Quote(pair)+` without "=": a parameter is signed as name "=" value even when its value is empty (`+strconv.Quote(name+"=")+", §3.4.1.3.2)", at, pair)
	case nameEsc != nil:
		t.note(p.Name, "has the name "+strconv.Quote(name)+` with a "%" that is not an escape: the client did not encode the name (each name is encoded, "%" as "%25", §3.4.1.3.2)`, at, pair)
	case valueEsc != nil:
		t.note(p.Name, "has the value "+strconv.Quote(value)+` with a "%" that is not an escape: the client did not encode the value ("%" must be "%25", §3.4.1.3.2)`, at, pair)
	}
	if !hasEq || nameEsc != nil || valueEsc != nil {
		// The Syntax difference explains why this pair is encoded otherwise.
		if t.flagged == nil {
			t.flagged = map[string]bool{}
		}
		t.flagged[p.Name] = true
	}
	b.Params = append(b.Params, p)
	return true
}

// fail records a break of the syntax at offset at and reports whether
// parsing stops there, as strict parsing does at the first. esc, if not
// nil, is the malformed escape behind it.
func (t *tokenizer) fail(at int, msg string, esc *percent.EscapeError) bool {
	if t.err == nil {
		t.err = &SyntaxError{Offset: at, Msg: msg}
		if esc != nil {
			t.err.Err = esc
		}
	}
	return t.side == ""
}

func (t *tokenizer) failEscape(at int, esc *percent.EscapeError, what string) bool {
	return t.fail(at, "invalid escape "+strconv.Quote(esc.Escape)+" in "+what, esc)
}

// note records a break as a Syntax difference (loose mode only: strict
// parsing has stopped before); name is the decoded name of the pair it
// concerns, if any.
func (t *tokenizer) note(name, cause string, at int, raw string) {
	t.issues = append(t.issues, Difference{Kind: Syntax, Name: name, Cause: t.side + " " + cause + " (at offset " + strconv.Itoa(at) + ")",
		Want: pick(t.side == "want", raw), Got: pick(t.side == "got", raw)})
}

// decode decodes the "%XX" escapes of s. A "%" that starts no escape is
// kept as it is, and esc reports the first one.
func decode(s string) (d string, esc *percent.EscapeError) {
	d, err := percent.Decode(s)
	if err == nil {
		return d, nil
	}
	esc, _ = err.(*percent.EscapeError) // the only error Decode returns
	return looseDecode(s), esc
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
		if m.raw[m.enc] == '%' && m.enc+2 < len(m.raw) && ascii.IsHex(m.raw[m.enc+1]) && ascii.IsHex(m.raw[m.enc+2]) {
			m.enc += 3
		} else {
			m.enc++
		}
	}
	return m.enc
}
