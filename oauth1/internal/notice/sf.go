package notice

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file parses the value of a Deprecation field: an RFC 9651 Item
// whose bare item is a Date, with the parameters an Item may carry. It
// follows RFC 9651 §4.2 to the letter, so that what fails there fails
// here, and allocates nothing.

// ParseItemDate parses v, a field value, as an RFC 9651 Item (§4.2.3)
// whose bare item is a Date (§4.2.9): "@" and an Integer, then any
// parameters (§4.2.3.2), with the spaces a field may have around it.
func ParseItemDate(v string) (time.Time, bool) {
	if len(v) > maxItemField {
		return time.Time{}, false
	}
	p := sfParser{s: strings.TrimLeft(v, " ")}
	if !p.eat('@') {
		return time.Time{}, false
	}
	secs, isInt, ok := p.number()
	if !ok || !isInt || !p.params() {
		return time.Time{}, false
	}
	if strings.TrimLeft(p.s, " ") != "" {
		return time.Time{}, false
	}
	return time.Unix(secs, 0).UTC(), true
}

// ParseDate parses an RFC 9651 Date without parameters: "@", then an
// optional "-" and 1 to 15 digits (§3.3.7, §3.3.1), with the surrounding
// spaces a field may have (§4.2).
func ParseDate(v string) (time.Time, bool) {
	p := sfParser{s: strings.Trim(v, " \t")}
	if !p.eat('@') {
		return time.Time{}, false
	}
	secs, isInt, ok := p.number()
	if !ok || !isInt || p.s != "" {
		return time.Time{}, false
	}
	return time.Unix(secs, 0).UTC(), true
}

// sfParser reads RFC 9651 values from the front of s.
type sfParser struct{ s string }

func (p *sfParser) eat(c byte) bool {
	if p.s != "" && p.s[0] == c {
		p.s = p.s[1:]
		return true
	}
	return false
}

// number parses an Integer or a Decimal (§4.2.4) and reports which; the
// value is returned for an Integer only.
func (p *sfParser) number() (n int64, isInt, ok bool) {
	s := p.s
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	if i >= len(s) || !isDigit(s[i]) {
		return 0, false, false
	}
	dot := -1
	for ; i < len(s); i++ {
		c := s[i]
		if isDigit(c) {
			if dot < 0 && i-start > 15 || dot >= 0 && i-start > 16 {
				return 0, false, false
			}
			continue
		}
		if c == '.' && dot < 0 {
			if i-start > 12 {
				return 0, false, false
			}
			dot = i
			continue
		}
		break
	}
	if dot < 0 {
		if i-start > 15 {
			return 0, false, false
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return 0, false, false
		}
		p.s = s[i:]
		return n, true, true
	}
	// A Decimal: 1 to 3 digits after the dot.
	if frac := i - dot - 1; frac < 1 || frac > 3 {
		return 0, false, false
	}
	p.s = s[i:]
	return 0, false, true
}

// params parses Parameters (§4.2.3.2): ";" and a key, with "=" and a bare
// item or without (the value true), each; it stops before anything else.
func (p *sfParser) params() bool {
	for p.eat(';') {
		p.s = strings.TrimLeft(p.s, " ")
		if !p.key() {
			return false
		}
		if p.eat('=') && !p.bareItem() {
			return false
		}
	}
	return true
}

// key parses a Key (§4.2.3.3): lcalpha or "*", then lcalpha, DIGIT, "_",
// "-", "." or "*".
func (p *sfParser) key() bool {
	s := p.s
	if s == "" || !(isLower(s[0]) || s[0] == '*') {
		return false
	}
	i := 1
	for i < len(s) && (isLower(s[i]) || isDigit(s[i]) || strings.IndexByte("_-.*", s[i]) >= 0) {
		i++
	}
	p.s = s[i:]
	return true
}

// bareItem parses a Bare Item (§4.2.3.1) of any type.
func (p *sfParser) bareItem() bool {
	if p.s == "" {
		return false
	}
	switch c := p.s[0]; {
	case c == '-' || isDigit(c):
		_, _, ok := p.number()
		return ok
	case c == '"':
		return p.str()
	case c == '*' || isAlpha(c):
		return p.token()
	case c == ':':
		return p.bytes()
	case c == '?':
		if len(p.s) >= 2 && (p.s[1] == '0' || p.s[1] == '1') {
			p.s = p.s[2:]
			return true
		}
		return false
	case c == '@':
		p.s = p.s[1:]
		_, isInt, ok := p.number()
		return ok && isInt
	case c == '%':
		return p.displayString()
	}
	return false
}

// str parses a String (§4.2.5): printable ASCII in quotes, with "\" before
// a quote or a backslash only.
func (p *sfParser) str() bool {
	s := p.s
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
			if i >= len(s) || s[i] != '"' && s[i] != '\\' {
				return false
			}
		case c == '"':
			p.s = s[i+1:]
			return true
		case c < 0x20 || c > 0x7e:
			return false
		}
	}
	return false
}

// token parses a Token (§4.2.6): tchar, ":" and "/" after its first
// character.
func (p *sfParser) token() bool {
	s := p.s
	i := 1
	for i < len(s) && (isTchar(s[i]) || s[i] == ':' || s[i] == '/') {
		i++
	}
	p.s = s[i:]
	return true
}

// bytes parses a Byte Sequence (§4.2.7): base64 between colons.
func (p *sfParser) bytes() bool {
	s := p.s
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':':
			p.s = s[i+1:]
			return true
		case !(isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '='):
			return false
		}
	}
	return false
}

// displayString parses a Display String (§4.2.10): %" then printable
// ASCII, with "%" and two lowercase hex digits for a byte, the bytes valid
// UTF-8.
func (p *sfParser) displayString() bool {
	s := p.s
	if len(s) < 2 || s[1] != '"' {
		return false
	}
	var run [utf8.UTFMax]byte // the bytes of a character not yet whole
	n := 0
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isLowerHex(s[i+1]) || !isLowerHex(s[i+2]) {
				return false
			}
			run[n] = lowerHex(s[i+1])<<4 | lowerHex(s[i+2])
			n++
			i += 2
			if utf8.FullRune(run[:n]) {
				if r, size := utf8.DecodeRune(run[:n]); r == utf8.RuneError || size != n {
					return false
				}
				n = 0
			} else if n == len(run) {
				return false
			}
		case n > 0 || c < 0x20 || c > 0x7e:
			return false // a character cut short, or not printable
		case c == '"':
			p.s = s[i+1:]
			return true
		}
	}
	return false
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isLower(c byte) bool    { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool    { return isLower(c) || 'A' <= c && c <= 'Z' }
func isLowerHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' }
func lowerHex(c byte) byte {
	if isDigit(c) {
		return c - '0'
	}
	return c - 'a' + 10
}

// isTchar reports whether c is a tchar of RFC 9110 §5.6.2.
func isTchar(c byte) bool {
	return isAlpha(c) || isDigit(c) || c < 0x7f && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
