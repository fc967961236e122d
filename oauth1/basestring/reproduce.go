package basestring

import (
	"crypto"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/percent"
)

// This file names the client's base-string bug from the signature alone:
// it rebuilds the provider's base string the way real client libraries get
// it wrong, one bug or a library's set of them at a time, and signs each
// with the right key until one gives the signature the client sent.

// A Request is what [Reproduce] needs of a refused request besides its
// base string: the parts as they were sent, before any decoding, so that
// the bugs of reading them can be replayed. Each field may be empty; the
// bugs that need it are then not tried.
type Request struct {
	Query string // the query as sent, without the "?" (URL.RawQuery)
	Form  string // the body as sent, if it is application/x-www-form-urlencoded; "" otherwise
	Host  string // the Host as sent, in its case and with any port
	Realm string // the realm of the Authorization header, if it has one
}

// BaseStringDiffers is the kind of the [Mistake] that [Reproduce] names:
// the key is right and the client signed another base string. Its Cause
// names the bugs that make that base string.
const BaseStringDiffers MistakeKind = "base-string-differs"

// The bounds of Reproduce: at most maxReproduceTries HMACs, each over a
// variant of at most maxVariantBytes; nothing at all for a base string or
// request over maxReproduceBytes.
const (
	maxReproduceTries = 48
	maxReproduceBytes = 8 << 10
	maxVariantBytes   = 4 * maxReproduceBytes // a value encoded twice grows
)

// Reproduce names the bug in the client's base string that makes a
// signature the provider refused: it rebuilds base, the base string the
// provider computed, as client libraries wrongly do (spaces encoded as
// "+", values encoded twice or not at all, reserved characters left
// unencoded, lowercase hex, the form body left out or signed as sent, the
// query kept in the base string URI, the default port kept, the other
// scheme, the host as sent, realm or oauth_signature signed, UTF-8 read as
// Latin-1, one value kept of a repeated name, the parameters sorted before
// encoding, empty values dropped, values cut at ";", "#", "=", "?" or a NUL
// byte, and the sets of these that libraries such as PHP's PECL oauth,
// Perl's Net::OAuth, npm oauth-1.0a, dghubble/oauth1 and mrjones/oauth make
// together), signs each with the right key (key's secrets, joined as
// §3.4.2 says), and returns the first whose HMAC is the signature, with the
// base string the client signed. Diff(base, signed) lists the differences.
//
// It reports false when no variant reproduces the signature: it never
// names a bug whose HMAC does not match, compared in constant time. sent
// holds the parts of the request the bugs of reading it need; the zero
// Request tries the rest. The signature may be sent in any encoding
// [KeyMistake] knows (hex, URL-safe base64, ...), which the Mistake then
// names too, as it names an HMAC hash other than method's.
//
// Its cost is bounded: at most 48 HMACs, each over a variant of base of at
// most 32 KiB, and nothing (false, at once) for a base string, or a query
// and form body, over 8 KiB; variants that change nothing cost no HMAC. On
// the largest base string it takes about as long as KeyMistake on one of
// 1 MiB (BenchmarkReproduceLargest). It checks the HMAC methods only: for
// RSA and PLAINTEXT, and for what FIPS 140-only mode refuses, it reports
// false. Run it, like KeyMistake, on refusals a person debugs, once
// KeyMistake found the key right or found nothing.
func Reproduce(base, signature, method string, key Key, sent Request) (m Mistake, signed string, ok bool) {
	m, signed, ok, _ = reproduce(base, signature, method, key, sent)
	return m, signed, ok
}

