package basestring

// This file rebuilds the base strings of Reproduce's variants from the
// provider's base string and the request as sent.

import (
	"crypto"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/percent"
)

// A piece is one parameter as a client holds it before encoding.
type piece struct {
	name, value string
	query       bool // from the query, where a query value may replace a body's
	verbatim    bool // name and value as sent, and signed without encoding
}

// A rebuild holds the parts of the provider's base string and of the
// request, to build the base string again with bugs.
type rebuild struct {
	method             string // decoded
	scheme, host, path string // from the base string URI; host with any port
	query, form        string // as sent
	sentHost, realm    string
	other              []piece               // the parameters from neither the query nor the body
	fromRequest        bool                  // query and form are the sources of the rest
	read               map[bug]readResult    // pieces' results, by the bugs of reading
	src                map[srcKey]readResult // the query's and the form body's, by theirs
	bodyHash           string                // the oauth_body_hash of the form body; "" when not known
	work               int64                 // the work done, in bytes hashed (work.go)
}

// newRebuild splits b, parsed from base, into its parts, and checks that
// they build base again: when the query and the form body of sent do not
// account for base's parameters (a Request of another request), they are
// left out, and only the bugs that need neither are tried.
func newRebuild(b *BaseString, base string, sent Request) (*rebuild, bool) {
	scheme, rest, ok := strings.Cut(b.URI, "://")
	if !ok {
		return nil, false
	}
	host, path := rest, "/"
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	r := &rebuild{method: b.Method, scheme: scheme, host: host, path: path, sentHost: sent.Host, realm: sent.Realm,
		query: sent.Query, form: sent.Form, fromRequest: true}
	if !r.account(b) || !r.builds(base) {
		r.query, r.form, r.fromRequest, r.other, r.read, r.src = "", "", false, nil, nil, nil
		for _, p := range b.Params {
			r.other = append(r.other, piece{name: p.Name, value: p.Value})
		}
		if !r.builds(base) {
			return nil, false
		}
	}
	return r, true
}

// builds reports whether r builds base without a bug.
func (r *rebuild) builds(base string) bool {
	s, ok := r.build(0)
	return ok && s == base
}

// account sets r.other to b's parameters that the query and the form body
// do not hold, and reports whether they then build b's parameters.
func (r *rebuild) account(b *BaseString) bool {
	count := map[[2]string]int{}
	for _, p := range b.Params {
		count[[2]string{p.Name, p.Value}]++
	}
	ps, ok := r.pieces(0)
	if !ok {
		return false
	}
	for _, p := range ps {
		k := [2]string{p.name, p.value}
		if count[k] == 0 {
			return false
		}
		count[k]--
	}
	r.other = r.other[:0]
	for _, p := range b.Params {
		k := [2]string{p.Name, p.Value}
		if count[k] > 0 {
			count[k]--
			r.other = append(r.other, piece{name: p.Name, value: p.Value})
		}
	}
	return true
}

