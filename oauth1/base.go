package oauth1

import (
	"bytes"
	"crypto"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/countersign/countersign/percent"
)

// A param is one signed name/value pair, stored in state.enc in the form it
// takes in the base string (encoded twice, see baseenc.go) with its
// separators: the name is enc[k0:k1], "%3D" follows, then the value up to
// v1, then "%26". Offsets rather than slices, because enc grows while
// parameters are added. Four fields at most, so that the compiler keeps a
// param in registers and appends it field by field: a larger struct is
// built in a stack slot with narrow stores and then copied with 16-byte
// loads of those bytes, which cannot be forwarded from the store buffer.
type param struct {
	// key holds the first eight bytes of the name, big-endian and
	// zero-padded, so that most comparisons in the sort are one integer
	// compare. Zero padding sorts right: an encoded name never holds a NUL.
	key        uint64
	k0, k1, v1 int32
}

func newParam(k0, k1, v1 int) param {
	return param{k0: int32(k0), k1: int32(k1), v1: int32(v1)}
}

// setKeys fills in the key of every param. It runs once all are added, not
// as each is: the encoders write a name with overlapping eight-byte stores,
// and an eight-byte load of those bytes straight after cannot be served from
// the store buffer, which stalled every parameter.
func (s *state) setKeys() {
	enc := s.enc
	for i := range s.params {
		p := &s.params[i]
		k0, k1 := int(p.k0), int(p.k1)
		var key uint64
		if k0+8 <= cap(enc) {
			// One load, past the name into "%3D" and whatever follows (the
			// slice may extend beyond len into spare capacity), and a mask
			// to keep the name's bytes.
			key = binary.BigEndian.Uint64(enc[k0 : k0+8 : cap(enc)])
			if n := k1 - k0; n < 8 {
				key &^= ^uint64(0) >> (8 * n)
			}
		} else {
			for _, c := range enc[k0:min(k1, k0+8)] {
				key = key<<8 | uint64(c)
			}
			key <<= 8 * uint(8-min(k1-k0, 8))
		}
		p.key = key
	}
}

// state is the scratch space of one signing operation, pooled so that
// signing a request allocates little beyond what it hands back.
type state struct {
	signer  Signer
	method  string
	enc     []byte     // the parameters as the base string holds them, back to back
	params  []param    // sorted before the base string is written
	nreq    int        // params[:nreq] came with the request
	tmp     []param    // the radix sort's second buffer
	items   []uint64   // the radix sort's keys and indices
	scratch []byte     // the base string URI
	body    []byte     // a form body read through GetBody
	form    []byte     // the form body's bytes, wherever they came from; read once
	base    []byte     // the signature base string
	hdr     []byte     // the protocol parameters as the Authorization header carries them, but oauth_signature
	hdrSig  int        // where in hdr oauth_signature goes
	hdrOK   bool       // hdr is written for this request: header delivery, no extra parameters
	sig     []byte     // an HMAC signature, base64
	mac     [64]byte   // an HMAC before base64
	hmac    *hmacState // the last HMAC's hash state; holds no key material
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// maxPooledBytes keeps a state that once signed a huge body from pinning
// that memory in the pool; bodies of a few hundred KiB still reuse it.
const maxPooledBytes = 1 << 20

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	if cap(s.body)+cap(s.enc)+cap(s.scratch)+cap(s.base)+cap(s.hdr)+24*(cap(s.params)+cap(s.tmp))+8*cap(s.items) > maxPooledBytes {
		return
	}
	s.signer, s.method, s.form = nil, "", nil
	s.enc, s.params, s.scratch, s.body, s.base = s.enc[:0], s.params[:0], s.scratch[:0], s.body[:0], s.base[:0]
	s.tmp, s.sig, s.hdr, s.hdrOK = s.tmp[:0], s.sig[:0], s.hdr[:0], false
	statePool.Put(s)
}

func (s *state) name(p param) []byte  { return s.enc[p.k0:p.k1] }
func (s *state) value(p param) []byte { return s.enc[p.k1+3 : p.v1] }

const formType = "application/x-www-form-urlencoded"