// reproduce is Reproduce, and also returns how many HMACs it computed.
func reproduce(base, signature, method string, key Key, sent Request) (Mistake, string, bool, int) {
	if len(base) > maxReproduceBytes || len(sent.Query)+len(sent.Form)+len(sent.Host)+len(sent.Realm) > maxReproduceBytes ||
		len(signature) > 1024 {
		return Mistake{}, "", false, 0
	}
	method = strings.ToUpper(method)
	h, isRSA, known := mac.MethodHash(method)
	if !known || isRSA {
		return Mistake{}, "", false, 0
	}
	b, err := Parse(base)
	if err != nil {
		return Mistake{}, "", false, 0
	}
	r, ok := newRebuild(b, base, sent)
	if !ok {
		return Mistake{}, "", false, 0
	}
	t := &hmacTry{method: method, hash: h, sent: sentForms(signature)}
	hashes := t.hashes()
	if len(hashes) == 0 {
		return Mistake{}, "", false, 0
	}
	h = hashes[0]
	k := signingKey(key.ConsumerSecret, key.TokenSecret)
	tried := map[string]bool{base: true}
	for _, bs := range variants {
		if t.n == maxReproduceTries {
			break
		}
		s, ok := r.build(bs)
		if !ok || tried[s] || len(s) > maxVariantBytes {
			continue
		}
		tried[s] = true
		t.base = []byte(s)
		sum := t.mac(h, k)
		if sum == nil {
			return Mistake{}, "", false, t.n // FIPS 140-only mode refuses the hash or key
		}
		f, ok := t.match(sum)
		if !ok {
			continue
		}
		return r.mistake(bs, s, f, h != t.hash, method, h), s, true, t.n
	}
	return Mistake{}, "", false, t.n
}

// bug is one way a client library builds the base string wrongly; a
// variant switches on a set of them.
type bug uint64

const (
	bugPlus           bug = 1 << iota // names and values encoded with "+" for a space
	bugPlusLiteral                    // "+" in the query or body not decoded as a space
	bugTwice                          // values percent-encoded twice
	bugRawQuery                       // query values signed as sent, not decoded
	bugRawForm                        // form values signed as sent, not decoded
	bugNoEncoding                     // names and values not encoded
	bugUnencodedNames                 // names not encoded
	bugLowerHex                       // lowercase hex in escapes
	bugJSComponent                    // "!'()*" left unencoded (encodeURIComponent)
	bugKeepSlash                      // "/" left unencoded (Python's quote)
	bugJava                           // java.net.URLEncoder: "+", "*" unencoded, "~" encoded
	bugTilde                          // "~" encoded as "%7E"
	bugNoForm                         // the form body left out
	bugQueryInURI                     // the query kept in the base string URI, and signed
	bugQueryOnlyInURI                 // the query kept in the base string URI, not signed
	bugDefaultPort                    // :80 or :443 kept
	bugScheme                         // http for https, or https for http
	bugHostAsSent                     // the Host as sent: its case, any port
	bugAnyPort                        // :80 and :443 dropped whatever the scheme
	bugDecodedPath                    // the path decoded
	bugRealm                          // realm signed
	bugSignature                      // an empty oauth_signature signed
	bugLatin1                         // UTF-8 bytes read as Latin-1
	bugKeepFirst                      // the first value of a repeated name kept
	bugKeepLast                       // the last value of a repeated name kept
	bugQueryWins                      // a query value replaces a body value of the same name
	bugSortDecoded                    // sorted before encoding
	bugSortJoined                     // sorted by the joined "name=value"
	bugDropEmpty                      // empty values dropped
	bugSemicolonDrop                  // pairs holding ";" dropped (Go's url.ParseQuery)
	bugSemicolonSplit                 // ";" separating pairs as "&" does
	bugSemicolonCut                   // values cut at a ";"
	bugHashCut                        // the query decoded, then cut at a "#"
	bugNulCut                         // values cut at a NUL byte
	bugEqCut                          // values cut at an "=" inside them
	bugQCut                           // the query cut at a "?" inside it
	bugRawNames                       // names not decoded before being encoded
	bugPHPNames                       // " " and "." in names turned into "_"
	bugNoEquals                       // empty values signed as "name", without "="
	bugNotReencoded                   // the parameter string not encoded as a whole
	bugCount          = iota
)

