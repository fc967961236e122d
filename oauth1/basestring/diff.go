package basestring

import (
	"cmp"
	"slices"
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
	MethodDiffers                     // different methods
	SchemeHostCase                    // scheme or host differ only in case
	DefaultPort                       // ":80" or ":443" kept on one side
	PathEncoding                      // the same path, encoded differently
	QueryInURI                        // the base string URI carries the query
	URIDiffers                        // any other difference in the base string URI
	MissingParam                      // a parameter of want is not in got
	ExtraParam                        // a parameter of got is not in want
	ValueDiffers                      // same parameter, different value
	DoubleEncoded                     // a value encoded twice ("%252C" for "%2C")
	PlusForSpace                      // "+" where a space ("%20") belongs
	SortOrder                         // the same parameters in a different order
	RealmIncluded                     // "realm" signed, which §3.4.1.3.1 forbids
	SignatureIncluded                 // "oauth_signature" signed, which §3.4.1.3.1 forbids
	LowercaseHex                      // "%2c" for "%2C"
	Unencoded                         // a character left unencoded ("," for "%2C")
	OverEncoded                       // an unreserved character encoded ("%7E" for "~")
	Charset                           // UTF-8 bytes read as Latin-1 and encoded again ("%C3%83%C2%BC" for "%C3%BC")
	Truncated                         // a value cut short (at a NUL, or at an "=" or "?" inside it)
	RepeatedName                      // a repeated name signed with fewer of its values
	Renamed                           // a name changed on the way ("a_b" for "a.b")
	Syntax                            // a base string breaks the syntax of §3.4.1; the rest is still compared
)

var kindNames = [...]string{
	Malformed:         "malformed",
	MethodCase:        "method case",
	MethodDiffers:     "method",
	SchemeHostCase:    "scheme/host case",
	DefaultPort:       "default port",
	PathEncoding:      "path encoding",
	QueryInURI:        "query in URI",
	URIDiffers:        "URI",
	MissingParam:      "missing parameter",
	ExtraParam:        "extra parameter",
	ValueDiffers:      "value differs",
	DoubleEncoded:     "double-encoded",
	PlusForSpace:      "plus for space",
	SortOrder:         "sort order",
	RealmIncluded:     "realm included",
	SignatureIncluded: "oauth_signature included",
	LowercaseHex:      "lowercase hex",
	Unencoded:         "unencoded",
	OverEncoded:       "over-encoded",
	Charset:           "charset",
	Truncated:         "cut short",
	RepeatedName:      "repeated name",
	Renamed:           "renamed",
	Syntax:            "syntax",
}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Difference is one way in which two base strings differ. Kind and Name
// identify its cause, for a program that adds advice of its own; Cause
// explains it in words.
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
// client signed (got) and returns their differences: first how either
// breaks the syntax of a base string (Syntax), then the method, the URI,
// each parameter of want that got lacks or has otherwise (in want's
// order), each parameter only got has, and last a difference in order. A
// base string that breaks the syntax in a way a client's bug explains (a
// parameter string not encoded as a whole, a name with a raw "%", a pair
// without "=") is still compared as far as it can be. It returns nil when
// want and got are equal, and a single Malformed difference when either is
// not a base string at all (it lacks a method, an absolute URI or the
// three "&"-separated parts).
func Diff(want, got string) []Difference {
	if want == got {
		return nil
	}
	w, wIssues, wFlagged, err := parseLoose(want, "want")
	if err != nil {
		return []Difference{{Kind: Malformed, Want: want, Cause: "want does not parse: " + err.Error()}}
	}
	g, gIssues, gFlagged, err := parseLoose(got, "got")
	if err != nil {
		return []Difference{{Kind: Malformed, Got: got, Cause: "got does not parse: " + err.Error() + unencodedHint(got)}}
	}
	ds := append(wIssues, gIssues...)
	ds = diffMethod(ds, w, g)
	ds = diffURI(ds, w.URI, g.URI)
	ds = diffParams(ds, w.Params, g.Params)
	// A Syntax difference already says why a flagged parameter is encoded
	// otherwise.
	ds = slices.DeleteFunc(ds, func(d Difference) bool {
		return (d.Kind == Unencoded || d.Kind == LowercaseHex || d.Kind == OverEncoded) && (wFlagged[d.Name] || gFlagged[d.Name])
	})
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
		ds = append(ds, Difference{Kind: MethodDiffers, Want: w.RawMethod, Got: g.RawMethod,
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
		uri(URIDiffers, "the client signed scheme "+g.scheme+" but the provider sees "+w.scheme+"; is TLS terminated by a proxy in front of the provider, or did the client sign the URL before a redirect?")
	}
	switch {
	case w.host == g.host:
	case strings.EqualFold(w.host, g.host):
		uri(SchemeHostCase, "the host must be lowercase in the base string URI (§3.4.1.2)")
	default:
		uri(URIDiffers, "the client signed host "+g.host+" but the provider sees "+w.host+"; the Host header sent must be the host signed (a proxy or a different API domain?)")
	}
	switch {
	case w.port == g.port:
	case w.port == "" && isDefaultPort(g.scheme, g.port):
		uri(DefaultPort, "got keeps the default port :"+g.port+", which the base string URI leaves out (§3.4.1.2)")
	case g.port == "" && isDefaultPort(w.scheme, w.port):
		uri(DefaultPort, "want keeps the default port :"+w.port+", which §3.4.1.2 leaves out; this provider includes it, so the client must sign it too")
	case g.port == "" && (w.port == "80" || w.port == "443"):
		uri(DefaultPort, "got drops the port :"+w.port+", which is not the default port of "+strings.ToLower(w.scheme)+
			": §3.4.1.2 leaves out only :80 for http and :443 for https; the client drops :80 and :443 whatever the scheme (as when it splits the host at \":\")")
	default:
		uri(URIDiffers, "the ports differ: the provider sees the request on port "+cmp.Or(w.port, "(default)")+", the client signed "+cmp.Or(g.port, "(default)")+"; a proxy in between?")
	}
	switch {
	case w.path == g.path:
	case samePath(w.path, g.path):
		uri(PathEncoding, "the same path encoded differently: the base string URI must use the path exactly as sent on the wire, escaped (§3.4.1.2); the client probably used the decoded path, or re-encoded it")
	case strings.TrimSuffix(w.path, "/") == strings.TrimSuffix(g.path, "/") || w.path == "" || g.path == "":
		uri(URIDiffers, "the paths differ by a trailing slash: sign the path exactly as the request is sent")
	default:
		uri(URIDiffers, "the paths differ: the client signed one URL and sent another, or a proxy rewrote the path")
	}
	switch {
	case w.query == g.query:
	case w.query == "":
		uri(QueryInURI, "got's base string URI includes the query; it must not (§3.4.1.2): the query parameters belong in the parameter string")
	case g.query == "":
		uri(QueryInURI, "want's base string URI includes the query, which §3.4.1.2 leaves out")
	default:
		uri(URIDiffers, "both base string URIs include a query, which §3.4.1.2 leaves out, and they differ")
	}
	return ds
}

func samePath(a, b string) bool {
	da, err1 := percent.Decode(a)
	db, err2 := percent.Decode(b)
	return err1 == nil && err2 == nil && da == db
}