// build collects the parameters of r and writes the signature base string
// into s.base.
func (s *state) build(c *Config, r *http.Request, tok *Credentials, t time.Time, nonce string, extra []Param) error {
	switch {
	case c == nil:
		return errors.New("oauth1: nil Config")
	case r == nil:
		return errors.New("oauth1: nil request")
	case r.URL == nil:
		return errors.New("oauth1: request has no URL")
	case c.Consumer.Token == "":
		return errors.New("oauth1: missing consumer key (Config.Consumer.Token)")
	}
	if !validMethod(r.Method) {
		// net/http would refuse to send it; say so before signing it.
		return fmt.Errorf("oauth1: invalid method %q", r.Method)
	}
	s.signer = c.signer()
	s.method = s.signer.Method()
	if s.method == "" {
		switch m := s.signer.(type) {
		case HMAC:
			return unsupportedHash("HMAC", m.Hash)
		case RSA:
			return unsupportedHash("RSA", m.Hash)
		}
		return fmt.Errorf("oauth1: signer %T has an empty Method name", s.signer)
	}
	plain := s.method == "PLAINTEXT"
	if plain && !c.AllowInsecurePlainText && !strings.EqualFold(r.URL.Scheme, "https") {
		return fmt.Errorf("oauth1: PLAINTEXT needs an https URL, not %q (RFC 5849 §3.4.4); set Config.AllowInsecurePlainText to override", r.URL.Scheme)
	}
	omitTime := plain && t.IsZero() && nonce == ""
	if !omitTime {
		if t.IsZero() {
			return errors.New("oauth1: zero timestamp")
		}
		if nonce == "" {
			return errors.New("oauth1: empty nonce")
		}
	}

	// The base string URI goes into scratch first, so that it can be
	// encoded as a whole into the base string.
	uri, err := appendBaseURI(s.scratch[:0], r)
	if err != nil {
		return err
	}
	s.scratch = uri

	form, hasBody, err := s.collect(r, c.maxBodyBytes())
	if err != nil {
		return err
	}
	if c.Delivery == FormBody && hasBody && !form {
		return errors.New("oauth1: FormBody delivery needs an application/x-www-form-urlencoded body")
	}

	// Protocol parameters (§3.4.1.3.1), added in sorted order so that
	// sorting them below has little to do unless extra ones follow.
	n := len(s.params)
	// Extra parameters can sort anywhere among the built-in ones, so the
	// header is written ahead only without them.
	s.hdr, s.hdrOK = s.hdr[:0], c.Delivery == AuthHeader && len(extra) == 0
	if c.BodyHash != 0 && !form && c.Delivery != FormBody {
		sum, err := s.bodyHash(c, r, hasBody)
		if err != nil {
			return err
		}
		s.addProto("oauth_body_hash", sum)
	}
	s.addProto("oauth_consumer_key", c.Consumer.Token)
	if !omitTime {
		s.addProto("oauth_nonce", nonce)
	}
	s.hdrSig = len(s.hdr) // oauth_signature sorts here
	s.addProto("oauth_signature_method", s.method)
	if !omitTime {
		var ts [20]byte
		s.addProto("oauth_timestamp", unsafeString(strconv.AppendInt(ts[:0], t.Unix(), 10)))
	}
	if tok.token() != "" {
		s.addProto("oauth_token", tok.Token)
	}
	if !c.OmitVersion {
		s.addProto("oauth_version", "1.0")
	}
	for _, p := range extra {
		if p.Name == "realm" || p.Name == "oauth_signature" {
			return fmt.Errorf("oauth1: %q cannot be an extra protocol parameter", p.Name)
		}
		s.addExtra(p.Name, p.Value)
	}
	s.setKeys()
	if err := s.checkDuplicates(n, len(extra)); err != nil {
		return err
	}

	s.sortParams(n, len(extra) == 0) // protocol parameters were added in order
	s.writeBase(r.Method)
	return nil
}

