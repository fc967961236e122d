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

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/redact"
	"github.com/countersign/countersign/percent"
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
	forms := secretForms(secrets)
	var spans []span
	for _, v := range echoViews(text) {
		for _, name := range []string{"oauth_signature", "oauth_token_secret"} {
			for _, sp := range paramValues(v.b, name) {
				spans = append(spans, v.orig(sp))
			}
		}
		for _, form := range forms {
			n := len(spans)
			spans = appendIndexes(spans, v.b, form, true)
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

// secretForms returns each non-empty secret as it is, and percent-encoded
// (RFC 3986) or form-encoded ("+" for a space) then percent-encoded again
// up to maxEchoDepth layers in all. Each is looked for in every view, not
// only the secret in the views that decode it: the bytes before an encoded
// secret may join its first characters into another escape ("%0" and
// "0%201" decode as NUL, " " and "1"), so that no decoding holds the secret.
func secretForms(secrets []string) []string {
	var forms []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		p := percent.Encode(s)
		forms = append(forms, s)
		for _, e := range []string{p, strings.ReplaceAll(p, "%20", "+")} {
			for range maxEchoDepth {
				forms = append(forms, e)
				e = percent.Encode(e)
			}
		}
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// A span is the bytes [start, end) of a text.
type span struct{ start, end int }

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
		if (c == ' ' || c == '\t') && !spaced {
			// A page that puts a space for the "&" of a PLAINTEXT
			// signature, or spaces around it: the word after them is
			// the token secret.
			spaced = true
			if m := spacedSecret(b, j, k); m > k {
				k = m - 1
				continue
			}
		}
		if strings.IndexByte(",\"'; \t\r\n<}\\", c) >= 0 {
			return k
		}
	}
	return k
}

// spacedSecret returns where the token secret of a PLAINTEXT signature
// ends when b[j:k] is its consumer secret and b[k] the first of the
// spaces a page writes for its "&" or around it ("CS TS", "CS & TS", "CS&
// TS", "CS &TS", and "%26" for the "&"), or k when no secret follows.
func spacedSecret(b []byte, j, k int) int {
	endsAmp := bytes.HasSuffix(b[j:k], []byte("&")) || k-j >= 3 && ascii.HasPrefixFold(b[k-3:k], "%26")
	if !endsAmp && (bytes.IndexByte(b[j:k], '&') >= 0 || ascii.IndexFold(b[j:k], "%26") >= 0) {
		return k // a value with its "&", and a space after it
	}
	m := skipSpaces(b, k)
	if !endsAmp {
		switch {
		case m < len(b) && b[m] == '&':
			m = skipSpaces(b, m+1)
		case ascii.HasPrefixFold(b[m:], "%26"):
			m = skipSpaces(b, m+3)
		}
	}
	if n := encodedWord(b[m:]); n > 0 {
		return m + n
	}
	return k
}

func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// ScrubCut returns text, whose end a limit on reading cut off, with its
// end redacted where it may be the start of a secret cut there: the
// longest end that is the start of a secret or of its encodings (see
// secretForms), in the text as it is or in any of its decodings (see
// echoViews), followed by an escape cut short, if any. (A secret in base64 or hex cut short is not looked for.)
func ScrubCut(text []byte, secrets ...string) []byte {
	forms := secretForms(secrets)
	var spans []span
	for _, v := range echoViews(text) {
		end := len(v.b) - cutEscape(v.b)
		start := end
		for _, s := range forms {
			for n := min(len(s), end); n > 0; n-- {
				if ascii.HasPrefixFold(v.b[end-n:end], s[:n]) {
					start = min(start, end-n)
					break
				}
			}
		}
		if start < len(v.b) {
			spans = append(spans, span{int(v.at[start]), len(text)})
		}
	}
	return redactSpans(text, spans)
}

// cutEscape returns the length of the escape cut short at the end of b
// (see unescape), such as "%2", `\u00` or "&am", or 0. A numeric HTML
// entity at the end counts, as its digits may go on.
func cutEscape(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-10; i-- {
		switch b[i] {
		case '%', '\\', '&':
			if partialEscape(b[i:]) {
				return len(b) - i
			}
			return 0
		}
	}
	return 0
}

// partialEscape reports whether e, which starts with "%", "\\" or "&", is
// the start of an escape that unescape reads, cut short.
func partialEscape(e []byte) bool {
	hexes := func(b []byte, n int) bool {
		if len(b) > n {
			return false
		}
		for _, c := range b {
			if !ishex(c) {
				return false
			}
		}
		return true
	}
	switch e[0] {
	case '%':
		return hexes(e[1:], 1)
	case '\\':
		return len(e) == 1 || (e[1] == 'u' || e[1] == 'U') && hexes(e[2:], 3) || e[1] == 'x' && hexes(e[2:], 1)
	}
	for _, h := range htmlEntities {
		if len(e) < len(h.name) && ascii.HasPrefixFold([]byte(h.name), string(e)) {
			return true
		}
	}
	if len(e) >= 2 && e[1] == '#' {
		d := e[2:]
		if len(d) > 0 && (d[0] == 'x' || d[0] == 'X') {
			return hexes(d[1:], 6)
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return false
			}
		}
		return len(d) <= 7
	}
	return false
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
