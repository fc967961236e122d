package echo

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/countersign/countersign/internal/ascii"
)

// A view is a text decoded, with where each of its bytes came from: the
// escape that gives b[i] starts at at[i] in the text, and at[len(b)] is the
// text's length.
type view struct {
	b  []byte
	at []int32 // a body is at most maxResponseBytes
}

// orig returns the bytes of the text that sp of the view decodes from.
func (v view) orig(sp span) span { return span{int(v.at[sp.start]), int(v.at[sp.end])} }

// maxEchoDepth is how many layers of encoding echoViews undoes: a value
// sent percent-encoded, in a form encoded into a parameter, in a log
// encoded into another is three.
const maxEchoDepth = 3

// echoViews returns text as it is and decoded one to maxEchoDepth times by
// decodeLayer, with "+" read as a space in every layer or in none, leaving
// out a decoding that changes nothing.
func echoViews(text []byte) []view {
	at := make([]int32, len(text)+1)
	for i := range at {
		at[i] = int32(i)
	}
	views := []view{{text, at}}
	for _, plus := range []bool{false, true} {
		v := views[0]
		for range maxEchoDepth {
			d, ok := decodeLayer(v, plus)
			if !ok {
				break
			}
			views = append(views, d)
			v = d
		}
	}
	return views
}

// decodeLayer undoes one layer of the escapes an echo adds: "%XX";
// JSON's "\uXXXX", "\"", "\\" and "\/" (and "\xXX"); HTML's named
// entities for & < > " ' and its numeric ones; and, if plus, "+" for a
// space. It reports whether any was undone.
func decodeLayer(v view, plus bool) (view, bool) {
	b := v.b
	out := view{b: make([]byte, 0, len(b)), at: make([]int32, 0, len(b)+1)}
	changed := false
	var u [utf8.UTFMax]byte
	for i := 0; i < len(b); {
		d, n := unescape(b[i:], plus, &u)
		if n == 0 {
			d, n = b[i:i+1], 1
		} else {
			changed = true
		}
		// Each byte of a character maps to the start of its escape.
		for range d {
			out.at = append(out.at, v.at[i])
		}
		out.b = append(out.b, d...)
		i += n
	}
	out.at = append(out.at, v.at[len(b)])
	return out, changed
}

var htmlEntities = []struct {
	name string
	c    byte
}{{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&equals;", '='}, {"&percnt;", '%'}}

// unescape returns the text that the escape at the start of b stands
// for, at most utf8.UTFMax bytes in u, and the escape's length, or 0 when b
// starts with none. JSON's "\uXXXX" and HTML's numeric entities give the
// UTF-8 of their code point (a surrogate is left alone), as Python's
// json.dumps escapes every non-ASCII character.
func unescape(b []byte, plus bool, u *[utf8.UTFMax]byte) ([]byte, int) {
	switch b[0] {
	case '+':
		if plus {
			u[0] = ' '
			return u[:1], 1
		}
	case '%':
		if len(b) >= 3 && ishex(b[1]) && ishex(b[2]) {
			u[0] = unhex(b[1])<<4 | unhex(b[2])
			return u[:1], 3
		}
	case '\\':
		if len(b) >= 6 && (b[1] == 'u' || b[1] == 'U') && ishex(b[2]) && ishex(b[3]) && ishex(b[4]) && ishex(b[5]) {
			r := rune(unhex(b[2]))<<12 | rune(unhex(b[3]))<<8 | rune(unhex(b[4]))<<4 | rune(unhex(b[5]))
			if !utf16.IsSurrogate(r) {
				return u[:utf8.EncodeRune(u[:], r)], 6
			}
		}
		if len(b) >= 4 && b[1] == 'x' && ishex(b[2]) && ishex(b[3]) {
			u[0] = unhex(b[2])<<4 | unhex(b[3])
			return u[:1], 4
		}
		if len(b) >= 2 && (b[1] == '"' || b[1] == '\\' || b[1] == '/' || b[1] == '\'') {
			u[0] = b[1]
			return u[:1], 2
		}
	case '&':
		for _, e := range htmlEntities {
			if ascii.HasPrefixFold(b, e.name) {
				u[0] = e.c
				return u[:1], len(e.name)
			}
		}
		if len(b) >= 4 && b[1] == '#' {
			j, base := 2, rune(10)
			if b[2] == 'x' || b[2] == 'X' {
				j, base = 3, 16
			}
			r, k := rune(0), j
			for ; k < len(b) && k < j+6 && (base == 16 && ishex(b[k]) || base == 10 && '0' <= b[k] && b[k] <= '9'); k++ {
				r = r*base + rune(unhex(b[k]))
			}
			if k > j && utf8.ValidRune(r) {
				if k < len(b) && b[k] == ';' {
					k++
				}
				return u[:utf8.EncodeRune(u[:], r)], k
			}
		}
	}
	return nil, 0
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}
