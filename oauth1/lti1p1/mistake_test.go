package lti1p1_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

func rawHMAC(h func() hash.Hash, key, msg string) []byte {
	m := hmac.New(h, []byte(key))
	m.Write([]byte(msg))
	return m.Sum(nil)
}

type mistakeCase struct {
	name    string
	secret  string         // the tool's secret; the guide's when ""
	edit    map[string]any // payload members replaced
	sign    string
	kind    lti1p1.MistakeKind
	also    []lti1p1.MistakeKind
	inCause string
}

// mistakeCases build wrong signs the way a platform with the mistake
// would: the base strings and keys are written out by hand, and the HMAC
// and encodings are the standard library's, not the package's. (A
// function, not a variable: the FIPS 140-only child must not compute
// them at start-up.)
func mistakeCases() []mistakeCase {
	return []mistakeCase{
		{name: "RFC 5849 key", sign: hmacB64("my-lti11-secret&", guideBase), kind: lti1p1.RFC5849Key, inCause: "RFC 5849"},
		{name: "RFC 5849 key, percent-encoded secret", secret: "s3cret/with+chars", sign: hmacB64("s3cret%2Fwith%2Bchars&", guideBase), kind: lti1p1.RFC5849Key, inCause: "percent-encoded secret"},
		{name: "RFC 5849 key, secret not encoded", secret: "s3cret/with+chars", sign: hmacB64("s3cret/with+chars&", guideBase), kind: lti1p1.RFC5849Key, inCause: `secret and "&"`},
		{name: "secret with a newline", sign: hmacB64("my-lti11-secret\n", guideBase), kind: lti1p1.SecretWhitespace, inCause: "newline"},
		{name: "stored secret with a space", secret: "my-lti11-secret ", sign: hmacB64("my-lti11-secret", guideBase), kind: lti1p1.SecretWhitespace, inCause: "where it is stored"},
		{name: "consumer key as secret", sign: hmacB64("179248902", guideBase), kind: lti1p1.ConsumerKeyAsSecret},
		{name: "values percent-encoded", sign: hmacB64(guideSecret, "179248902&689302&https%3A%2F%2Flmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"), kind: lti1p1.EncodedValues, inCause: "percent-encoded each value"},
		{name: "values form-encoded", edit: map[string]any{"nonce": "a b~c"}, sign: hmacB64(guideSecret, "179248902&689302&https%3A%2F%2Flmsvendor.com&PM48OJSfGDTAzAo&1551290856&a+b~c"), kind: lti1p1.EncodedValues, inCause: "form-encoded"},
		{name: "values form-encoded, PHP style", edit: map[string]any{"nonce": "a b~c"}, sign: hmacB64(guideSecret, "179248902&689302&https%3A%2F%2Flmsvendor.com&PM48OJSfGDTAzAo&1551290856&a+b%7Ec"), kind: lti1p1.EncodedValues, inCause: "PHP's urlencode"},
		{name: "base string encoded whole", sign: hmacB64(guideSecret, "179248902%26689302%26https%3A%2F%2Flmsvendor.com%26PM48OJSfGDTAzAo%261551290856%26172we8671fd8z"), kind: lti1p1.EncodedValues, inCause: "as a whole"},
		{name: "order sorted by name", sign: hmacB64(guideSecret, "PM48OJSfGDTAzAo&689302&1551290856&https://lmsvendor.com&172we8671fd8z&179248902"), kind: lti1p1.ValueOrder, inCause: "sorted by name"},
		{name: "iss and client_id swapped", sign: hmacB64(guideSecret, "179248902&689302&PM48OJSfGDTAzAo&https://lmsvendor.com&1551290856&172we8671fd8z"), kind: lti1p1.ValueOrder, inCause: "iss and client_id swapped"},
		{name: "reversed", sign: hmacB64(guideSecret, "172we8671fd8z&1551290856&PM48OJSfGDTAzAo&https://lmsvendor.com&689302&179248902"), kind: lti1p1.ValueOrder, inCause: "reversed"},
		{name: "exp a float", sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856.0&172we8671fd8z"), kind: lti1p1.ExpForm, inCause: "1551290856.0"},
		{name: "exp in ms", sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856000&172we8671fd8z"), kind: lti1p1.ExpForm, inCause: "milliseconds"},
		{name: "exp with an exponent", sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1.551290856e+09&172we8671fd8z"), kind: lti1p1.ExpForm, inCause: "exponent"},
		{name: "exp as Java prints a double", sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1.551290856E9&172we8671fd8z"), kind: lti1p1.ExpForm, inCause: "1.551290856E9"},
		{name: "exp as the payload's float", edit: map[string]any{"exp": 1551290856.0}, sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856.0&172we8671fd8z"), kind: lti1p1.ExpForm},
		{name: "client_id from aud[0], azp the client", edit: map[string]any{"aud": []any{"aud-0", "PM48OJSfGDTAzAo"}, "azp": "PM48OJSfGDTAzAo"},
			sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&aud-0&1551290856&172we8671fd8z"), kind: lti1p1.ClientID, inCause: "aud[0]"},
		{name: "client_id from azp, one aud", edit: map[string]any{"azp": "azp-x"},
			sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&azp-x&1551290856&172we8671fd8z"), kind: lti1p1.ClientID, inCause: "signed azp"},
		{name: "client_id aud joined", edit: map[string]any{"aud": []any{"PM48OJSfGDTAzAo", "aud-1"}, "azp": "PM48OJSfGDTAzAo"},
			sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo,aud-1&1551290856&172we8671fd8z"), kind: lti1p1.ClientID, inCause: "joined"},
		{name: "iss with a slash", sign: hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com/&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"), kind: lti1p1.IssuerSlash},
		{name: "iss without its slash", edit: map[string]any{"iss": "https://lmsvendor.com/"}, sign: hmacB64(guideSecret, guideBase), kind: lti1p1.IssuerSlash, inCause: "without"},
		{name: "trailing &", sign: hmacB64(guideSecret, guideBase+"&"), kind: lti1p1.ExtraSeparator, inCause: "after the last"},
		{name: "leading &", sign: hmacB64(guideSecret, "&"+guideBase), kind: lti1p1.ExtraSeparator, inCause: "before the first"},
		{name: "consumer key missing", sign: hmacB64(guideSecret, "689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"), kind: lti1p1.MissingValue, inCause: "left oauth_consumer_key out"},
		{name: "consumer key empty", sign: hmacB64(guideSecret, "&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"), kind: lti1p1.MissingValue, inCause: "empty oauth_consumer_key"},
		{name: "deployment_id missing", sign: hmacB64(guideSecret, "179248902&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"), kind: lti1p1.MissingValue, inCause: "left deployment_id out"},
		{name: "HMAC-SHA1", sign: base64.StdEncoding.EncodeToString(rawHMAC(sha1.New, guideSecret, guideBase)), kind: lti1p1.WrongHash, inCause: "HMAC-SHA1"},
		{name: "HMAC-SHA512", sign: base64.StdEncoding.EncodeToString(rawHMAC(sha512.New, guideSecret, guideBase)), kind: lti1p1.WrongHash, inCause: "HMAC-SHA512"},
		{name: "hex", sign: hex.EncodeToString(rawHMAC(sha256.New, guideSecret, guideBase)), kind: lti1p1.SignEncoding, inCause: "hex"},
		{name: "URL-safe unpadded", sign: "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6-12ps", kind: lti1p1.SignEncoding, inCause: "URL-safe base64 without"},
		{name: "unpadded", sign: "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6+12ps", kind: lti1p1.SignEncoding, inCause: "padding"},
		{name: "sign with a line end", sign: guideSign + "\n", kind: lti1p1.SignEncoding, inCause: "line break"},
		{name: "percent-encoded sign", sign: "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6%2B12ps%3D", kind: lti1p1.SignEncoding, inCause: "percent-encoded"},
		{name: "RFC 5849 key in hex", sign: hex.EncodeToString(rawHMAC(sha256.New, "my-lti11-secret&", guideBase)),
			kind: lti1p1.SignEncoding, also: []lti1p1.MistakeKind{lti1p1.RFC5849Key}, inCause: "2 mistakes"},
		{name: "SHA-1 over a float exp", sign: base64.StdEncoding.EncodeToString(rawHMAC(sha1.New, guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856.0&172we8671fd8z")),
			kind: lti1p1.ExpForm, also: []lti1p1.MistakeKind{lti1p1.WrongHash}},
	}
}

func TestDiagnoseNamesEachMistake(t *testing.T) {
	covered := map[lti1p1.MistakeKind]bool{}
	for _, tc := range mistakeCases() {
		t.Run(tc.name, func(t *testing.T) {
			secret := tc.secret
			if secret == "" {
				secret = guideSecret
			}
			l, err := lti1p1.Parse(payload(t, func(m map[string]any) {
				for k, v := range tc.edit {
					m[k] = v
				}
				claimOf(m)["oauth_consumer_key_sign"] = tc.sign
			}))
			require.NoError(t, err)
			require.ErrorIs(t, l.Verify(secret), lti1p1.ErrSignMismatch, "the mistaken sign must not verify")
			m, wrong := l.Diagnose(secret)
			require.True(t, wrong)
			require.Equal(t, tc.kind, m.Kind, "Diagnose = %v", m)
			require.Equal(t, tc.also, m.Also, "Diagnose = %v", m)
			require.Contains(t, m.Cause, tc.inCause)
			require.NotContains(t, m.String(), secret)
			covered[m.Kind] = true
			for _, k := range m.Also {
				covered[k] = true
			}
		})
	}
	for _, k := range []lti1p1.MistakeKind{lti1p1.SignEncoding, lti1p1.RFC5849Key, lti1p1.SecretWhitespace, lti1p1.ConsumerKeyAsSecret, lti1p1.EncodedValues,
		lti1p1.ValueOrder, lti1p1.ExpForm, lti1p1.ClientID, lti1p1.IssuerSlash, lti1p1.ExtraSeparator, lti1p1.MissingValue, lti1p1.WrongHash} {
		require.True(t, covered[k], "no case proves %s", k)
	}
}

// TestDiagnoseNoFalseClaims: a sign that no mistake made is never blamed
// on one. Random signs of every HMAC length and encoding, and right signs
// under another secret, over random launches.
func TestDiagnoseNoFalseClaims(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 4))
	word := func() string {
		const chars = "abcdefXYZ0123456789-._~:/"
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		return string(b)
	}
	bytesN := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	const n = 2000
	claims, kinds := 0, map[lti1p1.MistakeKind]int{}
	for i := range n {
		aud := []string{word()}
		if i%3 == 0 {
			aud = append(aud, word(), word())
		}
		s := lti1p1.Signed{ConsumerKey: word(), DeploymentID: word(), Issuer: "https://" + word(), ClientID: aud[len(aud)-1], Exp: 1 + r.Int64N(1e10), Nonce: word()}
		secret := word()
		var sign string
		switch i % 6 {
		case 0:
			sign = base64.StdEncoding.EncodeToString(bytesN(32))
		case 1:
			sign = base64.StdEncoding.EncodeToString(bytesN(20))
		case 2:
			sign = base64.RawURLEncoding.EncodeToString(bytesN(64))
		case 3:
			sign = hex.EncodeToString(bytesN(32))
		default: // the right values, another secret
			sign = hmacB64(secret+"-other-"+strconv.Itoa(i), strings.Join([]string{s.ConsumerKey, s.DeploymentID, s.Issuer, s.ClientID, strconv.FormatInt(s.Exp, 10), s.Nonce}, "&"))
		}
		l := &lti1p1.Launch{Claim: &lti1p1.Claim{OAuthConsumerKey: s.ConsumerKey, OAuthConsumerKeySign: sign}, Signed: s, Audience: aud, AuthorizedParty: aud[len(aud)-1]}
		m, wrong := l.Diagnose(secret)
		require.True(t, wrong)
		kinds[m.Kind]++
		if m.Kind != lti1p1.Unknown {
			claims++
			t.Errorf("case %d: Diagnose named %v for a sign no mistake made", i, m)
		}
	}
	t.Logf("%d random signs: %d false claims; kinds %v", n, claims, kinds)
}

// A launch with long values is not diagnosed: the work stays small.
func TestDiagnoseLongValues(t *testing.T) {
	s := guideSigned
	s.Nonce = strings.Repeat("n", 5000)
	l := &lti1p1.Launch{Claim: &lti1p1.Claim{OAuthConsumerKeySign: guideSign}, Signed: s}
	m, wrong := l.Diagnose(guideSecret)
	require.True(t, wrong)
	require.Equal(t, lti1p1.Unchecked, m.Kind)
	require.Contains(t, m.Cause, "not diagnosed, for its cost")

	l = &lti1p1.Launch{Claim: &lti1p1.Claim{OAuthConsumerKeySign: strings.Repeat("A", 5000)}, Signed: guideSigned}
	m, wrong = l.Diagnose(guideSecret)
	require.True(t, wrong)
	require.Equal(t, lti1p1.Unknown, m.Kind)
	require.Contains(t, m.Cause, "5000 bytes")
}

// A right sign is right whatever the length of the values.
func TestDiagnoseLongValuesRight(t *testing.T) {
	s := guideSigned
	s.Nonce = strings.Repeat("n", 5000)
	sign := hmacB64(guideSecret, "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&"+s.Nonce)
	l := &lti1p1.Launch{Claim: &lti1p1.Claim{OAuthConsumerKeySign: sign}, Signed: s}
	require.NoError(t, l.Verify(guideSecret))
	m, wrong := l.Diagnose(guideSecret)
	require.False(t, wrong, "%v", m)
}