// collect adds the parameters of r's query and, when it is form-encoded,
// of its body (§3.4.1.3.1). It reports whether the body is a form and
// whether r has a body at all.
func (s *state) collect(r *http.Request, limit int64) (form, hasBody bool, err error) {
	if err := s.addForm(r.URL.RawQuery, "query"); err != nil {
		return false, false, err
	}
	form, err = isForm(headerValue(r.Header, "Content-Type"))
	if err != nil {
		return false, false, err
	}
	hasBody = r.Body != nil && r.Body != http.NoBody
	if form && hasBody {
		// A verifier has read the body already, for its protocol parameters.
		body := s.form
		if body == nil {
			if body, err = s.readBody(r, limit); err != nil {
				return false, false, err
			}
			s.form = body
		}
		if err := s.addForm(unsafeString(body), "body"); err != nil {
			return false, false, err
		}
	}
	return form, hasBody, nil
}

// sortParams sorts by encoded name, then encoded value, byte-wise
// (§3.4.1.3.2): the first n params, which came with the request, and the
// protocol parameters after them each on their own, so that the protocol
// parameters are at hand in order for delivery and a large form sorts
// without them. writeBase merges the two. protoSorted says the protocol
// parameters were added in order already.
func (s *state) sortParams(n int, protoSorted bool) {
	s.nreq = n
	s.sortRun(s.params[:n])
	if !protoSorted {
		s.sortRun(s.params[n:])
	}
}

// sortRun sorts ps. A handful of parameters takes an insertion sort, a few
// dozen a pdqsort, and many (a large form body) a radix sort.
func (s *state) sortRun(ps []param) {
	switch {
	case len(ps) <= itemSortMax:
		s.itemSort(ps)
	case len(ps) < radixMin:
		slices.SortFunc(ps, s.compare)
	default:
		s.tmp = slices.Grow(s.tmp[:0], len(ps))[:len(ps)]
		s.radixSort(ps, s.tmp)
	}
}

// radixSort sorts ps on the keys' bytes, then each run of equal keys by
// s.compare. It looks only at the bytes in which the keys differ, so the
// "field" that every name of a large form shares costs nothing: when at
// most three bytes differ, a counting sort on each of them, least
// significant first; otherwise one pass on the most significant differing
// byte, and the same again within each bucket. tmp is scratch space as long
// as ps.
func (s *state) radixSort(ps, tmp []param) {
	if len(ps) <= insertionMax {
		s.insertionSort(ps)
		return
	}
	var diff uint64
	k := ps[0].key
	for _, p := range ps {
		diff |= p.key ^ k
	}
	if diff == 0 { // one name repeated, or names that share eight bytes
		slices.SortFunc(ps, s.compare)
		return
	}
	var shifts [3]uint
	n := 0
	for shift := uint(0); shift < 64 && n >= 0; shift += 8 {
		if byte(diff>>shift) != 0 {
			if n == len(shifts) {
				n = -1
				break
			}
			shifts[n] = shift
			n++
		}
	}
	if n < 0 {
		shift := uint(56 - bits.LeadingZeros64(diff)&^7)
		var start [257]int32
		for _, p := range ps {
			start[byte(p.key>>shift)+1]++
		}
		for i := 1; i < len(start); i++ {
			start[i] += start[i-1]
		}
		next := start
		for _, p := range ps {
			d := byte(p.key >> shift)
			tmp[next[d]] = p
			next[d]++
		}
		copy(ps, tmp)
		for d := range 256 {
			if lo, hi := start[d], start[d+1]; hi-lo > 1 {
				s.radixSort(ps[lo:hi], tmp[lo:hi])
			}
		}
		return
	}

	// Sort eight-byte items, not the params: the differing key bytes,
	// most significant first, above the param's index. Moving a third of
	// the bytes makes each pass that much faster, and the params move once.
	items := slices.Grow(s.items[:0], 2*len(ps))[:2*len(ps)]
	src, dst := items[:len(ps)], items[len(ps):]
	var count [len(shifts)][256]int32
	for i, p := range ps {
		var c uint64
		for b := n - 1; b >= 0; b-- {
			d := byte(p.key >> shifts[b])
			count[b][d]++
			c = c<<8 | uint64(d)
		}
		src[i] = c<<32 | uint64(i)
	}
	for b := range n {
		var next [256]int32
		sum := int32(0)
		for d, c := range count[b] {
			next[d] = sum
			sum += c
		}
		shift := 32 + 8*uint(b)
		for _, it := range src {
			d := byte(it >> shift)
			dst[next[d]] = it
			next[d]++
		}
		src, dst = dst, src
	}
	for i, it := range src {
		tmp[i] = ps[uint32(it)]
	}
	copy(ps, tmp)
	s.items = items
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].key == ps[i].key {
			j++
		}
		if j-i > 1 {
			s.insertionSortOrPdq(ps[i:j])
		}
		i = j
	}
}

