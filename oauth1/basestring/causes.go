package basestring

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/countersign/countersign/percent"
)

// This file names the causes of the differences that real libraries'
// bugs make: text read in the wrong character set, values cut short,
// names changed or encoded twice, repeated names signed once.

// latin1ToUTF8 returns the UTF-8 encoding of s read as Latin-1: every byte
// is taken for the character of the same number. A client that does this
// to UTF-8 text turns "ü" (C3 BC) into "Ã¼" (C3 83 C2 BC).
func latin1ToUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

func hasHighByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// charsetCause explains want and got, two texts of which one is the other
// read as Latin-1 and encoded as UTF-8 again; what names the text ("the
// value", "the name"). It returns "" when they are not so related.
func charsetCause(want, got, what string) string {
	switch {
	case !hasHighByte(want):
	case latin1ToUTF8(want) == got && utf8.ValidString(want):
		return "got's " + what + " is want's UTF-8 text with each byte taken for a Latin-1 character and encoded as UTF-8 again (" +
			where(percent.Encode(want), percent.Encode(got)) + "): the client took UTF-8 bytes for Latin-1 characters (in Perl, text not decoded before URI::Escape::uri_escape_utf8); sign the bytes as they are sent"
	case latin1ToUTF8(want) == got:
		return "want's " + what + " holds bytes that are not UTF-8, and got signs each as the UTF-8 encoding of the Latin-1 character of that number (" +
			where(percent.Encode(want), percent.Encode(got)) + "): the client read the bytes as Latin-1 text and encoded them as UTF-8; sign the bytes as they are sent"
	}
	if hasHighByte(got) && latin1ToUTF8(got) == want {
		return "want's " + what + " is got's bytes taken for Latin-1 characters and encoded as UTF-8 again (" +
			where(percent.Encode(want), percent.Encode(got)) + "): the request carried the text converted to UTF-8 a second time, or the provider decoded it as Latin-1"
	}
	return ""
}

// truncCause explains got, a proper prefix of want, by the byte where it
// stops; what names the text. It returns "" when got is not such a prefix.
func truncCause(want, got, what string) string {
	if len(got) >= len(want) || !strings.HasPrefix(want, got) || got == "" && !strings.ContainsRune("\x00=?", rune(want[0])) {
		return ""
	}
	at := where(percent.Encode(want), percent.Encode(got))
	switch want[len(got)] {
	case 0:
		return "got's " + what + " stops at the NUL byte (%00) in want's (" + at + "): the client handled it as a C string, which ends at the first NUL; sign the whole value, NUL and all"
	case '=':
		return "got's " + what + ` stops at the "=" inside want's (` + at + `): the client split each pair at every "=", not only at the first; only the first "=" separates name and value`
	case '?':
		return "got's " + what + ` stops at the "?" inside want's (` + at + `): the client split the URL at every "?", not only at the first, and so lost the rest of the query; only the first "?" starts the query (RFC 3986 §3.4)`
	case '&', ';', '#':
		return "got's " + what + " stops at the " + strconv.Quote(want[len(got):len(got)+1]) + " inside want's (" + at + "): the client split the value where the request had it encoded; decode only after splitting"
	}
	return "got's " + what + " is cut short after " + strconv.Itoa(len(got)) + " bytes (" + at + "): was the value or the body truncated on the way (a length limit, a partial read)?"
}

// phpName returns the name PHP gives a query or form parameter: it turns
// " " and "." (and "[" without a closing "]") into "_".
func phpName(s string) string {
	b := []byte(s)
	open := strings.IndexByte(s, '[')
	for i, c := range b {
		switch {
		case c == ' ' || c == '.':
			if open < 0 || i < open {
				b[i] = '_'
			}
		case c == '[' && !strings.Contains(s[i:], "]"):
			b[i] = '_'
		}
	}
	return string(b)
}

