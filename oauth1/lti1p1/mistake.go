package lti1p1

import (
	"crypto"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/percent"
)

// A MistakeKind names a platform's mistake in words a program can match
// and a person can type. The names are stable.
type MistakeKind string

// The mistakes [Launch.Diagnose] names, in the order a [Mistake] lists them.
const (
	// The sign is not standard padded base64: hex, URL-safe or unpadded
	// base64, or percent-encoded.
	SignEncoding MistakeKind = "sign-encoding"
	// Keyed as RFC 5849 §3.4.2 keys an OAuth 1.0a signature, "secret&",
	// in place of the secret as it is.
	RFC5849Key MistakeKind = "rfc5849-key"
	// A secret with a trailing newline or space one side has and the
	// other has not.
	SecretWhitespace MistakeKind = "secret-whitespace"
	// The consumer key signed in place of the secret.
	ConsumerKeyAsSecret MistakeKind = "consumer-key-as-secret"
	// The values percent-encoded or form-encoded before being joined, or
	// the base string encoded as a whole.
	EncodedValues MistakeKind = "encoded-values"
	// The values joined in another order.
	ValueOrder MistakeKind = "value-order"
	// exp written as a float, in milliseconds or with an exponent.
	ExpForm MistakeKind = "exp-form"
	// client_id taken from another audience than the right one (aud when
	// azp is the client, or azp when aud is), or aud written whole.
	ClientID MistakeKind = "client-id"
	// iss signed with a trailing "/" the id_token's iss has not, or
	// without the one it has.
	IssuerSlash MistakeKind = "issuer-slash"
	// An "&" after the last value or before the first.
	ExtraSeparator MistakeKind = "extra-separator"
	// A value left out of the base string, or signed empty.
	MissingValue MistakeKind = "missing-value"
	// HMAC-SHA1 or HMAC-SHA512 in place of HMAC-SHA256.
	WrongHash MistakeKind = "wrong-hash"
	// None of the mistakes reproduces the sign.
	Unknown MistakeKind = "unknown"
	// The sign could not be checked: a value is missing from the payload,
	// FIPS 140-only mode refuses the key, or the values are too long to
	// try the mistakes with (over 4 KiB).
	Unchecked MistakeKind = "unchecked"
)

// A Mistake is what [Launch.Diagnose] found: its kind and a sentence
// that describes it, neither ever holding the secret. A platform that
// made two mistakes at once (signed with the RFC 5849 key and sent the
// sign in hex, say) gets Kind the first in the order of the MistakeKind
// constants and Also the other: ask [Mistake.Includes]. The zero Mistake
// is no mistake.
type Mistake struct {
	Kind  MistakeKind
	Cause string
	Also  []MistakeKind
}

// Includes reports whether m names kind, as Kind or in Also.
func (m Mistake) Includes(kind MistakeKind) bool {
	return kind != "" && (m.Kind == kind || slices.Contains(m.Also, kind))
}

// String returns the kinds joined by "+", ": " and the cause; "" for the
// zero Mistake.
func (m Mistake) String() string {
	s := string(m.Kind)
	for _, k := range m.Also {
		s += "+" + string(k)
	}
	if m.Cause != "" && s != "" {
		s += ": " + m.Cause
	}
	return s
}

// maxTries bounds the HMACs one [Launch.Diagnose] computes, each over a
// base string of the launch's six values (or a variant of it). Diagnose
// tries nothing when the base string is over maxDiagnoseBase bytes (4
// KiB): LTI's identifiers are short, and the work stays small whatever
// the payload holds.
const maxTries = 160

const maxDiagnoseBase = 4 << 10