// The bugs' causes, in the bugs' order: each completes "the client ...",
// in words that a person reading a refusal can act on.
var bugCauses = [bugCount]string{
	`encodes spaces as "+" (as url.QueryEscape, URLSearchParams and form encoders do), where OAuth requires "%20" (RFC 5849 §3.6)`,
	`does not decode "+" in the query or form body as a space: it signs a literal "+" ("%2B") where the request's "+" means a space (§3.4.1.3.1)`,
	`encodes values twice ("%2520" for a space): it encoded values that were already encoded; encode each value once (§3.6)`,
	`signs the query's values as they are sent, without decoding them first, so that their escapes are encoded again ("%2520"); decode them (§3.4.1.3.1)`,
	`signs the form body's values as they are sent, without decoding them first, so that their escapes are encoded again ("%2520"); decode them (§3.4.1.3.1)`,
	`does not percent-encode the names and values before joining them; encode each (§3.4.1.3.2)`,
	`does not percent-encode the parameter names before joining them; encode each (§3.4.1.3.2)`,
	`encodes with lowercase hex ("%2f"); OAuth requires uppercase ("%2F", §3.6)`,
	`leaves "!", "'", "(", ")" and "*" unencoded, as JavaScript's encodeURIComponent does; OAuth encodes every byte but ALPHA, DIGIT, "-", ".", "_" and "~" (§3.6)`,
	`leaves "/" unencoded, as Python's urllib.parse.quote does with its default safe="/"; pass safe="~" (§3.6)`,
	`encodes with java.net.URLEncoder: "+" for a space, "*" unencoded and "~" as "%7E"; OAuth requires "%20", "%2A" and "~" (§3.6)`,
	`encodes "~" as "%7E" (as PHP's rawurlencode did before PHP 5.3); "~" is unreserved and must not be encoded (§3.6)`,
	`leaves the form body's parameters out of the base string; a form-encoded body (Content-Type application/x-www-form-urlencoded) is signed (§3.4.1.3.1)`,
	`keeps the query in the base string URI; the URI is signed without its query, whose parameters are signed with the others (§3.4.1.2)`,
	`keeps the query in the base string URI and does not sign its parameters; the URI is signed without its query, whose parameters are signed with the others (§3.4.1.2, §3.4.1.3.1)`,
	`keeps the default port (":80" for http, ":443" for https) in the base string URI; it is left out (§3.4.1.2)`,
	`signs another scheme than the provider sees (http for https or the reverse); behind a proxy that terminates TLS, the provider must be told the scheme the client used`,
	`signs the host as it is sent, in its case and with its port; the base string URI has the host in lowercase and no default port (§3.4.1.2)`,
	`drops ":80" and ":443" whatever the scheme; only the scheme's default port is left out (§3.4.1.2)`,
	`signs the path decoded; the base string URI keeps the path as sent, escapes and all (§3.4.1.2)`,
	`signs realm, which is sent in the Authorization header only and never signed (§3.4.1.3.1)`,
	`signs an empty oauth_signature, which is never signed (§3.4.1.3.1)`,
	`takes UTF-8 bytes for Latin-1 characters and encodes them as UTF-8 again ("%C3%83%C2%BC" for "%C3%BC"); sign the bytes as they are sent`,
	`keeps only the first value of a repeated name (or of a name in both the query and the body); every name=value pair is signed (§3.4.1.3.2)`,
	`keeps only the last value of a repeated name (or of a name in both the query and the body), as PHP arrays do; every name=value pair is signed (§3.4.1.3.2)`,
	`lets a query value replace a form body value of the same name; both pairs are signed (§3.4.1.3.2)`,
	`sorts the parameters before encoding them; sort them by encoded name, then encoded value (§3.4.1.3.2)`,
	`sorts the joined "name=value" strings, and "=" sorts after "-", "." and the digits; sort by encoded name, then encoded value (§3.4.1.3.2)`,
	`drops parameters whose value is empty; they are signed as "name=" (§3.4.1.3.2)`,
	`drops the pairs that hold a ";", as Go's url.ParseQuery does (since Go 1.17); the provider splits on "&" only`,
	`splits the query or body at ";" as at "&", as Python's parse_qsl did before 3.9.2; only "&" separates pairs`,
	`cuts values at a ";": it decoded the query before splitting it; decode only after splitting`,
	`cuts the query at a "#" (an encoded "%23"): it decoded the URL before parsing it, and the rest became a fragment; decode only after splitting`,
	`cuts values at a NUL byte (%00), handling them as C strings; sign the whole value`,
	`cuts values at an "=" inside them: it split each pair at every "=", not only at the first`,
	`cuts the query at a "?" inside it: it split the URL at every "?", not only at the first (RFC 3986 §3.4)`,
	`encodes the names without decoding them first, so that their escapes are encoded again; decode query and form names before signing`,
	`turns " " and "." in names into "_", as PHP's parser does ($_GET, parse_str); sign the names as they are sent`,
	`signs an empty value as "name" without "="; it is "name=" (§3.4.1.3.2)`,
	`does not encode the parameter string as a whole after joining the pairs with "&" (§3.4.1.1)`,
}

