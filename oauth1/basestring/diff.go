package basestring

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/countersign/countersign/percent"
)

// A Kind classifies a [Difference]: each names one mistake, and the
// Difference's Cause says how it usually happens.
type Kind int

const (
	Malformed         Kind = iota + 1 // a base string does not parse
	MethodCase                        // same method, different case
	Method                            // different methods
	SchemeHostCase                    // scheme or host differ only in case
	DefaultPort                       // ":80" or ":443" kept on one side
	PathEncoding                      // the same path, encoded differently
	QueryInURI                        // the base string URI carries the query
	URI                               // any other difference in the base string URI
	Missing                           // a parameter of want is not in got
	Extra                             // a parameter of got is not in want
	ValueDiffers                      // same parameter, different value
	DoubleEncoded                     // a value encoded twice ("%252C" for "%2C")
	PlusForSpace                      // "+" where a space ("%20") belongs
	SortOrder                         // the same parameters in a different order
	RealmIncluded                     // "realm" signed, which §3.4.1.3.1 forbids
	SignatureIncluded                 // "oauth_signature" signed, which §3.4.1.3.1 forbids
	LowercaseHex                      // "%2c" for "%2C"
	Unencoded                         // a character left unencoded ("," for "%2C")
	OverEncoded                       // an unreserved character encoded ("%7E" for "~")
)

var kindNames = [...]string{
	Malformed:         "malformed",
	MethodCase:        "method case",
	Method:            "method",
	SchemeHostCase:    "scheme/host case",
	DefaultPort:       "default port",
	PathEncoding:      "path encoding",
	QueryInURI:        "query in URI",
	URI:               "URI",
	Missing:           "missing parameter",
	Extra:             "extra parameter",
	ValueDiffers:      "value differs",
	DoubleEncoded:     "double-encoded",
	PlusForSpace:      "plus for space",
	SortOrder:         "sort order",
	RealmIncluded:     "realm included",
	SignatureIncluded: "oauth_signature included",
	LowercaseHex:      "lowercase hex",
	Unencoded:         "unencoded",
	OverEncoded:       "over-encoded",
}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Difference is one way in which two base strings differ.
type Difference struct {
	Kind  Kind
	Name  string // the parameter concerned, decoded; "" for method and URI differences
	Want  string // the differing part of want as it appears there ("" if absent)
	Got   string // the differing part of got as it appears there ("" if absent)
	Cause string // a sentence naming the likely cause
}

func (d Difference) String() string {
	var b strings.Builder
	b.WriteString(d.Kind.String())
	if d.Name != "" {
		b.WriteString(" " + d.Name)
	}
	b.WriteString(": " + d.Cause)
	if d.Want != "" {
		b.WriteString("\n  - " + d.Want)
	}
	if d.Got != "" {
		b.WriteString("\n  + " + d.Got)
	}
	return b.String()
}

