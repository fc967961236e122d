// Package echo scrubs secrets from what a provider echoes back: the body of
// a refusal may repeat the request it refused, in any format. It is shared
// by oauth1's ResponseError and oauth1/exchange's Error.
package echo

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/redact"
)

// Scrub returns text with the value of every oauth_signature and
// oauth_token_secret parameter, and every occurrence of each non-empty
// secret, replaced with REDACTED. text is a provider's error page, which may
// echo the request it refused in any format: form, header, JSON or HTML,
// and nested in one another. So both are looked for in the text as it is
// and in its decodings (see echoViews): percent-encoding undone up to
// three times, "+" read as a space or not, JSON's \u0026-style escapes and
// HTML's &amp;-style entities undone. A secret is also looked for in
// base64, as a Basic or debugging header would carry it, and in hex.
func Scrub(text []byte, secrets ...string) []byte {
	var spans []span
	for _, v := range echoViews(text) {
		for _, name := range []string{"oauth_signature", "oauth_token_secret"} {
			for _, sp := range paramValues(v.b, name) {
				spans = append(spans, v.orig(sp))
			}
		}
		for _, s := range secrets {
			if s == "" {
				continue
			}
			n := len(spans)
			spans = appendIndexes(spans, v.b, s, true)
			for i := n; i < len(spans); i++ {
				spans[i] = v.orig(spans[i])
			}
		}
	}
	for _, s := range secrets {
		if s != "" {
			spans = encodedSpans(spans, text, s)
		}
	}
	return redactSpans(text, spans)
}

// A span is the bytes [start, end) of a text.
type span struct{ start, end int }

// A view is a text decoded, with where each of its bytes came from: the
// escape that gives b[i] starts at at[i] in the text, and at[len(b)] is the
// text's length.
type view struct {
	b  []byte
	at []int32 // a body is at most a few MiB: a caller bounds it
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

// encodedSpans appends where text holds s in base64, standard or
// URL-safe, at any of the three alignments it may have inside a longer
// encoded text (the characters that depend on s alone, when there are at
// least 8 of them), and in hex.
func encodedSpans(spans []span, text []byte, s string) []span {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for pad := range 3 {
			e := enc.EncodeToString(append(make([]byte, pad), s...))
			// Skip the characters that hold bits of the padding bytes,
			// and the last group, which holds bits of what follows.
			from := (pad*8 + 5) / 6
			to := (pad + len(s)) / 3 * 4
			if to-from < 8 {
				continue
			}
			spans = appendIndexes(spans, text, e[from:to], false)
		}
	}
	if len(s) >= 4 {
		spans = appendIndexes(spans, text, hex.EncodeToString([]byte(s)), true)
	}
	return spans
}

// appendIndexes appends a span for each occurrence of sub in text, matched
// without regard to ASCII case if fold.
func appendIndexes(spans []span, text []byte, sub string, fold bool) []span {
	for i := 0; ; {
		var j int
		if fold {
			j = ascii.IndexFold(text[i:], sub)
		} else {
			j = bytes.Index(text[i:], []byte(sub))
		}
		if j < 0 {
			return spans
		}
		spans = append(spans, span{i + j, i + j + len(sub)})
		i += j + len(sub)
	}
}