// variants are the sets of bugs Reproduce tries, in order: one bug at a
// time, then the sets that libraries make together, then pairs seen
// together. Variants that change nothing for a request cost nothing.
var variants = []bug{
	bugPlus, bugPlusLiteral, bugNoForm, bugQueryInURI, bugQueryOnlyInURI, bugDefaultPort, bugScheme, bugHostAsSent,
	bugLowerHex, bugTwice, bugRawQuery, bugRawForm, bugUnencodedNames, bugNoEncoding, bugJSComponent, bugKeepSlash,
	bugJava, bugTilde, bugRealm, bugSignature, bugLatin1, bugKeepFirst, bugKeepLast, bugQueryWins,
	bugSortDecoded, bugSortJoined, bugDropEmpty, bugSemicolonDrop, bugSemicolonSplit, bugSemicolonCut, bugHashCut,
	bugNulCut, bugEqCut, bugQCut, bugRawNames, bugPHPNames, bugAnyPort, bugDecodedPath, bugNoEquals, bugNotReencoded,

	// Libraries' sets, as their source shows them.
	bugKeepLast | bugNulCut | bugPHPNames,                                             // PHP's PECL oauth
	bugKeepFirst | bugLatin1 | bugSortJoined,                                          // Perl's Net::OAuth
	bugEqCut | bugQCut | bugPlusLiteral | bugRawNames | bugQueryWins | bugHostAsSent,  // npm oauth-1.0a
	bugKeepFirst | bugAnyPort | bugSemicolonDrop,                                      // dghubble/oauth1
	bugHostAsSent | bugDecodedPath | bugSemicolonDrop,                                 // mrjones/oauth
	bugPlus | bugLowerHex,                                                             // a form encoder with lowercase hex
	bugScheme | bugDefaultPort,                                                        // the URL the client was configured with
	bugScheme | bugHostAsSent,                                                         // the same, with the host as typed
	bugPlus | bugSortDecoded,                                                          // hand-rolled: QueryEscape, then sort
	bugQueryInURI | bugPlus,                                                           // the URL as a string, form-encoded
	bugNoForm | bugQueryInURI,                                                         // the URL as a string, no body
	bugKeepFirst | bugSortDecoded,                                                     // a map of names, sorted
	bugKeepLast | bugSortDecoded,                                                      // the same, the last value kept
	bugNoEncoding | bugSortDecoded,                                                    // nothing encoded at all
	bugPlusLiteral | bugRawNames,                                                      // the query split, never decoded
	bugSemicolonDrop | bugKeepFirst,                                                   // Go's url.Values, first value
	bugHostAsSent | bugPlusLiteral,                                                    // npm oauth-1.0a in part
	bugEqCut | bugPlusLiteral | bugRawNames | bugQueryWins | bugHostAsSent,            // the same, no "?" in the query
	bugQCut | bugPlusLiteral | bugRawNames | bugQueryWins | bugHostAsSent,             // the same, no "=" in a value
	bugKeepFirst | bugLatin1, bugKeepFirst | bugSortJoined, bugLatin1 | bugSortJoined, // Net::OAuth in part
	bugKeepLast | bugNulCut, bugKeepLast | bugPHPNames, bugNulCut | bugPHPNames, // PECL oauth in part
	bugKeepFirst | bugAnyPort, bugAnyPort | bugSemicolonDrop, bugHostAsSent | bugDecodedPath, // dghubble/oauth1, mrjones/oauth in part
	bugHostAsSent | bugSemicolonDrop, bugDecodedPath | bugSemicolonDrop,
}