// renamed explains a parameter of want and one of got whose names differ
// in a way a client's bug explains, and reports whether they do.
func renamed(w, g Param) (Difference, bool) {
	d := Difference{Name: w.Name, Want: pair(w), Got: pair(g)}
	switch {
	case w.Name == g.Name:
		return d, false
	case percentDecodes(g.Name, w.Name):
		d.Kind = DoubleEncoded
		d.Cause = "got's name is encoded twice (" + where(w.RawName, g.RawName) + "): the client took the name from the URL without decoding it, then encoded it; decode query and form names before signing"
	case strings.ReplaceAll(g.Name, "+", " ") == w.Name:
		d.Kind = PlusForSpace
		d.Cause = `got's name has a literal "+" where the provider has a space (` + where(w.RawName, g.RawName) + `): in a query or form body "+" means a space (§3.4.1.3.1); decode it before signing`
	case charsetCause(w.Name, g.Name, "name") != "":
		d.Kind = Charset
		d.Cause = charsetCause(w.Name, g.Name, "name")
	case phpName(w.Name) == g.Name:
		d.Kind = Renamed
		d.Cause = `got renames ` + strconv.Quote(w.Name) + " to " + strconv.Quote(g.Name) + `: PHP turns " " and "." in parameter names into "_" when it parses a query or form ($_GET, parse_str); sign the names as they are sent`
	default:
		return d, false
	}
	return d, true
}

// renameIndex maps each name that renamed could relate to one of got's
// unused parameters to that parameter's indexes, so that matching names
// takes linear time. PHP's renaming is many-to-one; the caller looks it up
// by got's name.
func renameIndex(got []Param, used []bool) map[string][]int {
	idx := map[string][]int{}
	add := func(name string, gi int) {
		if l := idx[name]; len(l) == 0 || l[len(l)-1] != gi {
			idx[name] = append(l, gi)
		}
	}
	for gi, g := range got {
		if used[gi] {
			continue
		}
		if d, err := percent.Decode(g.Name); err == nil {
			add(d, gi)
		}
		add(strings.ReplaceAll(g.Name, "+", " "), gi)
		if hasHighByte(g.Name) {
			add(latin1ToUTF8(g.Name), gi) // want is got read as Latin-1
			if l, ok := utf8ToLatin1(g.Name); ok {
				add(l, gi) // got is want read as Latin-1
			}
		}
	}
	return idx
}

// utf8ToLatin1 inverts latin1ToUTF8: it reports false unless s is UTF-8
// whose characters are all below U+0100.
func utf8ToLatin1(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r >= 0x100 { // utf8.RuneError included
			return "", false
		}
		b = append(b, byte(r))
	}
	return string(b), true
}

func percentDecodes(enc, dec string) bool {
	d, err := percent.Decode(enc)
	return err == nil && d == dec && enc != dec
}

// repeated explains a parameter of want that got lacks while got signs
// fewer pairs of that name (or the reverse, for extra).
func repeated(p Param, side string, nWant, nGot int) Difference {
	d := Difference{Kind: RepeatedName, Name: p.Name}
	times := func(n int) string {
		if n == 1 {
			return "once"
		}
		return strconv.Itoa(n) + " times"
	}
	if side == "want" {
		d.Want = pair(p)
		d.Cause = "the name " + p.Name + " occurs " + times(nWant) + " in want but got signs it " + times(nGot) +
			": the client kept one value of a repeated name (or of a name in both the query and the body) and dropped this one; RFC 5849 §3.4.1.3.2 signs every name=value pair"
	} else {
		d.Got = pair(p)
		d.Cause = "the name " + p.Name + " occurs " + times(nGot) + " in got but want signs it " + times(nWant) +
			": the provider kept one value of a repeated name (or of a name in both the query and the body); RFC 5849 §3.4.1.3.2 signs every name=value pair"
	}
	return d
}