// Diagnose names the mistake that makes the claim's sign refused: it signs
// the launch's values again with the mistakes platforms make, one at a
// time, in each encoding of the sign and with each HMAC hash whose length
// the sign has, and reports the mistake whose sign the platform sent. It
// reports false when the sign verifies. Otherwise it reports a Mistake:
// [Unknown] when none reproduces the sign (the secret differs, most
// likely), [Unchecked] when the launch lacks what the sign needs.
//
// It computes at most 160 HMACs of short strings: cheap, but more
// than [Launch.Verify]; run it when a sign is refused, to say why. Signs
// are compared in constant time.
func (l *Launch) Diagnose(secret string) (Mistake, bool) {
	if l.Claim == nil || l.Claim.OAuthConsumerKeySign == "" {
		return Mistake{Kind: Unchecked, Cause: ErrNoClaim.Error()[len("lti1p1: "):]}, true
	}
	if err := l.Signed.check(); err != nil {
		return Mistake{Kind: Unchecked, Cause: "cannot check the sign: the payload's " + err.Error()[len("lti1p1: "):]}, true
	}
	if Verify(secret, l.Signed, l.Claim.OAuthConsumerKeySign) == nil {
		return Mistake{}, false
	}
	if n := len(l.Signed.BaseString()); n > maxDiagnoseBase {
		return Mistake{Kind: Unchecked, Cause: "not diagnosed, for its cost: the base string has " + strconv.Itoa(n) + " bytes, over " + strconv.Itoa(maxDiagnoseBase) + "; LTI identifiers are short (255 characters at most for most)"}, true
	}
	if len(l.Claim.OAuthConsumerKeySign) > 1024 {
		return Mistake{Kind: Unknown, Cause: "no known mistake reproduces the sign: it has " + strconv.Itoa(len(l.Claim.OAuthConsumerKeySign)) + " bytes, far more than any encoding of an HMAC-SHA256 (44 in base64)"}, true
	}
	t := &trial{sent: sentForms(l.Claim.OAuthConsumerKeySign)}
	right := candidate{key: secret, base: l.Signed.BaseString()}
	tries := append([]candidate{right}, l.candidates(secret, right)...)
	for _, h := range t.hashes() {
		for _, c := range tries {
			if t.n == maxTries {
				break
			}
			sum := t.sum(h, c)
			if sum == nil {
				continue
			}
			f, ok := t.match(sum)
			if !ok {
				continue
			}
			if f.cause == "" && c.kinds == nil && h == crypto.SHA256 {
				return Mistake{}, false
			}
			return found(f, c, h), true
		}
	}
	if t.n == 0 && t.refused != "" {
		return Mistake{Kind: Unchecked, Cause: "cannot try the keys: " + t.refused}, true
	}
	return Mistake{Kind: Unknown, Cause: t.unknown(secret)}, true
}

// A candidate is a mistaken key or base string, and the mistakes that
// make it.
type candidate struct {
	kinds  []MistakeKind
	causes []string
	key    string
	base   string
}