// A piece is one parameter as a client holds it before encoding.
type piece struct {
	name, value string
	query       bool // from the query, where a query value may replace a body's
}

// A rebuild holds the parts of the provider's base string and of the
// request, to build the base string again with bugs.
type rebuild struct {
	method             string // decoded
	scheme, host, path string // from the base string URI; host with any port
	query, form        string // as sent
	sentHost, realm    string
	other              []piece            // the parameters from neither the query nor the body
	fromRequest        bool               // query and form are the sources of the rest
	read               map[bug]readResult // pieces' results, by the bugs of reading
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
		r.query, r.form, r.fromRequest, r.other, r.read = "", "", false, nil, nil
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

// readBugs are the bugs that change how the query and the body are read.
const readBugs = bugPlusLiteral | bugRawQuery | bugRawForm | bugNoForm | bugQueryOnlyInURI | bugQCut | bugHashCut |
	bugSemicolonDrop | bugSemicolonSplit | bugSemicolonCut | bugEqCut | bugRawNames | bugNulCut | bugLatin1 | bugPHPNames |
	bugQueryWins | bugKeepFirst | bugKeepLast

// pieces reads the query and the form body as a client with bugs bs does,
// once for each set of the bugs of reading: most variants share one. The
// result is shared: the caller must not modify it.
func (r *rebuild) pieces(bs bug) ([]piece, bool) {
	bs &= readBugs
	if c, ok := r.read[bs]; ok {
		return c.ps, c.ok
	}
	ps, ok := r.readPieces(bs)
	if r.read == nil {
		r.read = map[bug]readResult{}
	}
	r.read[bs] = readResult{ps, ok}
	return ps, ok
}

type readResult struct {
	ps []piece
	ok bool
}

// readPieces is pieces, uncached.
func (r *rebuild) readPieces(bs bug) ([]piece, bool) {
	var ps []piece
	for i, raw := range [2]string{r.query, r.form} {
		query := i == 0
		if query && bs&bugQueryOnlyInURI != 0 || !query && bs&bugNoForm != 0 {
			continue
		}
		if query && bs&bugQCut != 0 {
			raw, _, _ = strings.Cut(raw, "?")
		}
		rawValues := query && bs&bugRawQuery != 0 || !query && bs&bugRawForm != 0
		if query && bs&bugHashCut != 0 {
			raw = raw[:hashAt(raw)]
		}
		for kv := range strings.SplitSeq(raw, "&") {
			if kv == "" {
				continue // "a=1&&b=2" has no third pair
			}
			if bs&bugSemicolonDrop != 0 && strings.Contains(kv, ";") {
				continue
			}
			kvs := []string{kv}
			if bs&bugSemicolonSplit != 0 {
				kvs = strings.Split(kv, ";")
			}
			for _, kv := range kvs {
				p, ok := readPair(kv, bs, rawValues)
				if !ok {
					return nil, false
				}
				if p.name == "oauth_signature" {
					continue // never signed, wherever it is sent (§3.4.1.3.1)
				}
				p.query = query
				ps = append(ps, p)
			}
		}
	}
	if bs&bugQueryWins != 0 {
		inQuery := map[string]bool{}
		for _, p := range ps {
			if p.query {
				inQuery[p.name] = true
			}
		}
		ps = slices.DeleteFunc(ps, func(p piece) bool { return !p.query && inQuery[p.name] })
	}
	if bs&(bugKeepFirst|bugKeepLast) != 0 {
		seen := map[string]int{}
		kept := ps[:0:0]
		for _, p := range ps {
			if i, ok := seen[p.name]; ok {
				if bs&bugKeepLast != 0 {
					kept[i] = p
				}
				continue
			}
			seen[p.name] = len(kept)
			kept = append(kept, p)
		}
		ps = kept
	}
	return ps, true
}

// hashAt returns the offset in raw of the first "#" or "%23": where a
// client that decodes the query before parsing it as a URL ends it.
func hashAt(raw string) int {
	for i := 0; i < len(raw); i++ {
		if raw[i] == '#' {
			return i
		}
		if raw[i] == '%' && i+2 < len(raw) && raw[i+1] == '2' && raw[i+2] == '3' {
			return i
		}
	}
	return len(raw)
}

// readPair reads one name=value pair of a query or form body as a client
// with bugs bs does. rawValues keeps the value as sent.
func readPair(kv string, bs bug, rawValues bool) (piece, bool) {
	n, v, _ := strings.Cut(kv, "=")
	if bs&bugEqCut != 0 {
		v, _, _ = strings.Cut(v, "=")
	}
	decode := percent.DecodeForm
	if bs&bugPlusLiteral != 0 {
		decode = percent.Decode
	}
	name, err1 := decode(n)
	value, err2 := decode(v)
	if err1 != nil || err2 != nil {
		return piece{}, false
	}
	if bs&bugRawNames != 0 {
		name = n
	}
	if rawValues {
		value = v
	}
	if bs&bugNulCut != 0 {
		value, _, _ = strings.Cut(value, "\x00")
	}
	if bs&bugSemicolonCut != 0 {
		value, _, _ = strings.Cut(value, ";")
	}
	if bs&bugLatin1 != 0 {
		name, value = latin1ToUTF8(name), latin1ToUTF8(value)
	}
	if bs&bugPHPNames != 0 {
		name = phpName(name)
	}
	return piece{name: name, value: value}, true
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
	if bs&bugDropEmpty != 0 {
		ps = slices.DeleteFunc(ps, func(p piece) bool { return p.value == "" })
	}
	enc := encoder(bs)
	type pair struct{ name, value, dname, dvalue string }
	pairs := make([]pair, len(ps))
	for i, p := range ps {
		name, value := enc(p.name), enc(p.value)
		switch {
		case bs&bugNoEncoding != 0:
			name, value = p.name, p.value
		case bs&bugUnencodedNames != 0:
			name = p.name
		}
		if bs&bugTwice != 0 {
			value = enc(value)
		}
		pairs[i] = pair{name, value, p.name, p.value}
	}
	slices.SortStableFunc(pairs, func(a, c pair) int {
		switch {
		case bs&bugSortDecoded != 0:
			return cmpPair(a.dname, a.dvalue, c.dname, c.dvalue)
		case bs&bugSortJoined != 0:
			return strings.Compare(a.name+"="+a.value, c.name+"="+c.value)
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
	return outer(strings.ToUpper(r.method)) + "&" + outer(uri) + "&" + params, true
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
	case bs&bugAnyPort != 0 && (port == "80" || port == "443"):
		host = hostname
	case bs&bugDefaultPort != 0 && port == "":
		host += map[string]string{"http": ":80", "https": ":443"}[r.scheme]
	}
	if bs&bugDecodedPath != 0 {
		if d, err := percent.Decode(path); err == nil {
			path = d
		}
	}
	uri := scheme + "://" + host + path
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
			return strings.NewReplacer("%20", "+", "%2A", "*", "~", "%7E").Replace(percent.Encode(s))
		}
	case bs&bugTilde != 0:
		return func(s string) string { return strings.ReplaceAll(percent.Encode(s), "~", "%7E") }
	}
	return percent.Encode
}

// keep returns an encoding that leaves the bytes of unreserved unencoded.
func keep(unreserved string) func(string) string {
	return func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if strings.IndexByte(unreserved, s[i]) >= 0 {
				b.WriteByte(s[i])
			} else {
				b.WriteString(percent.Encode(s[i : i+1]))
			}
		}
		return b.String()
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