// itemSort sorts a few dozen params (at most 256: an item holds the index
// in one byte), a request's usual query and form. It insertion-sorts
// eight-byte items, the top seven bytes of a key above the param's index,
// and moves each param once: moving 24-byte params through the insertion
// sort cost more than the comparing. Items whose seven bytes tie (repeated
// names, names that share them) are ordered by whole key, then compareTail.
func (s *state) itemSort(ps []param) {
	if len(ps) < 2 {
		return
	}
	items := slices.Grow(s.items[:0], len(ps))[:len(ps)]
	for i, p := range ps {
		items[i] = p.key&^0xFF | uint64(i)
	}
	sorted := true
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for ; j > 0; j-- {
			y := items[j-1]
			if (x^y)>>8 != 0 {
				if y < x {
					break
				}
			} else if a, b := &ps[byte(y)], &ps[byte(x)]; a.key < b.key || a.key == b.key && s.compareTail(a, b) <= 0 {
				break
			}
			items[j] = y
		}
		items[j] = x
		sorted = sorted && j == i
	}
	s.items = items
	if sorted {
		return
	}
	tmp := slices.Grow(s.tmp[:0], len(ps))[:len(ps)]
	for i, it := range items {
		tmp[i] = ps[byte(it)]
	}
	copy(ps, tmp)
	s.tmp = tmp
}

func (s *state) insertionSortOrPdq(ps []param) {
	if len(ps) <= insertionMax {
		s.insertionSort(ps)
	} else {
		slices.SortFunc(ps, s.compare)
	}
}

// Measured on the bench cases: an insertion sort wins up to a few dozen
// parameters, and the radix sort, whose every pass clears and sums a
// 257-entry table, from a few hundred.
const (
	itemSortMax  = 48
	insertionMax = 48
	radixMin     = 256
)

// insertionSort sorts a few parameters: a request's usual ten or so, or a
// run of a repeated name. Below a few dozen elements it beats a SortFunc call,
// whose setup costs more than the sorting.
func (s *state) insertionSort(ps []param) {
	for i := 1; i < len(ps); i++ {
		x := ps[i]
		j := i
		for ; j > 0; j-- {
			y := &ps[j-1]
			if y.key < x.key || y.key == x.key && s.compareTail(y, &x) <= 0 {
				break
			}
			ps[j] = *y
		}
		ps[j] = x
	}
}

func (s *state) compare(a, b param) int {
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	return s.compareTail(&a, &b)
}

// compareTail orders a and b when their keys are equal. It takes pointers:
// two params by value are more than the register ABI passes in registers,
// and this is the sort's hot call, on the repeated names of a large form.
func (s *state) compareTail(a, b *param) int {
	// Equal keys and equal lengths up to eight bytes are equal names.
	if n := a.k1 - a.k0; n > 8 || n != b.k1-b.k0 {
		if c := compareBytes(s.enc[a.k0:a.k1], s.enc[b.k0:b.k1]); c != 0 {
			return c
		}
	}
	return compareBytes(s.enc[a.k1+3:a.v1], s.enc[b.k1+3:b.v1])
}

// compareBytes is bytes.Compare, eight bytes at a time: the values of a
// repeated name tend to share a prefix, and are short enough that
// bytes.Compare's setup costs more than the comparing.
func compareBytes(x, y []byte) int {
	for len(x) >= 8 && len(y) >= 8 {
		a, b := binary.BigEndian.Uint64(x), binary.BigEndian.Uint64(y)
		if a != b {
			if a < b {
				return -1
			}
			return 1
		}
		x, y = x[8:], y[8:]
	}
	return bytes.Compare(x, y)
}