// related reports whether got's value relates to want's by one of the
// bugs valueDiff names, for pairing repeated names.
func related(w, g Param) bool {
	return w.RawValue == g.RawValue || w.Value == g.Value ||
		charsetCause(w.Value, g.Value, "value") != "" || truncCause(w.Value, g.Value, "value") != "" ||
		percentDecodes(g.Value, w.Value) || percentDecodes(w.Value, g.Value) ||
		plusForSpace(w.Value, g.Value) || plusForSpace(g.Value, w.Value)
}

// sortedBy reports whether a before b in got agrees with ordering by
// key, and want's order (b before a) does not.
func sortedBy(a, b Param, key func(Param) string) bool {
	return key(a) < key(b)
}

func joined(p Param) string  { return p.RawName + "=" + p.RawValue }
func decoded(p Param) string { return p.Name + "\x00" + p.Value }

// plusForSpace reports whether plus is space with some spaces replaced by "+".
func plusForSpace(space, plus string) bool {
	if len(space) != len(plus) || space == plus {
		return false
	}
	for i := range len(space) {
		if space[i] != plus[i] && (space[i] != ' ' || plus[i] != '+') {
			return false
		}
	}
	return true
}

// encodingDiff explains two encodings w and g of the same data; where says
// what they encode.
func encodingDiff(name, w, g, what string) Difference {
	d := Difference{Kind: Unencoded, Name: name, Want: w, Got: g}
	nw, err1 := percent.Normalize(w)
	ng, err2 := percent.Normalize(g)
	switch {
	case err1 == nil && err2 == nil && nw == ng && strings.EqualFold(w, g):
		d.Kind = LowercaseHex
		d.Cause = "the same data, but " + what + " is encoded with lowercase hex (" + where(w, g) + ")" + `; OAuth requires uppercase ("%2C", not "%2c", RFC 5849 §3.6)`
	case err1 == nil && err2 == nil && nw == ng:
		d.Kind = OverEncoded
		d.Cause = "the same data, but " + what + " encodes an unreserved character (" + where(w, g) + ")" + "; ALPHA, DIGIT, \"-\", \".\", \"_\" and \"~\" must not be encoded (§3.6)"
	default:
		d.Cause = "the same data, but " + what + " leaves a character unencoded (" + where(w, g) + ")" + "; every byte but ALPHA, DIGIT, \"-\", \".\", \"_\" and \"~\" must be encoded as %XX (§3.6); url.PathEscape and url.QueryEscape keep some of them"
	}
	return d
}

// where returns "want has X, got Y" for the parts of w and g that differ,
// widened to whole "%XX" escapes so that "%2C" against "%252C" reads as such.
func where(w, g string) string {
	p := 0
	for p < len(w) && p < len(g) && w[p] == g[p] {
		p++
	}
	// Back up to the start of an escape that p falls inside.
	for k := 1; k <= 2; k++ {
		if p-k >= 0 && w[p-k] == '%' {
			p -= k
			break
		}
	}
	sfx := 0
	for sfx < len(w)-p && sfx < len(g)-p && w[len(w)-1-sfx] == g[len(g)-1-sfx] {
		sfx++
	}
	if len(w) <= 24 && len(g) <= 24 {
		return "want has " + strconv.Quote(w) + ", got " + strconv.Quote(g)
	}
	// Widen both middles alike, so that when one ends inside an escape
	// ("%2C" against "%25" + "2C") both show the whole of it.
	we, ge := len(w)-sfx, len(g)-sfx
	ext := max(escapeEnd(w, p, we)-we, escapeEnd(g, p, ge)-ge)
	return "want has " + strconv.Quote(cut(w[p:min(len(w), we+ext)])) + ", got " + strconv.Quote(cut(g[p:min(len(g), ge+ext)]))
}

// escapeEnd returns j moved forward to the end of the escape it falls
// inside, walking s from i, which is on an escape boundary.
func escapeEnd(s string, i, j int) int {
	for i < j {
		if s[i] == '%' {
			i += 3
		} else {
			i++
		}
	}
	return min(i, len(s))
}