// redactSpans returns text with each span, merged with those it overlaps
// or touches, replaced with REDACTED.
func redactSpans(text []byte, spans []span) []byte {
	if len(spans) == 0 {
		return bytes.Clone(text)
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out []byte
	last := 0
	for i := 0; i < len(spans); {
		sp := spans[i]
		for i++; i < len(spans) && spans[i].start <= sp.end; i++ {
			sp.end = max(sp.end, spans[i].end)
		}
		if sp.end > sp.start {
			out = append(append(out, text[last:sp.start]...), redact.Text...)
			last = sp.end
		}
	}
	return append(out, text[last:]...)
}

// paramValues returns where the value after each occurrence of name,
// matched without regard to case, is, as an echo of the request writes it:
// past separators such as `="`, `": "`, `%3D` or HTML tags, and to the end of
// the value, whatever it holds. A PLAINTEXT signature is the two secrets
// joined by "&": "%26" when percent-encoded, "&" when decoded, "%2526" when
// encoded twice, " " when a page puts spaces for the "&". So a value ends at
// the closing quote when it is quoted, at the next tag in HTML, and
// otherwise at a delimiter; an "&" (or, in a value that is itself encoded
// inside another, a "%26") ends it only when a name=value pair follows, and
// a space, when the value holds no "&", only when what follows does not
// look like the rest of a PLAINTEXT signature.
func paramValues(b []byte, name string) []span {
	var spans []span
	for off := 0; ; {
		i := ascii.IndexFold(b[off:], name)
		if i < 0 {
			return spans
		}
		i += off
		j, format, quote := valueStart(b, i+len(name))
		// No separator: name is the start of a longer word
		// (oauth_signature_method). A "/" before it: a closing tag.
		if j == i+len(name) || i > 0 && b[i-1] == '/' {
			off = j
			continue
		}
		k := valueEnd(b, j, format, quote)
		if k > j {
			spans = append(spans, span{j, k})
		}
		off = k
	}
}

// How a value is written, as the separators before it tell.
const (
	bareValue    = iota // a=b, a: b
	quotedValue         // a="b", "a": "b"
	htmlValue           // <td>a</td><td>b</td>
	encodedValue        // x=a%3Db%26c%3Dd: a query encoded inside another
)

// valueStart skips the separators at b[j:] and returns where the value
// starts, its format and, for a quoted one, its quote.
func valueStart(b []byte, j int) (int, int, byte) {
	format, quote := bareValue, byte(0)
	for j < len(b) {
		switch c := b[j]; {
		case c == '"' || c == '\'':
			format, quote = quotedValue, c
			j++
		case c == '<': // a tag between a table's name and value cells
			k := bytes.IndexByte(b[j:], '>')
			if k < 0 {
				return j, format, quote
			}
			format = htmlValue
			j += k + 1
		case c == '>':
			format = htmlValue
			j++
		case c == ':' || c == '=' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\\':
			if format == quotedValue {
				format = bareValue // "a": b
			}
			j++
		case ascii.HasPrefixFold(b[j:], "%3D") || ascii.HasPrefixFold(b[j:], "%22") || ascii.HasPrefixFold(b[j:], "%3A"):
			format = encodedValue
			j += 3
		default:
			return j, format, quote
		}
	}
	return j, format, quote
}

// valueEnd returns where the value that starts at b[j] ends.
func valueEnd(b []byte, j, format int, quote byte) int {
	k := j
	spaced := false
	for ; k < len(b); k++ {
		c := b[k]
		switch format {
		case quotedValue:
			if c == quote || c == '\\' || c == '\r' || c == '\n' {
				return k
			}
			continue
		case htmlValue:
			if c == '<' || c == '\r' || c == '\n' {
				return k
			}
			continue
		}
		if format == encodedValue {
			if ascii.HasPrefixFold(b[k:], "%26") {
				if pairFollows(b[k+3:]) {
					return k
				}
				k += 2
				continue
			}
			if ascii.HasPrefixFold(b[k:], "%2C") || ascii.HasPrefixFold(b[k:], "%22") {
				return k
			}
		}
		if c == '&' {
			if pairFollows(b[k+1:]) {
				return k
			}
			continue
		}
		if (c == ' ' || c == '\t') && !spaced && !bytes.Contains(b[j:k], []byte("&")) && ascii.IndexFold(b[j:k], "%26") < 0 {
			// A page that puts a space for the "&" of a PLAINTEXT
			// signature: the word after it is the token secret.
			spaced = true
			if n := encodedWord(b[k+1:]); n > 0 {
				k += n
				continue
			}
		}
		if strings.IndexByte(",\"'; \t\r\n<}\\", c) >= 0 {
			return k
		}
	}
	return k
}

// encodedWord returns the length of the word that b starts with when it is
// made only of the characters of a percent-encoded secret (RFC 3986
// unreserved characters and "%"), and 0 otherwise: a name=value pair, a
// word of a sentence with punctuation, or nothing.
func encodedWord(b []byte) int {
	n := 0
	for ; n < len(b); n++ {
		c := b[n]
		if strings.IndexByte(" \t\r\n,;\"'<}\\&", c) >= 0 {
			break
		}
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~%", c) >= 0) {
			return 0
		}
	}
	return n
}

// pairFollows reports whether b starts with a name=value pair (its "=" may
// be encoded), rather than the rest of a value that holds an "&".
func pairFollows(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '=' || ascii.HasPrefixFold(b[i:], "%3D"):
			return i > 0
		case c == '&' || strings.IndexByte(",\"'; \t\r\n<}\\", c) >= 0 || ascii.HasPrefixFold(b[i:], "%26"):
			return false
		}
	}
	return false
}