// checkDuplicates refuses a request whose query or body already carries a
// protocol parameter that is being added (a second oauth_nonce would be a
// request that providers reject), and extra parameters that repeat one.
// params[:n] came from the request, params[n:] are the protocol parameters,
// the last nExtra of them given by the caller: only those can repeat
// another protocol parameter.
func (s *state) checkDuplicates(n, nExtra int) error {
	proto := s.params[n:]
	for i := len(proto) - nExtra; i < len(proto); i++ {
		name := s.name(proto[i])
		for j := range i {
			if bytes.Equal(name, s.name(proto[j])) {
				return fmt.Errorf("oauth1: protocol parameter %s given twice", appendOnce(nil, name))
			}
		}
	}
	for _, q := range s.params[:n] {
		// The key holds a name's first eight bytes, so most names are
		// ruled out without reading s.enc: a large form has thousands.
		if q.key>>16 != oauthKey {
			continue
		}
		name := s.name(q)
		if string(name) == "oauth_signature" {
			return errors.New("oauth1: the request already carries an oauth_signature parameter")
		}
		for _, p := range proto {
			if bytes.Equal(name, s.name(p)) {
				return fmt.Errorf("oauth1: the request already carries protocol parameter %s", appendOnce(nil, name))
			}
		}
	}
	return nil
}

// sigKey is the key of oauth_signature, the first eight bytes of its name.
var sigKey = binary.BigEndian.Uint64([]byte("oauth_si"))

// oauthKey is "oauth_" as the top six bytes of a param key.
var oauthKey = binary.BigEndian.Uint64([]byte("oauth_\x00\x00")) >> 16

// addProto adds a protocol parameter; name is one of this package's
// oauth_* constants, which need no encoding. Extra parameters from the
// caller go through addExtra. For header delivery it also writes the
// parameter as the header carries it into s.hdr.
func (s *state) addProto(name, value string) {
	k0 := len(s.enc)
	s.enc = append(s.enc, name...)
	plain := s.addValue(k0, value)
	if s.hdrOK {
		s.hdr = append(s.hdr, name...)
		s.hdr = append(s.hdr, `="`...)
		if plain {
			s.hdr = append(s.hdr, value...)
		} else {
			s.hdr = percent.AppendEncode(s.hdr, value)
		}
		s.hdr = append(s.hdr, `", `...)
	}
}

// addExtra adds a protocol parameter named by the caller, encoding both
// name and value.
func (s *state) addExtra(name, value string) {
	k0 := len(s.enc)
	s.enc = appendTwice(s.enc, name)
	s.addValue(k0, value)
}

// addValue ends the parameter whose name starts at s.enc[k0:] with value,
// and reports whether value needed no escaping.
func (s *state) addValue(k0 int, value string) (plain bool) {
	k1 := len(s.enc)
	s.enc = append(s.enc, "%3D"...)
	if plain = percent.EncodedLen(value) == len(value); plain {
		// Nonces, keys, tokens and timestamps are mostly unreserved
		// bytes: counting escapes two bytes a lookup and copying beats
		// encoding byte by byte.
		s.enc = append(s.enc, value...)
	} else {
		s.enc = appendTwice(s.enc, value)
	}
	v1 := len(s.enc)
	s.enc = append(s.enc, "%26"...)
	s.params = append(s.params, newParam(k0, k1, v1))
	return plain
}