// candidates returns the mistaken keys and base strings to try, without
// the right one and without repeats: mistakes that make the same key and
// base string are told apart by no sign, and the first names it.
func (l *Launch) candidates(secret string, right candidate) []candidate {
	s := l.Signed
	var list []candidate
	add := func(kind MistakeKind, cause, key, base string) {
		list = append(list, candidate{[]MistakeKind{kind}, []string{cause}, key, base})
	}
	base := right.base
	addBase := func(kind MistakeKind, cause, b string) { add(kind, cause, secret, b) }

	add(RFC5849Key, `the platform keyed the HMAC as RFC 5849 §3.4.2 keys an OAuth 1.0a signature, the percent-encoded secret and "&"; the sign is keyed with the LTI 1.1 shared secret as it is, nothing appended`, percent.Encode(secret)+"&", base)
	add(RFC5849Key, `the platform keyed the HMAC with the secret and "&", as an OAuth 1.0a signature is keyed; the sign is keyed with the LTI 1.1 shared secret as it is, nothing appended`, secret+"&", base)
	for _, w := range []struct{ suffix, what string }{{"\n", "a newline"}, {"\r\n", "a CR LF"}, {" ", "a space"}} {
		add(SecretWhitespace, "the platform's secret ends with "+w.what+" that the tool's does not: it was read from a file or pasted with it; trim it", secret+w.suffix, base)
	}
	if tr := strings.TrimSpace(secret); tr != secret {
		add(SecretWhitespace, "the secret the tool holds begins or ends with whitespace that the platform's does not; trim it where it is stored", tr, base)
	}
	add(ConsumerKeyAsSecret, "the platform keyed the HMAC with the consumer key in place of the LTI 1.1 shared secret", s.ConsumerKey, base)

	vals := []string{s.ConsumerKey, s.DeploymentID, s.Issuer, s.ClientID, strconv.FormatInt(s.Exp, 10), s.Nonce}
	names := []string{"oauth_consumer_key", "deployment_id", "iss", "client_id", "exp", "nonce"}
	join := func(v []string) string { return strings.Join(v, "&") }
	mapped := func(f func(string) string) string {
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = f(v)
		}
		return join(out)
	}
	addBase(EncodedValues, "the platform percent-encoded each value (RFC 3986) before joining them; the values are joined as they are, without encoding", mapped(percent.Encode))
	addBase(EncodedValues, "the platform form-encoded each value (application/x-www-form-urlencoded) before joining them; the values are joined as they are, without encoding", mapped(url.QueryEscape))
	addBase(EncodedValues, "the platform form-encoded each value as PHP's urlencode and Java's URLEncoder do (\"~\" as \"%7E\") before joining them; the values are joined as they are, without encoding",
		mapped(func(v string) string { return strings.ReplaceAll(url.QueryEscape(v), "~", "%7E") }))
	addBase(EncodedValues, "the platform percent-encoded the joined base string as a whole; it is signed as it is, without encoding", percent.Encode(base))

	// Other orders: the names sorted, the order reversed, and each two
	// values swapped (15); a fixed list, not every permutation.
	order := func(idx []int) []string {
		out := make([]string, len(idx))
		for i, j := range idx {
			out[i] = vals[j]
		}
		return out
	}
	orderCause := func(idx []int, how string) string {
		n := make([]string, len(idx))
		for i, j := range idx {
			n[i] = names[j]
		}
		return "the platform joined the values in another order (" + how + "): " + strings.Join(n, "&") + "; the order is oauth_consumer_key&deployment_id&iss&client_id&exp&nonce"
	}
	sorted := []int{3, 1, 4, 2, 5, 0} // client_id, deployment_id, exp, iss, nonce, oauth_consumer_key
	addBase(ValueOrder, orderCause(sorted, "sorted by name"), join(order(sorted)))
	rev := []int{5, 4, 3, 2, 1, 0}
	addBase(ValueOrder, orderCause(rev, "reversed"), join(order(rev)))
	for i := range vals {
		for j := i + 1; j < len(vals); j++ {
			idx := []int{0, 1, 2, 3, 4, 5}
			idx[i], idx[j] = idx[j], idx[i]
			addBase(ValueOrder, orderCause(idx, names[i]+" and "+names[j]+" swapped"), join(order(idx)))
		}
	}

	with := func(i int, v string) string {
		out := slices.Clone(vals)
		out[i] = v
		return join(out)
	}
	e := strconv.FormatInt(s.Exp, 10)
	addBase(ExpForm, "the platform wrote exp as a float, "+e+".0; the sign covers exp as the decimal integer of the id_token, "+e, with(4, e+".0"))
	addBase(ExpForm, "the platform wrote exp in milliseconds, "+e+"000; exp is in seconds, "+e, with(4, e+"000"))
	for _, f := range expFloats(s.Exp) {
		addBase(ExpForm, "the platform wrote exp as a float with an exponent, "+f+"; the sign covers exp as a decimal integer, "+e, with(4, f))
	}

	// client_id from the wrong audience: at most four of aud's.
	for i, a := range l.Audience {
		if i == 4 {
			break
		}
		if a != s.ClientID {
			addBase(ClientID, "the platform signed aud["+strconv.Itoa(i)+"] as client_id; with several audiences client_id is azp (OpenID Connect Core §3.1.3.7), "+strconv.Quote(shorten(s.ClientID)), with(3, a))
		}
	}
	if l.AuthorizedParty != "" && l.AuthorizedParty != s.ClientID {
		addBase(ClientID, "the platform signed azp as client_id; with one audience client_id is aud, "+strconv.Quote(shorten(s.ClientID)), with(3, l.AuthorizedParty))
	}
	if len(l.Audience) > 1 {
		addBase(ClientID, "the platform signed aud's audiences joined by \",\" as client_id; with several audiences client_id is azp", with(3, strings.Join(l.Audience, ",")))
	}
	if strings.HasSuffix(s.Issuer, "/") {
		addBase(IssuerSlash, "the platform signed iss without the trailing \"/\" the id_token's iss has; sign iss exactly as it is in the id_token", with(2, strings.TrimSuffix(s.Issuer, "/")))
	} else {
		addBase(IssuerSlash, "the platform signed iss with a trailing \"/\" the id_token's iss has not; sign iss exactly as it is in the id_token", with(2, s.Issuer+"/"))
	}
	addBase(ExtraSeparator, `the platform appended "&" after the last value (nonce); the base string ends with the nonce`, base+"&")
	addBase(ExtraSeparator, `the platform put "&" before the first value (oauth_consumer_key); the base string begins with it`, "&"+base)
	addBase(MissingValue, "the platform signed an empty oauth_consumer_key; the base string begins with the claim's oauth_consumer_key", with(0, ""))
	for i, n := range names {
		rest := slices.Delete(slices.Clone(vals), i, i+1)
		addBase(MissingValue, "the platform left "+n+" out of the base string; it joins six values: oauth_consumer_key&deployment_id&iss&client_id&exp&nonce", join(rest))
	}

	seen := map[[2]string]bool{{right.key, right.base}: true}
	out := list[:0]
	for _, c := range list {
		k := [2]string{c.key, c.base}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// expFloats returns exp as languages print a float64 with an exponent:
// "1.551290856e+09" (Go, C's %g, JavaScript past 1e21) and
// "1.551290856E9" (Java's Double.toString).
func expFloats(exp int64) []string {
	g := strconv.FormatFloat(float64(exp), 'e', -1, 64)
	mant, pow, _ := strings.Cut(g, "e")
	n, _ := strconv.Atoi(pow)
	return []string{g, mant + "E" + strconv.Itoa(n)}
}

// A sentForm is the sign decoded in one of the encodings platforms send.
type sentForm struct {
	sum   []byte
	cause string // why the encoding is wrong; "" for standard padded base64
}

// sentForms decodes sign in every encoding tried, standard base64 first,
// dropping a decoding an earlier one made too.
func sentForms(sign string) []sentForm {
	var forms []sentForm
	add := func(d []byte, err error, cause string) {
		if err != nil || len(d) == 0 {
			return
		}
		for _, f := range forms {
			if string(f.sum) == string(d) {
				return
			}
		}
		forms = append(forms, sentForm{d, cause})
	}
	const pad = `; send the standard base64 alphabet with its "=" padding (RFC 4648 §4)`
	d, err := base64.StdEncoding.DecodeString(sign)
	if err == nil && base64.StdEncoding.EncodeToString(d) != sign {
		// The decoder skips line breaks; the sign compared is the text.
		add(d, err, `the sign holds a line break ("\r" or "\n"), as base64 wrapped or a value read with its line end carries; send it on one line, without one`)
	} else {
		add(d, err, "")
	}
	if u, err := url.PathUnescape(sign); err == nil && u != sign {
		d, err := base64.StdEncoding.DecodeString(u)
		add(d, err, "the sign is percent-encoded (\"%2B\", \"%2F\", \"%3D\"); a JSON string carries it as it is"+pad)
	}
	d, err = base64.URLEncoding.DecodeString(sign)
	add(d, err, `the sign is URL-safe base64 ("-" and "_" for "+" and "/")`+pad)
	d, err = base64.RawStdEncoding.DecodeString(sign)
	add(d, err, `the sign lacks base64's "=" padding`+pad)
	d, err = base64.RawURLEncoding.DecodeString(sign)
	add(d, err, `the sign is URL-safe base64 without its "=" padding, as a JWT writes its parts`+pad)
	d, err = hex.DecodeString(sign)
	add(d, err, "the sign is the HMAC in hex, not its base64"+pad)
	return forms
}

// trial computes the HMACs of one Diagnose, counting them.
type trial struct {
	sent    []sentForm
	n       int
	refused string // why FIPS 140-only mode refused a key, if it did
}

// hashes returns the HMAC hashes whose length a decoding of the sign
// has, SHA-256 first.
func (t *trial) hashes() []crypto.Hash {
	var hs []crypto.Hash
	for _, h := range []crypto.Hash{crypto.SHA256, crypto.SHA1, crypto.SHA512} {
		for _, f := range t.sent {
			if len(f.sum) == h.Size() && !slices.Contains(hs, h) {
				hs = append(hs, h)
			}
		}
	}
	return hs
}

func (t *trial) sum(h crypto.Hash, c candidate) []byte {
	sum, err := hmacSum(h, []byte(c.key), c.base)
	if err != nil {
		t.refused = strings.TrimPrefix(err.Error(), "lti1p1: ")
		return nil
	}
	t.n++
	return sum
}

// match returns the form of the sign that sum is, if any; every form is
// compared, so the time does not say which matched.
func (t *trial) match(sum []byte) (sentForm, bool) {
	found, ok := sentForm{}, false
	for _, f := range t.sent {
		if subtle.ConstantTimeCompare(sum, f.sum) == 1 && !ok {
			found, ok = f, true
		}
	}
	return found, ok
}

// found is the Mistake of a sign that c makes with hash h, sent in form f.
func found(f sentForm, c candidate, h crypto.Hash) Mistake {
	var kinds []MistakeKind
	var causes []string
	if f.cause != "" {
		kinds, causes = append(kinds, SignEncoding), append(causes, f.cause)
	}
	kinds, causes = append(kinds, c.kinds...), append(causes, c.causes...)
	if h != crypto.SHA256 {
		kinds = append(kinds, WrongHash)
		causes = append(causes, "the platform computed HMAC-"+strings.ReplaceAll(h.String(), "-", "")+"; the sign is HMAC-SHA256")
	}
	m := Mistake{Kind: kinds[0], Cause: causes[0]}
	if len(kinds) > 1 {
		m.Also = kinds[1:]
		m.Cause = "the platform made " + strconv.Itoa(len(kinds)) + " mistakes: " + strings.Join(causes, "; and ")
	}
	return m
}

// unknown says that no mistake reproduces the sign, and what to check.
func (t *trial) unknown(secret string) string {
	var b strings.Builder
	b.WriteString("no known mistake reproduces the sign: ")
	switch {
	case len(t.sent) == 0:
		b.WriteString("it is not base64, nor any other encoding of an HMAC this check knows")
	case len(t.hashes()) == 0:
		b.WriteString("it decodes to " + strconv.Itoa(len(t.sent[0].sum)) + " bytes, the length of no HMAC (32 for HMAC-SHA256)")
	default:
		b.WriteString("it matches none of the " + strconv.Itoa(t.n) + " keys and base strings tried (the right ones and the common mistakes)")
	}
	if t.refused != "" {
		b.WriteString("; some were not tried: " + t.refused)
	}
	b.WriteString(". Check that the platform signs with the LTI 1.1 shared secret of this oauth_consumer_key (the tool's has " + strconv.Itoa(len(secret)) +
		" bytes), not the secret of another key or a rotated one, and that it signs the deployment_id, iss, client_id, exp and nonce of this same id_token")
	return b.String()
}