// Format renders diffs as a report labelled (-want +got), one difference
// per paragraph. It returns "" when diffs is empty.
func Format(diffs []Difference) string {
	if len(diffs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("signature base strings differ (-want +got):\n")
	for _, d := range diffs {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Diff compares the base string a provider expected (want) with the one a
// client signed (got) and returns their differences: the method first, then
// the URI, then each parameter of want that got lacks or has otherwise (in
// want's order), each parameter only got has, and last a difference in
// order. It returns nil when want and got are equal. A base string that
// does not parse gives a single Malformed difference.
func Diff(want, got string) []Difference {
	if want == got {
		return nil
	}
	w, err := Parse(want)
	if err != nil {
		return []Difference{{Kind: Malformed, Want: want, Cause: "want does not parse: " + err.Error()}}
	}
	g, err := Parse(got)
	if err != nil {
		return []Difference{{Kind: Malformed, Got: got, Cause: "got does not parse: " + err.Error() + unencodedHint(got)}}
	}
	var ds []Difference
	ds = diffMethod(ds, w, g)
	ds = diffURI(ds, w.URI, g.URI)
	ds = diffParams(ds, w.Params, g.Params)
	if len(ds) == 0 {
		// The parts decode alike, so the difference is in the base
		// string's own layer of encoding.
		ds = append(ds, encodingDiff("", want, got, "the base string itself"))
	}
	return ds
}

// unencodedHint recognises a parameter string that was joined but not
// encoded again, the commonest reason for a base string with too many "&".
func unencodedHint(s string) string {
	if strings.Count(s, "&") > 2 && strings.Contains(s, "=") {
		return `; the parameter string looks unencoded: after joining the pairs with "&", encode the whole string again (RFC 5849 §3.4.1.1)`
	}
	return ""
}

func diffMethod(ds []Difference, w, g *BaseString) []Difference {
	switch {
	case w.Method == g.Method:
	case strings.EqualFold(w.Method, g.Method):
		ds = append(ds, Difference{Kind: MethodCase, Want: w.RawMethod, Got: g.RawMethod,
			Cause: "the method must be uppercase in the base string (RFC 5849 §3.4.1.1)"})
	default:
		ds = append(ds, Difference{Kind: Method, Want: w.RawMethod, Got: g.RawMethod,
			Cause: "the client signed " + g.Method + " but the provider received " + w.Method + "; was the request redirected (a 301/302 turns POST into GET), or signed before its method was set?"})
	}
	return ds
}

type uriParts struct{ scheme, host, port, path, query string }

func splitURI(u string) uriParts {
	var p uriParts
	p.scheme, u, _ = strings.Cut(u, "://")
	i := strings.IndexAny(u, "/?")
	if i < 0 {
		i = len(u)
	}
	p.host, u = u[:i], u[i:]
	if j := strings.LastIndexByte(p.host, ':'); j >= 0 && !strings.Contains(p.host[j:], "]") {
		p.host, p.port = p.host[:j], p.host[j+1:]
	}
	p.path, p.query, _ = strings.Cut(u, "?")
	if p.query == "" && strings.HasSuffix(u, "?") {
		p.query = "?"
	}
	return p
}

func isDefaultPort(scheme, port string) bool {
	return strings.EqualFold(scheme, "http") && port == "80" || strings.EqualFold(scheme, "https") && port == "443"
}

func diffURI(ds []Difference, want, got string) []Difference {
	if want == got {
		return ds
	}
	w, g := splitURI(want), splitURI(got)
	uri := func(k Kind, cause string) {
		ds = append(ds, Difference{Kind: k, Want: want, Got: got, Cause: cause})
	}
	switch {
	case w.scheme == g.scheme:
	case strings.EqualFold(w.scheme, g.scheme):
		uri(SchemeHostCase, "the scheme must be lowercase in the base string URI (§3.4.1.2)")
	default:
		uri(URI, "the client signed scheme "+g.scheme+" but the provider sees "+w.scheme+"; is TLS terminated by a proxy in front of the provider, or did the client sign the URL before a redirect?")
	}
	switch {
	case w.host == g.host:
	case strings.EqualFold(w.host, g.host):
		uri(SchemeHostCase, "the host must be lowercase in the base string URI (§3.4.1.2)")
	default:
		uri(URI, "the client signed host "+g.host+" but the provider sees "+w.host+"; the Host header sent must be the host signed (a proxy or a different API domain?)")
	}
	switch {
	case w.port == g.port:
	case w.port == "" && isDefaultPort(g.scheme, g.port):
		uri(DefaultPort, "got keeps the default port :"+g.port+", which the base string URI leaves out (§3.4.1.2)")
	case g.port == "" && isDefaultPort(w.scheme, w.port):
		uri(DefaultPort, "want keeps the default port :"+w.port+", which §3.4.1.2 leaves out; this provider includes it, so the client must sign it too")
	default:
		uri(URI, "the ports differ: the provider sees the request on port "+cmp.Or(w.port, "(default)")+", the client signed "+cmp.Or(g.port, "(default)")+"; a proxy in between?")
	}
	switch {
	case w.path == g.path:
	case samePath(w.path, g.path):
		uri(PathEncoding, "the same path encoded differently: the base string URI must use the path exactly as sent on the wire, escaped (§3.4.1.2); the client probably used the decoded path, or re-encoded it")
	case strings.TrimSuffix(w.path, "/") == strings.TrimSuffix(g.path, "/") || w.path == "" || g.path == "":
		uri(URI, "the paths differ by a trailing slash: sign the path exactly as the request is sent")
	default:
		uri(URI, "the paths differ: the client signed one URL and sent another, or a proxy rewrote the path")
	}
	switch {
	case w.query == g.query:
	case w.query == "":
		uri(QueryInURI, "got's base string URI includes the query; it must not (§3.4.1.2): the query parameters belong in the parameter string")
	case g.query == "":
		uri(QueryInURI, "want's base string URI includes the query, which §3.4.1.2 leaves out")
	default:
		uri(URI, "both base string URIs include a query, which §3.4.1.2 leaves out, and they differ")
	}
	return ds
}

func samePath(a, b string) bool {
	da, err1 := percent.Decode(a)
	db, err2 := percent.Decode(b)
	return err1 == nil && err2 == nil && da == db
}

// diffParams compares the parameter lists as multisets: first pairs equal
// as encoded are matched, then the rest by name, and what remains is missing
// or extra. The order of the matched pairs is compared last.
func diffParams(ds []Difference, want, got []Param) []Difference {
	wUsed := make([]bool, len(want))
	gUsed := make([]bool, len(got))
	gMatch := make([]int, len(got)) // got index -> want index, for the order check
	for i := range gMatch {
		gMatch[i] = -1
	}
	for gi, g := range got {
		for wi, w := range want {
			if !wUsed[wi] && w.RawName == g.RawName && w.RawValue == g.RawValue {
				wUsed[wi], gUsed[gi], gMatch[gi] = true, true, wi
				break
			}
		}
	}
	order, misordered := sortOrder(want, got, gMatch)
	for wi, w := range want {
		if wUsed[wi] {
			continue
		}
		gi := -1
		for j, g := range got {
			if !gUsed[j] && g.Name == w.Name {
				gi = j
				break
			}
		}
		if gi < 0 {
			ds = append(ds, missing(w))
			continue
		}
		wUsed[wi], gUsed[gi] = true, true
		ds = append(ds, valueDiff(w, got[gi]))
	}
	for gi, g := range got {
		if !gUsed[gi] {
			ds = append(ds, extra(g))
		}
	}
	if misordered {
		ds = append(ds, order)
	}
	return ds
}

func pair(p Param) string { return p.RawName + "=" + p.RawValue }

// sortOrder reports the first pair of matched parameters that got has in
// the opposite order from want.
func sortOrder(want, got []Param, gMatch []int) (Difference, bool) {
	last := -1 // got index of the matched parameter with the highest want index so far
	for gi, wi := range gMatch {
		if wi < 0 {
			continue
		}
		if last >= 0 && wi < gMatch[last] {
			a, b := got[last], got[gi]
			return Difference{Kind: SortOrder, Name: b.Name,
				Want: pair(b) + " before " + pair(a),
				Got:  pair(a) + " before " + pair(b),
				Cause: "the parameters are in a different order: sort them by encoded name, then encoded value, byte-wise (§3.4.1.3.2), after encoding them" +
					sortHint(a, b)}, true
		}
		last = gi
	}
	return Difference{}, false
}

func sortHint(a, b Param) string {
	if a.RawName == b.RawName {
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

func missing(w Param) Difference {
	d := Difference{Kind: Missing, Name: w.Name, Want: pair(w)}
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
		d.Cause = "the provider signed an oauth_body_hash but the client did not hash the body (Config.BodyHash, --body-hash)"
	case "oauth_callback", "oauth_verifier":
		d.Cause = "the client did not sign " + w.Name + "; pass it as an extra protocol parameter to SignAt (--callback, --verifier)"
	default:
		if strings.HasPrefix(w.Name, "oauth_") {
			d.Cause = "the client did not sign the protocol parameter " + w.Name
		} else {
			d.Cause = "parameter " + w.Name + " is missing from got: the provider signed it and the client did not. If it is in the request body, did the client send Content-Type application/x-www-form-urlencoded (only form bodies are signed, §3.4.1.3.1)? If it is in the query, did the client sign the URL without its query?"
		}
	}
	return d
}

func extra(g Param) Difference {
	d := Difference{Kind: Extra, Name: g.Name, Got: pair(g)}
	switch g.Name {
	case "realm":
		d.Kind = RealmIncluded
		d.Cause = "realm is never signed (§3.4.1.3.1); it is only sent in the Authorization header"
	case "oauth_signature":
		d.Kind = SignatureIncluded
		d.Cause = "oauth_signature is never signed (§3.4.1.3.1); was a previous signature left in the request?"
	case "oauth_version":
		d.Cause = "the client signed oauth_version but the provider did not see it; was it sent? Some providers ignore it: then omit it (Config.OmitVersion, --no-version)"
	case "oauth_body_hash":
		d.Cause = "the client signed an oauth_body_hash that the provider did not; was it sent, and does the provider support the body hash extension?"
	default:
		d.Cause = "parameter " + g.Name + " is in got but not in want: the client signed a parameter the provider did not see. Was the body sent with a Content-Type other than application/x-www-form-urlencoded (then the provider does not sign it), or did a proxy drop part of the query?"
	}
	return d
}

// valueDiff explains why two parameters with the same decoded name differ.
func valueDiff(w, g Param) Difference {
	if w.RawValue == g.RawValue {
		return encodingDiff(w.Name, w.RawName, g.RawName, "the name")
	}
	if w.Value == g.Value {
		return encodingDiff(w.Name, pair(w), pair(g), "the value")
	}
	d := Difference{Kind: ValueDiffers, Name: w.Name, Want: pair(w), Got: pair(g)}
	if g2, err := percent.Decode(g.Value); err == nil && g2 == w.Value && g.Value != w.Value {
		d.Kind = DoubleEncoded
		d.Cause = "got's value is encoded twice (" + where(w.RawValue, g.RawValue) + "): the client encoded a value that was already encoded, such as one taken from a URL; decode query and form values before signing"
		return d
	}
	if w2, err := percent.Decode(w.Value); err == nil && w2 == g.Value && g.Value != w.Value {
		d.Kind = DoubleEncoded
		d.Cause = "want's value is encoded twice relative to got (" + where(w.RawValue, g.RawValue) + "): the request carried the value encoded twice, or the client decoded a value it should have signed as received"
		return d
	}
	if fd, err := percent.DecodeForm(g.RawValue); err == nil && fd == w.Value || plusForSpace(w.Value, g.Value) {
		d.Kind = PlusForSpace
		if strings.Contains(g.RawValue, "+") {
			d.Cause = `got has "+" for a space (` + where(w.RawValue, g.RawValue) + `): the client encoded with url.QueryEscape or similar; OAuth requires "%20" (RFC 5849 §3.6)`
		} else {
			d.Cause = `got has a literal "+" where the provider has a space (` + where(w.RawValue, g.RawValue) + `): in a query or form body "+" means a space (§3.4.1.3.1); decode it before signing`
		}
		return d
	}
	if plusForSpace(g.Value, w.Value) {
		d.Kind = PlusForSpace
		d.Cause = `the provider has "+" where the client signed a space (` + where(w.RawValue, g.RawValue) + `): the request probably sent the space as "%2B", or the provider does not decode "+" in the query as a space`
		return d
	}
	switch w.Name {
	case "oauth_timestamp", "oauth_nonce":
		d.Cause = "the base strings come from different requests: compare base strings built with the same oauth_nonce and oauth_timestamp (sign --nonce N --timestamp T)"
	case "oauth_signature_method":
		d.Cause = "the signature methods differ: the client must sign with the method the provider expects"
	case "oauth_consumer_key", "oauth_token":
		d.Cause = "the credentials differ: the client signed with another " + w.Name
	case "oauth_body_hash":
		d.Cause = "the body hashes differ: the body sent is not the body hashed, or the hash algorithms differ (SHA-1 vs SHA-256)"
	default:
		d.Cause = "the client signed another value than the provider received (" + where(w.RawValue, g.RawValue) + "); was the request changed after signing?"
	}
	return d
}

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