// headerValue is h.Get(key) for a key already in canonical form, without
// canonicalizing it again on every request.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// addForm adds the pairs of an application/x-www-form-urlencoded string,
// split on "&" alone: net/url.ParseQuery also splits on ";" in some versions
// and drops such pairs in others, and either way the signed set would differ
// from what the server sees. Empty pairs are skipped, as every form parser
// does; a name without "=" has an empty value. Each pair goes into s.enc in
// one pass, decoded and encoded twice (see baseenc.go), with its separators.
func (s *state) addForm(raw, where string) error {
	n := len(raw)
	// No byte of raw writes more than five bytes, a pair without "=" gets
	// three more, and the last store may write eight.
	s.enc = slices.Grow(s.enc, 5*n+16)
	out := s.enc[:cap(s.enc)]
	j := len(s.enc)
	for i := 0; i < n; {
		if raw[i] == '&' { // an empty pair
			i++
			continue
		}
		k0, k1 := j, -1
		t := &formName
	pair:
		for i < n {
			c := raw[i]
			if e := t[c]; e != 0 {
				j = put(out, j, e)
				i++
				continue
			}
			switch c {
			case '%':
				if i+2 >= n || unhex[raw[i+1]]|unhex[raw[i+2]] == 0xFF {
					return formError(where, raw, i)
				}
				j = put(out, j, twice[unhex[raw[i+1]]<<4|unhex[raw[i+2]]])
				i += 3
			case '=':
				k1 = j
				j = put(out, j, sepEq)
				t = &formValue // a later "=" is part of the value
				i++
			default: // '&'
				i++
				break pair
			}
		}
		if k1 < 0 {
			k1 = j
			j = put(out, j, sepEq)
		}
		v1 := j
		j = put(out, j, sepAmp)
		s.params = append(s.params, newParam(k0, k1, v1))
	}
	s.enc = out[:j]
	return nil
}

// formError reports a malformed escape at raw[i] with its offset in the
// whole query or body.
func formError(where, raw string, i int) error {
	end := min(i+3, len(raw))
	return fmt.Errorf("oauth1: malformed %s: %w", where, &percent.EscapeError{Offset: i, Escape: raw[i:end]})
}

// appendBaseURI appends the base string URI of §3.4.1.2: scheme and host
// lowercased, the default port dropped, the path exactly as it goes on the
// wire, no query.
func appendBaseURI(dst []byte, r *http.Request) ([]byte, error) {
	u := r.URL
	host := r.Host // what net/http sends as the Host header, when set
	if host == "" {
		host = u.Host
	}
	if u.Scheme == "" || host == "" {
		return dst, fmt.Errorf("oauth1: request URL %q is not absolute", u.Redacted())
	}
	dst = appendLower(dst, u.Scheme)
	dst = append(dst, "://"...)
	// net/http drops an empty port from the Host header.
	host = strings.TrimSuffix(host, ":")
	host, err := wireHost(host)
	if err != nil {
		return dst, fmt.Errorf("oauth1: request host: %w", err)
	}
	switch {
	case strings.EqualFold(u.Scheme, "http") && strings.HasSuffix(host, ":80"):
		host = host[:len(host)-3]
	case strings.EqualFold(u.Scheme, "https") && strings.HasSuffix(host, ":443"):
		host = host[:len(host)-4]
	}
	dst = appendLower(dst, host)

	path := u.EscapedPath()
	if u.Opaque != "" {
		// net/http sends an opaque URL verbatim as the request target.
		switch {
		case strings.HasPrefix(u.Opaque, "//"):
			rest := u.Opaque[2:]
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				path = rest[i:]
			} else {
				path = ""
			}
		case strings.HasPrefix(u.Opaque, "/"):
			path = u.Opaque
		default:
			return dst, fmt.Errorf("oauth1: request URL %q has an opaque part that is not a path", u.Redacted())
		}
	}
	if path == "" {
		path = "/"
	}
	return append(dst, path...), nil
}