func cut(s string) string {
	if len(s) > 24 {
		return s[:21] + "..."
	}
	return s
}

func missing(w Param, cutAt string) Difference {
	d := Difference{Kind: MissingParam, Name: w.Name, Want: pair(w)}
	switch w.Name {
	case "realm":
		d.Kind = RealmIncluded
		d.Cause = "want signs realm, which §3.4.1.3.1 excludes; this provider deviates from the RFC"
	case "oauth_signature":
		d.Kind = SignatureIncluded
		d.Cause = "want signs oauth_signature, which §3.4.1.3.1 excludes; this provider deviates from the RFC"
	case "oauth_version":
		d.Cause = "the provider signed oauth_version but the client did not send it; send oauth_version=1.0 (Config.OmitVersion false)"
	case "oauth_token":
		d.Cause = "the provider signed an oauth_token but the client signed without token credentials"
	case "oauth_body_hash":
		d.Cause = "the provider signed an oauth_body_hash but the client did not hash the body (Config.BodyHash)"
	case "oauth_callback", "oauth_verifier":
		d.Cause = "the client did not sign " + w.Name + "; pass it as an extra protocol parameter to SignAt"
	default:
		switch {
		case strings.HasPrefix(w.Name, "oauth_"):
			d.Cause = "the client did not sign the protocol parameter " + w.Name
		case cutAt != "":
			d.Cause = "parameter " + w.Name + ` is missing from got, like the rest of the query after the "?" inside the value of ` + cutAt + `: the client split the URL at every "?"`
		case strings.Contains(w.Name, ";") || strings.Contains(w.Value, ";"):
			d.Cause = "parameter " + w.Name + ` holds a semicolon, and the client's query parser dropped the pair: Go's url.ParseQuery and URL.Query skip any pair with a ";" (since Go 1.17); the provider splits on "&" only`
		default:
			d.Cause = "parameter " + w.Name + " is missing from got: the provider signed it and the client did not. If it is in the request body, did the client send Content-Type application/x-www-form-urlencoded (only form bodies are signed, §3.4.1.3.1)? If it is in the query, did the client sign the URL without its query?"
		}
	}
	return d
}

func extra(g Param) Difference {
	d := Difference{Kind: ExtraParam, Name: g.Name, Got: pair(g)}
	switch g.Name {
	case "realm":
		d.Kind = RealmIncluded
		d.Cause = "realm is never signed (§3.4.1.3.1); it is only sent in the Authorization header"
	case "oauth_signature":
		d.Kind = SignatureIncluded
		d.Cause = "oauth_signature is never signed (§3.4.1.3.1); was a previous signature left in the request?"
	case "oauth_version":
		d.Cause = "the client signed oauth_version but the provider did not see it; was it sent? Some providers ignore it: then omit it (Config.OmitVersion)"
	case "oauth_body_hash":
		d.Cause = "the client signed an oauth_body_hash that the provider did not; was it sent, and does the provider support the body hash extension?"
	default:
		d.Cause = "parameter " + g.Name + " is in got but not in want: the client signed a parameter the provider did not see. Was the body sent with a Content-Type other than application/x-www-form-urlencoded (then the provider does not sign it), or did a proxy drop part of the query?"
	}
	return d
}

func sortHint(a, b Param) string {
	switch {
	case sortedBy(a, b, joined):
		return `; the client sorted the joined "name=value" strings, and "=" sorts after "-", "." and the digits: sort by name, then by value`
	case sortedBy(a, b, decoded):
		return "; the client sorted the parameters before encoding them"
	case a.RawName == b.RawName:
		return "; equal names are ordered by value"
	}
	if strings.EqualFold(a.RawName, b.RawName) || hasUpper(a.RawName) != hasUpper(b.RawName) {
		return "; uppercase letters sort before lowercase ones"
	}
	return ""
}

func hasUpper(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}