// build returns the base string as a client with bugs bs computes it. A
// bug that needs what the request lacks changes nothing. It reports false
// when the client could not read the query or the form body (a malformed
// escape).
func (r *rebuild) build(bs bug) (string, bool) {
	uri := r.uri(bs)
	ps, ok := r.pieces(bs)
	if !ok {
		return "", false
	}
	ps = slices.Concat(ps, r.other)
	if bs&bugRealm != 0 && r.realm != "" {
		ps = append(ps, piece{name: "realm", value: r.realm})
	}
	if bs&bugSignature != 0 {
		ps = append(ps, piece{name: "oauth_signature"})
	}
	if bs&bugEmptyToken != 0 && !r.has("oauth_token") {
		ps = append(ps, piece{name: "oauth_token"})
	}
	if bs&bugBodyHash != 0 && r.bodyHash != "" && !r.has("oauth_body_hash") {
		ps = append(ps, piece{name: "oauth_body_hash", value: r.bodyHash})
	}
	if bs&bugDropEmpty != 0 {
		ps = slices.DeleteFunc(ps, func(p piece) bool { return p.value == "" })
	}
	enc := encoder(bs)
	type pair struct{ name, value, dname, dvalue, joined string }
	pairs := make([]pair, len(ps))
	for i, p := range ps {
		name, value := enc(p.name), enc(p.value)
		switch {
		case bs&bugNoEncoding != 0:
			name, value = p.name, p.value
		case bs&bugUnencodedNames != 0 && bs&bugUnencodedValues != 0:
			name, value = p.name, p.value
		case bs&bugUnencodedNames != 0:
			name = p.name
		case bs&bugUnencodedValues != 0:
			value = p.value
		}
		if p.verbatim {
			name, value = p.name, p.value
		}
		if bs&bugTwice != 0 {
			value = enc(value)
		}
		pairs[i] = pair{name, value, p.name, p.value, ""}
		if bs&bugSortJoined != 0 {
			pairs[i].joined = name + "=" + value
		}
	}
	if bs&bugSortNameReversed != 0 && bs&(bugUnsorted|bugSortByName) == 0 {
		slices.Reverse(pairs) // a map of names to lists that prepends
	}
	// Pairs that the order compares equal are written alike, so an
	// unstable sort builds the same string; a stable one cost O(n log² n)
	// moves of these structs, most of a build on a request of many pairs.
	// The orders by name only, or none, keep the order of equal names.
	sort := slices.SortFunc[[]pair]
	if bs&(bugUnsorted|bugSortByName|bugSortNameReversed) != 0 {
		sort = slices.SortStableFunc[[]pair]
	}
	sort(pairs, func(a, c pair) int {
		switch {
		case bs&bugUnsorted != 0:
			return 0
		case bs&(bugSortByName|bugSortNameReversed) != 0:
			return strings.Compare(a.name, c.name)
		case bs&bugSortDecoded != 0:
			return cmpPair(a.dname, a.dvalue, c.dname, c.dvalue)
		case bs&bugSortJoined != 0:
			return strings.Compare(a.joined, c.joined)
		}
		return cmpPair(a.name, a.value, c.name, c.value)
	})
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.name)
		if p.value != "" || bs&bugNoEquals == 0 {
			b.WriteByte('=')
			b.WriteString(p.value)
		}
	}
	outer := percent.Encode
	if bs&(bugLowerHex|bugJava|bugJSComponent|bugKeepSlash|bugTilde) != 0 {
		outer = enc // one encoding function for all
	}
	params := b.String()
	if bs&bugNotReencoded == 0 {
		params = outer(params)
	}
	method := strings.ToUpper(r.method)
	if bs&bugMethodGetPost != 0 && method != "GET" && method != "POST" {
		method = map[bool]string{true: "POST", false: "GET"}[method == "PUT" || method == "PATCH"]
	}
	if bs&bugMethodLower != 0 {
		method = strings.ToLower(method)
	}
	out := outer(method) + "&" + outer(uri) + "&" + params
	r.work += buildWork(len(ps), len(out))
	return out, true
}

// has reports whether the parameters from neither the query nor the body
// have one named name.
func (r *rebuild) has(name string) bool {
	for _, p := range r.other {
		if p.name == name {
			return true
		}
	}
	return false
}

func cmpPair(an, av, bn, bv string) int {
	if c := strings.Compare(an, bn); c != 0 {
		return c
	}
	return strings.Compare(av, bv)
}

// uri returns the base string URI as a client with bugs bs computes it. A
// bug that needs what the request lacks changes nothing.
func (r *rebuild) uri(bs bug) string {
	scheme, host, path := r.scheme, r.host, r.path
	hostname, port := splitPort(host)
	if bs&bugScheme != 0 {
		switch scheme {
		case "https":
			scheme = "http"
		case "http":
			scheme = "https"
		}
	}
	switch {
	case bs&bugHostAsSent != 0 && r.sentHost != "":
		host = r.sentHost
		if _, p := splitPort(host); p == "" && bs&bugDefaultPort != 0 {
			host += map[string]string{"http": ":80", "https": ":443"}[r.scheme] // the host as typed, and the port added
		}
	case bs&bugAnyPort != 0 && (port == "80" || port == "443"):
		host = hostname
	case bs&bugDefaultPort != 0 && port == "":
		host += map[string]string{"http": ":80", "https": ":443"}[r.scheme]
	}
	switch {
	case bs&bugSchemeUpper != 0:
		scheme = strings.ToUpper(scheme)
	case bs&bugSchemeTitle != 0 && scheme != "":
		scheme = strings.ToUpper(scheme[:1]) + scheme[1:]
	}
	if bs&bugNetworkPath != 0 && strings.HasPrefix(path, "//") {
		// "//host/path": the path is what follows the host, "/" for none.
		rest := path[2:]
		path = "/"
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			path = rest[i:]
		}
	}
	if bs&bugNoRootSlash != 0 && path == "/" {
		path = ""
	}
	if bs&bugPathParams != 0 {
		path, _, _ = strings.Cut(path, ";")
	}
	if bs&bugPathSlashes != 0 {
		path = collapseSlashes(path)
	}
	if bs&bugDotSegments != 0 {
		path = removeDotSegments(path)
	}
	if bs&bugDecodedPath != 0 {
		if d, err := percent.Decode(path); err == nil {
			path = d
		}
	}
	uri := scheme + "://" + host + path
	if bs&bugURILower != 0 {
		uri = strings.ToLower(uri)
	}
	if bs&(bugQueryInURI|bugQueryOnlyInURI) != 0 && r.query != "" {
		uri += "?" + r.query
	}
	return uri
}