// validMethod reports whether m is an RFC 9110 token (or empty, which
// net/http sends as GET).
func validMethod(m string) bool {
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// writeBase writes method&uri&params into s.base (§3.4.1.1). The URI is in
// s.scratch; the parameters are sorted.
func (s *state) writeBase(method string) {
	b := s.base[:0]
	if method == "" {
		method = http.MethodGet // as net/http sends it
	}
	start := len(b)
	b = percent.AppendEncode(b, method) // a token may hold "!", "*"...
	for i := start; i < len(b); i++ {
		if c := b[i]; 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	b = append(b, '&')
	b = percent.AppendEncode(b, unsafeString(s.scratch))
	b = append(b, '&')
	if len(s.params) == 0 {
		s.base = b
		return
	}
	// Each parameter is in s.enc as it goes into the base string, with its
	// "%3D" and a trailing "%26" that the last one drops. s.enc may hold a
	// few more bytes, of a parameter a verifier dropped: its length bounds
	// the size.
	b = slices.Grow(b, len(s.enc))
	out := b[len(b) : len(b)+len(s.enc)]
	j := 0
	req, proto := s.params[:s.nreq], s.params[s.nreq:]
	for len(req) > 0 && len(proto) > 0 {
		p := &req[0]
		if q := &proto[0]; q.key < p.key || q.key == p.key && s.compareTail(q, p) < 0 {
			p, proto = q, proto[1:]
		} else {
			req = req[1:]
		}
		j += copy(out[j:], s.enc[p.k0:p.v1+3])
	}
	for _, p := range req {
		j += copy(out[j:], s.enc[p.k0:p.v1+3])
	}
	for _, p := range proto {
		j += copy(out[j:], s.enc[p.k0:p.v1+3])
	}
	s.base = b[:len(b)+j-3]
}

// isForm reports whether a Content-Type names an
// application/x-www-form-urlencoded body, in any case, with or without
// parameters.
func isForm(ct string) (bool, error) {
	if ct == "" {
		return false, nil
	}
	if ct == formType || strings.EqualFold(ct, formType) {
		return true, nil // the common case, without mime's allocations
	}
	if !containsFold(ct, "x-www-form-urlencoded") {
		return false, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if mt == formType {
		return true, nil // a malformed charset does not change what the body is
	}
	if err != nil {
		return false, fmt.Errorf("oauth1: malformed Content-Type %q: %w", ct, err)
	}
	return false, nil
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// readBody returns r's body without consuming it: through GetBody when r
// has one, otherwise by reading r.Body and replacing it with an in-memory
// copy (with GetBody) so that the request can still be sent and replayed.
func (s *state) readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d, limit %d bytes", ErrBodyTooLarge, r.ContentLength, limit)
	}
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: GetBody: %w", err)
		}
		defer rc.Close()
		s.body, err = readLimited(s.body[:0], rc, limit)
		return s.body, err
	}
	b, err := readLimited(nil, r.Body, limit)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	setBody(r, b)
	return b, nil
}

// setBody makes b the body of r, with GetBody and ContentLength to match.
func setBody(r *http.Request, b []byte) {
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	r.ContentLength = int64(len(b))
	if len(b) == 0 {
		r.Body = http.NoBody
		r.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
	}
}

// readLimited appends all of rd to dst, failing rather than truncating when
// there is more than limit bytes.
func readLimited(dst []byte, rd io.Reader, limit int64) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := rd.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if int64(len(dst)) > limit {
			return nil, fmt.Errorf("%w: limit %d bytes", ErrBodyTooLarge, limit)
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return nil, fmt.Errorf("oauth1: reading request body: %w", err)
		}
	}
}

