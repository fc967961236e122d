package basestring

import (
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
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
// variant of at most maxVariantBytes, and the work of mac.ReproduceWork
// (work.go); nothing at all for a base string or request over
// maxReproduceBytes.
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
// Latin-1, one value kept of a repeated name or an empty one replaced by
// the next, the body's values replacing the query's or the reverse, the
// parameters sorted before encoding, empty values dropped, values cut at
// ";", "#", "=", "?" or a NUL byte, the query or the form body left out, a
// path "//x/y" read as host "x", the bugs of reading made in the query
// only, the method in lowercase or as GET or POST, empty pairs signed,
// the parameters sorted by name only or not at all, the path cut at ";",
// its "//" collapsed or its dot segments removed, the query signed as
// sent or with its "?", and sets of these, the likeliest first by weights
// learned from 24 client libraries, as real clients make them), signs each with the right key (key's secrets, joined as
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
// and form body, over 8 KiB; variants that change nothing cost no HMAC.
// Building the variants costs more than their HMACs, on a request of many
// parameters many times more, so the search also stops before its work,
// counted as the bytes HMAC-SHA512 hashes in the same time, passes 768
// KiB and 1 KiB for each byte of base, query and form body, and 1.5 MiB
// in all: on the requests real clients send it does the whole search, and
// on the costliest crafted ones it takes about 2 ms of CPU
// (BenchmarkReproduceCrafted). It checks the HMAC methods only: for
// RSA and PLAINTEXT, and for what FIPS 140-only mode refuses, it reports
// false. Run it, like KeyMistake, on refusals a person debugs, once
// KeyMistake found the key right or found nothing.
//
// Like KeyMistake, it reports arguments out of order (base no base string,
// method a signature or a base string): then m is of kind [KeyUnchecked]
// and says so, signed is "" and ok is true, so that a swapped call is seen
// wherever a found bug would be.
func Reproduce(base, signature, method string, key Key, sent Request) (m Mistake, signed string, ok bool) {
	m, signed, ok, _ = reproduce(base, signature, method, key, sent)
	return m, signed, ok
}

// reproduce is Reproduce, and also returns how many HMACs it computed.
func reproduce(base, signature, method string, key Key, sent Request) (Mistake, string, bool, int) {
	return reproduceWithin(liveBudget, base, signature, method, key, sent)
}

// reproduceWithin is reproduce within budget b.
func reproduceWithin(b budget, base, signature, method string, key Key, sent Request) (Mistake, string, bool, int) {
	m, signed, ok, c := reproduceCounted(b, base, signature, method, key, sent)
	return m, signed, ok, c.hmacs
}

// reproduceWith is reproduceWithin with the bugs and weights of v.
func reproduceWith(b budget, v *vocabulary, base, signature, method string, key Key, sent Request) (Mistake, string, bool, int) {
	m, signed, ok, c := reproduceCountedWith(b, v, base, signature, method, key, sent)
	return m, signed, ok, c.hmacs
}

// A searchCost is what one search did: its HMACs, and its work in bytes
// hashed (work.go), within limit.
type searchCost struct {
	hmacs       int
	work, limit int64
}

// reproduceCounted is reproduceWithin, and also returns what it did.
func reproduceCounted(b budget, base, signature, method string, key Key, sent Request) (Mistake, string, bool, searchCost) {
	return reproduceCountedWith(b, defaultVocabulary, base, signature, method, key, sent)
}

// reproduceCountedWith is reproduceCounted with the bugs and weights of v.
func reproduceCountedWith(b budget, v *vocabulary, base, signature, method string, key Key, sent Request) (Mistake, string, bool, searchCost) {
	if len(base) > maxReproduceBytes || len(sent.Query)+len(sent.Form)+len(sent.Host)+len(sent.Realm) > maxReproduceBytes ||
		len(signature) > 1024 {
		return Mistake{}, "", false, searchCost{}
	}
	if m, bad := argsMistake("Reproduce", base, signature, method); bad && outOfOrder(base, signature, method) {
		return m, "", true, searchCost{}
	}
	method = strings.ToUpper(method)
	h, isRSA, known := mac.MethodHash(method)
	if !known || isRSA {
		return Mistake{}, "", false, searchCost{}
	}
	limit := b.work
	if limit == 0 {
		limit = mac.ReproduceWork(len(base), len(sent.Query)+len(sent.Form))
	}
	p, err := Parse(base)
	if err != nil {
		return Mistake{}, "", false, searchCost{}
	}
	r, ok := newRebuild(p, base, sent)
	if !ok {
		return Mistake{}, "", false, searchCost{limit: limit} // at most two builds, which limit covers
	}
	t := &hmacTry{method: method, hash: h, sent: sentForms(signature)}
	hashes := t.hashes()
	if len(hashes) == 0 {
		return Mistake{}, "", false, searchCost{work: r.work, limit: limit}
	}
	h = hashes[0]
	if r.fromRequest {
		r.bodyHash = bodyHash(h, r.form)
		r.work += int64(len(r.form))
	}
	s := &search{r: r, base: base, t: t, h: h, key: signingKey(key.ConsumerSecret, key.TokenSecret), b: b, tried: map[string]bool{},
		limit: limit, next: r.work, v: v}
	f := s.run()
	if f == nil {
		return Mistake{}, "", false, searchCost{t.n, r.work, limit}
	}
	m := r.mistake(f.bs, f.signed, f.form, h != t.hash, method, h)
	return m, f.signed, true, searchCost{t.n, r.work, limit}
}

// bug is one way a client library builds the base string wrongly; a
// variant switches on a set of them.
type bug uint64

const (
	bugPlus             bug = 1 << iota // names and values encoded with "+" for a space
	bugPlusLiteral                      // "+" in the query or body not decoded as a space
	bugTwice                            // values percent-encoded twice
	bugRawQuery                         // query values signed as sent, not decoded
	bugRawForm                          // form values signed as sent, not decoded
	bugNoEncoding                       // names and values not encoded
	bugUnencodedNames                   // names not encoded
	bugLowerHex                         // lowercase hex in escapes
	bugJSComponent                      // "!'()*" left unencoded (encodeURIComponent)
	bugKeepSlash                        // "/" left unencoded (Python's quote)
	bugJava                             // java.net.URLEncoder: "+", "*" unencoded, "~" encoded
	bugTilde                            // "~" encoded as "%7E"
	bugNoForm                           // the form body left out
	bugQueryInURI                       // the query kept in the base string URI, and signed
	bugQueryOnlyInURI                   // the query kept in the base string URI, not signed
	bugDefaultPort                      // :80 or :443 kept
	bugScheme                           // http for https, or https for http
	bugHostAsSent                       // the Host as sent: its case, any port
	bugAnyPort                          // :80 and :443 dropped whatever the scheme
	bugDecodedPath                      // the path decoded
	bugRealm                            // realm signed
	bugSignature                        // an empty oauth_signature signed
	bugLatin1                           // UTF-8 bytes read as Latin-1
	bugKeepFirst                        // the first value of a repeated name kept
	bugKeepLast                         // the last value of a repeated name kept
	bugQueryWins                        // a query value replaces a body value of the same name
	bugSortDecoded                      // sorted before encoding
	bugSortJoined                       // sorted by the joined "name=value"
	bugDropEmpty                        // empty values dropped
	bugSemicolonDrop                    // pairs holding ";" dropped (Go's url.ParseQuery)
	bugSemicolonSplit                   // ";" separating pairs as "&" does
	bugSemicolonCut                     // values cut at a ";"
	bugHashCut                          // the query decoded, then cut at a "#"
	bugNulCut                           // values cut at a NUL byte
	bugEqCut                            // values cut at an "=" inside them
	bugQCut                             // the query cut at a "?" inside it
	bugRawNames                         // names not decoded before being encoded
	bugPHPNames                         // " " and "." in names turned into "_"
	bugNoEquals                         // empty values signed as "name", without "="
	bugNotReencoded                     // the parameter string not encoded as a whole
	bugNoQuery                          // the query left out entirely
	bugEmptyToken                       // an empty oauth_token signed, and not sent
	bugBodyHash                         // an oauth_body_hash of the form body signed, and not sent
	bugNoRootSlash                      // the path "/" left out of the base string URI
	bugUnencodedValues                  // values not encoded
	bugSpacePlus                        // a space in the query or body signed as a literal "+"
	bugSchemeUpper                      // the scheme in uppercase, as typed: "HTTPS"
	bugSchemeTitle                      // the scheme capitalized, as typed: "Https"
	bugFormWins                         // a body value replaces the query's values of the same name
	bugEmptyReplaced                    // an empty value replaced by the next value of its name
	bugNetworkPath                      // a path that starts with "//" read as "//host/path"
	bugQueryOnly                        // the bugs of reading the query and body made in the query only
	bugMethodLower                      // the method signed in lowercase, as given ("get")
	bugEmptyPairs                       // an empty pair ("&&") read as the pair "="
	bugSortByName                       // sorted by name only: a repeated name's values in the order sent
	bugUnsorted                         // the parameters not sorted: query, body, then the protocol's
	bugPathParams                       // the path cut at its first ";" (RFC 2396 path parameters)
	bugPathSlashes                      // empty path segments ("//") collapsed into one "/"
	bugDotSegments                      // "." and ".." path segments removed (RFC 3986 §5.2.4)
	bugURILower                         // the whole base string URI in lowercase, path too
	bugQueryVerbatim                    // the query's pairs signed as sent: neither decoded nor encoded
	bugQMarkKept                        // the "?" kept at the head of the query's first name
	bugMethodGetPost                    // POST signed for PUT and PATCH, GET for the other methods
	bugSortNameReversed                 // sorted by name only: a repeated name's values in reverse order
	bugCount            = iota
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
	`leaves the query's parameters out of the base string, and the query out of its URI; the query's parameters are signed (§3.4.1.3.1)`,
	`signs an empty oauth_token that the request does not carry; sign the parameters sent, and send those signed`,
	`signs an oauth_body_hash that the request does not carry; send it, or do not sign it (a form-encoded body has none)`,
	`leaves the path "/" out of the base string URI of a URL that has no path; the base string URI of "https://example.com" is "https://example.com/" (§3.4.1.2, RFC 3986 §6.2.3)`,
	`does not percent-encode the parameter values before joining them; encode each (§3.4.1.3.2)`,
	`signs a literal "+" for a space in the query or form body: the URL it signed had "+" where the request sent "%20", or it did not decode "+"; decode "+" as a space, and sign the request as it is sent (§3.4.1.3.1)`,
	`signs the scheme in uppercase, as the URL it was given has it ("HTTPS"); the base string URI has the scheme in lowercase (§3.4.1.2)`,
	`signs the scheme capitalized, as the URL it was given has it ("Https"); the base string URI has the scheme in lowercase (§3.4.1.2)`,
	`lets a form body value replace the query's values of the same name; every pair of both is signed (§3.4.1.3.2)`,
	`takes an empty value for no value, and replaces it with the next value of the same name (a falsy "" in JavaScript, PHP, Perl or Python); every pair is signed, "name=" too (§3.4.1.3.2)`,
	`reads a path that starts with "//" as a host and a path ("//x/y" as host "x", path "/y"), as URL parsers do with a network-path reference; the base string URI keeps the path as sent (§3.4.1.2)`,
	`makes these mistakes of reading in the query only: it parses the URL's query itself, and takes the form body's parameters as they were given to it`,
	`signs the method in lowercase, as it was given ("get"); the base string has it in uppercase (§3.4.1.1)`,
	`signs an empty pair of the query or body ("a=1&&b=2") as the parameter "="; split on "&" and skip the empty pieces`,
	`sorts the parameters by name only, and keeps a repeated name's values in the order they were sent; pairs of the same name are sorted by value (§3.4.1.3.2)`,
	`does not sort the parameters: it signs them in the order it has them; sort them by encoded name, then encoded value (§3.4.1.3.2)`,
	`cuts the path at its first ";", taking the rest for path parameters (RFC 2396, Python's urlparse); the base string URI keeps the whole path (§3.4.1.2)`,
	`collapses the empty segments of the path ("//" into "/"); the base string URI keeps the path as sent (§3.4.1.2)`,
	`removes the "." and ".." segments of the path (RFC 3986 §5.2.4) where the request sent them; sign the path that is sent (§3.4.1.2)`,
	`lowercases the whole base string URI, path and all; only the scheme and the host are lowercase (§3.4.1.2)`,
	`signs the query's pairs as they are sent, neither decoded nor encoded; decode each name and value, then encode it (§3.4.1.3.1, §3.4.1.3.2)`,
	`keeps the "?" at the head of the query's first name: it split the URL one character early; the query starts after the "?" (RFC 3986 §3.4)`,
	`signs POST for a PUT or PATCH and GET for the other methods, as an HTTP client that knows only those two does; sign the method the request is sent with (§3.4.1.1)`,
	`sorts the parameters by name only, and a repeated name's values in the reverse of the order they were sent (a multimap that puts each new value first); pairs of the same name are sorted by value (§3.4.1.3.2)`,
}