// splitPort splits host into its name and its port ("" when none); an IPv6
// literal keeps its brackets.
func splitPort(host string) (string, string) {
	i := strings.LastIndexByte(host, ':')
	if i < 0 || strings.IndexByte(host[i:], ']') >= 0 {
		return host, ""
	}
	return host[:i], host[i+1:]
}

// encoder returns the encoding of names and values of a client with bugs bs.
func encoder(bs bug) func(string) string {
	switch {
	case bs&bugPlus != 0 && bs&bugLowerHex != 0:
		return func(s string) string { return lowerHex(strings.ReplaceAll(percent.Encode(s), "%20", "+")) }
	case bs&bugPlus != 0:
		return func(s string) string { return strings.ReplaceAll(percent.Encode(s), "%20", "+") }
	case bs&bugLowerHex != 0:
		return func(s string) string { return lowerHex(percent.Encode(s)) }
	case bs&bugJSComponent != 0:
		return keep("!'()*")
	case bs&bugKeepSlash != 0:
		return keep("/")
	case bs&bugJava != 0:
		return func(s string) string {
			// In turn: none of the three makes what another replaces.
			return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(percent.Encode(s), "%20", "+"), "%2A", "*"), "~", "%7E")
		}
	case bs&bugTilde != 0:
		return func(s string) string { return strings.ReplaceAll(percent.Encode(s), "~", "%7E") }
	}
	return percent.Encode
}

// keep returns an encoding that leaves the bytes of unreserved unencoded:
// it encodes, then turns their escapes back, one after another (an escape
// is never made of what another turns back).
func keep(unreserved string) func(string) string {
	return func(s string) string {
		s = percent.Encode(s)
		for i := 0; i < len(unreserved); i++ {
			c := unreserved[i : i+1]
			s = strings.ReplaceAll(s, percent.Encode(c), c)
		}
		return s
	}
}

// lowerHex turns the hex digits of s's escapes to lowercase.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if 'A' <= b[j] && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
			i += 2
		}
	}
	return string(b)
}

// mistake names the bugs of bs that make signed, dropping those without
// which the client still signs signed: a library's set names only the bugs
// this request shows. f is the form the signature was sent in, and
// otherHash says whether it is an HMAC with hash h, not the method's.
func (r *rebuild) mistake(bs bug, signed string, f sentForm, otherHash bool, method string, h crypto.Hash) Mistake {
	for i := range bugCount {
		b := bug(1) << i
		if bs&b == 0 || bs == b {
			continue
		}
		if s, ok := r.build(bs &^ b); ok && s == signed {
			bs &^= b
		}
	}
	var causes []string
	for i := range bugCount {
		if bs&(bug(1)<<i) != 0 {
			causes = append(causes, bugCauses[i])
		}
	}
	m := Mistake{Kind: BaseStringDiffers}
	if len(causes) == 1 {
		m.Cause = "the key is right, and the client signed another base string: it " + causes[0]
	} else {
		m.Cause = "the key is right, and the client signed another base string, with " + strconv.Itoa(len(causes)) + " bugs: it " + strings.Join(causes, "; and it ")
	}
	if f.cause != "" {
		m.Also = append(m.Also, SignatureEncoding)
		m.Cause += "; and " + f.cause
	}
	if otherHash {
		m.Also = append(m.Also, WrongHMACHash)
		m.Cause += "; and the client signed with HMAC-" + hashName(h) + " and declared " + method + " in oauth_signature_method"
	}
	return m
}