// bodyHash returns the oauth_body_hash value: the base64 hash of the body,
// of the empty string when there is none.
func (s *state) bodyHash(c *Config, r *http.Request, hasBody bool) (string, error) {
	h := c.BodyHash
	if h != crypto.SHA1 && h != crypto.SHA256 && h != crypto.SHA512 {
		return "", errors.New("oauth1: oauth_body_hash: unsupported hash " + hashName(h))
	}
	var body []byte
	if hasBody {
		var err error
		if body, err = s.readBody(r, c.maxBodyBytes()); err != nil {
			return "", err
		}
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	return base64.StdEncoding.EncodeToString(d.Sum(sum[:0])), nil
}

// deliver adds the protocol parameters and the signature to r.
func (s *state) deliver(c *Config, r *http.Request, sig string) error {
	switch c.Delivery {
	case AuthHeader:
		// Written once into memory of its own, which becomes the string.
		n := len("OAuth ")
		if s.hdrOK {
			n += len(s.hdr) + len(`oauth_signature="", `) + percent.EncodedLen(sig)
		} else {
			n += s.protoLen(sig, len(`="`)+len(`", `))
		}
		if c.Realm != "" {
			n += len(`realm="", `) + percent.EncodedLen(c.Realm)
		}
		b := append(make([]byte, 0, n), "OAuth "...)
		if c.Realm != "" {
			b = append(b, `realm="`...)
			b = percent.AppendEncode(b, c.Realm)
			b = append(b, `", `...)
		}
		if s.hdrOK {
			b = append(b, s.hdr[:s.hdrSig]...)
			b = append(b, `oauth_signature="`...)
			b = percent.AppendEncode(b, sig)
			b = append(b, `", `...)
			b = append(b, s.hdr[s.hdrSig:]...)
		} else {
			b = s.appendProto(b, sig, `="`, `", `)
		}
		if r.Header == nil {
			r.Header = make(http.Header)
		}
		// The key is canonical already; Set would check that again.
		r.Header["Authorization"] = []string{unsafeString(b[:len(b)-2])} // the last ", "
	case QueryString:
		u := *r.URL // the caller may share r.URL with other requests
		b := make([]byte, 0, len(u.RawQuery)+1+s.protoLen(sig, len("=&")))
		b = append(b, u.RawQuery...)
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = s.appendProto(b, sig, "=", "&")
		u.RawQuery = unsafeString(b[:len(b)-1])
		r.URL = &u
	case FormBody:
		b := make([]byte, 0, len(s.form)+len(s.enc)+len(sig)+64)
		b = append(b, s.form...)
		if len(b) > 0 {
			b = append(b, '&')
		}
		b = s.appendProto(b, sig, "=", "&")
		setBody(r, b[:len(b)-1])
		if r.Header == nil {
			r.Header = make(http.Header)
		}
		if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", formType)
		}
	default:
		return fmt.Errorf("oauth1: unknown %v", c.Delivery)
	}
	return nil
}

// protoLen bounds the length of what appendProto writes, with punct bytes
// around each value: the doubly encoded lengths are at least the encoded
// ones.
func (s *state) protoLen(sig string, punct int) int {
	n := len("oauth_signature") + punct + percent.EncodedLen(sig)
	for _, p := range s.params[s.nreq:] {
		n += int(p.v1-p.k0) - len("%3D") + punct
	}
	return n
}

// appendProto appends the protocol parameters sorted by name, with
// oauth_signature in its sorted place, each as name, eq, value, sep.
func (s *state) appendProto(b []byte, sig, eq, sep string) []byte {
	const sigName = "oauth_signature"
	done := false
	writeSig := func(b []byte) []byte {
		b = append(b, sigName...)
		b = append(b, eq...)
		b = percent.AppendEncode(b, sig)
		return append(b, sep...)
	}
	for _, p := range s.params[s.nreq:] {
		// The key settles most comparisons; oauth_signature_method
		// shares its eight bytes with oauth_signature.
		if !done && (p.key > sigKey || p.key == sigKey && string(s.name(p)) > sigName) {
			b, done = writeSig(b), true
		}
		b = appendOnce(b, s.name(p))
		b = append(b, eq...)
		b = appendOnce(b, s.value(p))
		b = append(b, sep...)
	}
	if !done {
		b = writeSig(b)
	}
	return b
}

// unsafeString returns a string sharing b's memory, for handing pooled
// bytes to functions that take strings without copying them. The string
// must not outlive the next write to b.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// receivedBase writes into s.base the base string of a request as a
// provider received it: uri is its base string URI, which the provider
// knows better than r.URL does (scheme behind TLS termination, the Host it
// is served as), and header holds the protocol parameters read from the
// Authorization header, decoded. Protocol parameters delivered in the query
// or body are part of r and are collected with it. oauth_signature and realm
// are left out wherever they came from (§3.4.1.3.1).
func (s *state) receivedBase(r *http.Request, uri string, header []Param, limit int64) error {
	s.scratch = append(s.scratch[:0], uri...)
	if _, _, err := s.collect(r, limit); err != nil {
		return err
	}
	kept := s.params[:0]
	for _, p := range s.params {
		if string(s.name(p)) != "oauth_signature" {
			kept = append(kept, p)
		}
	}
	s.params = kept
	n := len(kept)
	for _, p := range header {
		if p.Name != "realm" && p.Name != "oauth_signature" {
			s.addExtra(p.Name, p.Value) // names from the wire need encoding
		}
	}
	s.setKeys()
	s.sortParams(n, false)
	s.writeBase(r.Method)
	return nil
}
