package lti1p1_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

// The example of 1EdTech's LTI Migration Guide, §"LTI 1.1 migration
// claim", as published (see testdata/README.md): never computed here.
const (
	guideSecret = "my-lti11-secret"
	guideBase   = "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"
	guideSign   = "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6+12ps="
)

var guideSigned = lti1p1.Signed{
	ConsumerKey:  "179248902",
	DeploymentID: "689302",
	Issuer:       "https://lmsvendor.com",
	ClientID:     "PM48OJSfGDTAzAo",
	Exp:          1551290856,
	Nonce:        "172we8671fd8z",
}

func guidePayload(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/guide-payload.json")
	require.NoError(t, err)
	return b
}

func TestGuideExample(t *testing.T) {
	require.Equal(t, guideBase, guideSigned.BaseString())
	got, err := lti1p1.Sign(guideSecret, guideSigned)
	require.NoError(t, err)
	require.Equal(t, guideSign, got, "Sign(guide's example)")
	require.NoError(t, lti1p1.Verify(guideSecret, guideSigned, guideSign))

	l, err := lti1p1.Parse(guidePayload(t))
	require.NoError(t, err)
	require.Equal(t, guideSigned, l.Signed)
	require.Equal(t, &lti1p1.Claim{UserID: "34212", OAuthConsumerKey: "179248902", OAuthConsumerKeySign: guideSign}, l.Claim)
	require.NoError(t, l.Verify(guideSecret))
	m, wrong := l.Diagnose(guideSecret)
	require.False(t, wrong, "Diagnose of the guide's sign: %v", m)
	require.Equal(t, lti1p1.Mistake{}, m)

	require.ErrorIs(t, l.Verify(guideSecret+"x"), lti1p1.ErrSignMismatch)
	require.ErrorIs(t, lti1p1.Verify(guideSecret, guideSigned, guideSign[:len(guideSign)-1]), lti1p1.ErrSignMismatch)
}

// Verify with its secret and sign swapped, the arguments in the wrong
// order, says so, and is still ErrSignMismatch (issue 40, item 12); a
// mismatch of another cause does not say it, and neither holds a secret.
func TestVerifySwapped(t *testing.T) {
	err := lti1p1.Verify(guideSign, guideSigned, guideSecret)
	require.ErrorIs(t, err, lti1p1.ErrSignMismatch)
	require.Contains(t, err.Error(), "swapped")
	require.NotContains(t, err.Error(), guideSecret)
	require.NotContains(t, err.Error(), guideSign)

	for _, tc := range []struct{ name, secret, sign string }{
		{"wrong secret", guideSecret + "x", guideSign},
		{"wrong sign", guideSecret, guideSign[:len(guideSign)-1]},
		{"swapped, and the secret wrong", guideSign, guideSecret + "x"},
		{"the sign as both", guideSign, guideSign},
	} {
		err := lti1p1.Verify(tc.secret, guideSigned, tc.sign)
		require.ErrorIs(t, err, lti1p1.ErrSignMismatch, tc.name)
		require.NotContains(t, err.Error(), "swapped", tc.name)
	}
	var other = guideSigned
	other.Nonce += "x"
	require.NotContains(t, lti1p1.Verify(guideSign, other, guideSecret).Error(), "swapped", "other values")
}

// hmacTool returns a command that prints the base64 HMAC-SHA256 of its
// stdin keyed with its argument, computed by a program that is not Go.
func hmacTool(t *testing.T) func(key string) []string {
	// openssl first: it starts in milliseconds, python3 (through a version
	// manager's shim) can take seconds.
	if p, err := exec.LookPath("openssl"); err == nil {
		return func(key string) []string {
			return []string{"sh", "-c", p + ` dgst -sha256 -hmac "$1" -binary | base64`, "sh", key}
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return func(key string) []string {
			return []string{p, "-c", "import sys,hmac,hashlib,base64;sys.stdout.write(base64.b64encode(hmac.new(sys.argv[1].encode(),sys.stdin.buffer.read(),hashlib.sha256).digest()).decode())", key}
		}
	}
	t.Skip("neither openssl nor python3 is on PATH: the independent HMAC of this test cannot run (the guide's published sign is still checked by TestGuideExample)")
	return nil
}

func external(t *testing.T, tool func(string) []string, key, base string) string {
	t.Helper()
	argv := tool(key)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(base)
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// TestSignIndependent checks the guide's example and random values
// against an HMAC computed outside Go (python3's hmac, or openssl).
func TestSignIndependent(t *testing.T) {
	tool := hmacTool(t)
	require.Equal(t, guideSign, external(t, tool, guideSecret, guideBase), "the guide's sign, computed outside Go")
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const chars = "abcXYZ019-._~:/?#[]@!$'()*+,;= %é"
		var b strings.Builder
		for range 1 + r.IntN(20) {
			b.WriteString(string([]rune(chars)[r.IntN(len([]rune(chars)))]))
		}
		return b.String()
	}
	for range 5 {
		s := lti1p1.Signed{ConsumerKey: word(), DeploymentID: word(), Issuer: "https://" + word(), ClientID: word(), Exp: 1 + r.Int64N(1e10), Nonce: word()}
		secret := word()
		base := s.ConsumerKey + "&" + s.DeploymentID + "&" + s.Issuer + "&" + s.ClientID + "&" + strconv.FormatInt(s.Exp, 10) + "&" + s.Nonce
		got, err := lti1p1.Sign(secret, s)
		require.NoError(t, err)
		require.Equal(t, external(t, tool, secret, base), got, "Sign(%q, %+v)", secret, s)
	}
}

func TestSignRefusesMissingValues(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*lti1p1.Signed)
	}{
		{"oauth_consumer_key", func(s *lti1p1.Signed) { s.ConsumerKey = "" }},
		{"deployment_id", func(s *lti1p1.Signed) { s.DeploymentID = "" }},
		{"iss", func(s *lti1p1.Signed) { s.Issuer = "" }},
		{"client_id (aud or azp)", func(s *lti1p1.Signed) { s.ClientID = "" }},
		{"exp", func(s *lti1p1.Signed) { s.Exp = 0 }},
		{"exp", func(s *lti1p1.Signed) { s.Exp = -5 }},
		{"nonce", func(s *lti1p1.Signed) { s.Nonce = "" }},
	} {
		s := guideSigned
		tc.edit(&s)
		_, err := lti1p1.Sign(guideSecret, s)
		var fe *lti1p1.FieldError
		require.ErrorAs(t, err, &fe)
		require.Equal(t, tc.field, fe.Field)
		require.NotContains(t, err.Error(), guideSecret)
		require.ErrorAs(t, lti1p1.Verify(guideSecret, s, guideSign), &fe)
	}
}

// payload returns the guide's payload with edit applied to its JSON.
func payload(t testing.TB, edit func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(guidePayload(t), &m))
	edit(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func claimOf(m map[string]any) map[string]any {
	return m[lti1p1.ClaimName].(map[string]any)
}

func TestParseAudience(t *testing.T) {
	for _, tc := range []struct {
		name   string
		aud    any
		azp    any
		client string
		err    string
	}{
		{"string", "one", nil, "one", ""},
		{"array of one", []any{"one"}, nil, "one", ""},
		{"array of one, azp the same", []any{"one"}, "one", "one", ""},
		{"several with azp", []any{"a", "b", "c"}, "b", "b", ""},
		{"several without azp", []any{"a", "b"}, nil, "", "azp is missing, and aud names 2 audiences"},
		{"empty array", []any{}, nil, "", "aud is an array, want a string or a non-empty array of strings"},
		{"array of numbers", []any{1, 2}, nil, "", "aud is an array, want a string"},
		{"number", 5, nil, "", "aud is a number, want a string"},
		{"object", map[string]any{"a": "b"}, nil, "", "aud is an object"},
		{"azp a number", "one", 7, "", "azp is a number, want a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := lti1p1.Parse(payload(t, func(m map[string]any) {
				m["aud"] = tc.aud
				if tc.azp != nil {
					m["azp"] = tc.azp
				}
			}))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.client, l.Signed.ClientID)
		})
	}
}

func TestParseExp(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int64
		err  string
	}{
		{"1551290856", 1551290856, ""},
		{"1551290856.0", 1551290856, ""},
		{"1.551290856e9", 1551290856, ""},
		{"1551290856.5", 0, "exp is 1551290856.5, not a whole number of seconds"},
		{`"1551290856"`, 0, "exp is a string, want a number of seconds"},
		{"true", 0, "exp is a boolean"},
		{"1e400", 0, "not a whole number"},
		{"99999999999999999999999", 0, "not a whole number"},
		{"1" + strings.Repeat("0", 5000), 0, "exp is 1000000000000000000000000000000000000000..., not a whole number"},
	} {
		b := bytes.Replace(guidePayload(t), []byte(`"exp": 1551290856`), []byte(`"exp": `+tc.raw), 1)
		l, err := lti1p1.Parse(b)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, "exp %.40s", tc.raw)
			require.Less(t, len(err.Error()), 200)
			continue
		}
		require.NoError(t, err, tc.raw)
		require.Equal(t, tc.want, l.Signed.Exp)
	}
}

func TestParseHostile(t *testing.T) {
	g := string(guidePayload(t))
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, tc := range []struct {
		name, payload, err string
	}{
		{"not JSON", "eyJhbGciOi", "payload is not a JSON object"},
		{"array", "[1,2]", "payload is not a JSON object"},
		{"empty", "", "payload is not a JSON object"},
		{"truncated", g[:len(g)/2], "payload is not valid JSON"},
		{"trailing data", g + "{}", "has data after its JSON object"},
		{"over MaxPayload", `{"x":"` + strings.Repeat("a", lti1p1.MaxPayload) + `"}`, "over the 1048576 Parse reads"},
		{"iss twice", strings.Replace(g, `"sub": "3"`, `"sub": "3", "iss": "https://evil.example"`, 1), "iss is given twice in payload"},
		{"iss a number", strings.Replace(g, `"iss": "https://lmsvendor.com"`, `"iss": 5`, 1), "iss is a number, want a string"},
		{"nonce an object", strings.Replace(g, `"nonce": "172we8671fd8z"`, `"nonce": {}`, 1), "nonce is an object, want a string"},
		{"deployment_id a number", strings.Replace(g, `"689302"`, `689302`, 1), "https://purl.imsglobal.org/spec/lti/claim/deployment_id is a number, want a string"},
		{"claim a string", strings.Replace(g, `"https://purl.imsglobal.org/spec/lti/claim/lti1p1": {`, `"https://purl.imsglobal.org/spec/lti/claim/lti1p1": "x", "y": {`, 1), "the lti1p1 claim is not a JSON object"},
		{"user_id a number", strings.Replace(g, `"user_id": "34212"`, `"user_id": 34212`, 1), "lti1p1.user_id is a number, want a string"},
		{"sign twice", strings.Replace(g, `"user_id": "34212"`, `"oauth_consumer_key_sign": "x"`, 1), "oauth_consumer_key_sign is given twice in the lti1p1 claim"},
		{"deep nesting elsewhere", strings.Replace(g, `"sub": "3"`, `"sub": `+deep, 1), "payload is not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lti1p1.Parse([]byte(tc.payload))
			require.ErrorContains(t, err, tc.err)
			require.Less(t, len(err.Error()), 300, "a short error whatever the input")
		})
	}
}

// Names are matched exactly: "ISS" is not iss, a claim that is null is no
// claim, and the members the sign does not cover may be anything.
func TestParseLenient(t *testing.T) {
	g := string(guidePayload(t))
	l, err := lti1p1.Parse([]byte(strings.Replace(g, `"sub": "3"`, `"sub": "3", "ISS": 5, "extra": {"a": [1, null]}`, 1)))
	require.NoError(t, err)
	require.NoError(t, l.Verify(guideSecret))

	l, err = lti1p1.Parse([]byte(strings.Replace(g, `"user_id": "34212"`, `"user_id": null, "validation_context": null, "errors": {"errors": {}}`, 1)))
	require.NoError(t, err)
	require.NoError(t, l.Verify(guideSecret))

	l, err = lti1p1.Parse(payload(t, func(m map[string]any) { m[lti1p1.ClaimName] = nil }))
	require.NoError(t, err)
	require.Nil(t, l.Claim)
	require.ErrorIs(t, l.Verify(guideSecret), lti1p1.ErrNoClaim)

	l, err = lti1p1.Parse(payload(t, func(m map[string]any) { delete(m, "nonce") }))
	require.NoError(t, err)
	var fe *lti1p1.FieldError
	require.ErrorAs(t, l.Verify(guideSecret), &fe)
	require.Equal(t, "nonce", fe.Field)
	m, wrong := l.Diagnose(guideSecret)
	require.True(t, wrong)
	require.Equal(t, lti1p1.Unchecked, m.Kind)
	require.Contains(t, m.Cause, "nonce is empty")
}

// hmacB64 is an HMAC-SHA256 in standard base64, written here apart from
// the package.
func hmacB64(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

func TestErrorsHoldNoSecret(t *testing.T) {
	const secret = "s3cr3t-%v-%s-never-shown"
	l, err := lti1p1.Parse(guidePayload(t))
	require.NoError(t, err)
	err = l.Verify(secret)
	require.True(t, errors.Is(err, lti1p1.ErrSignMismatch))
	m, _ := l.Diagnose(secret)
	require.NotContains(t, m.String(), secret)
	require.NotContains(t, err.Error(), secret)
}

func BenchmarkVerify(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := lti1p1.Verify(guideSecret, guideSigned, guideSign); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiagnoseUnknown(b *testing.B) {
	l, err := lti1p1.Parse(guidePayload(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if m, _ := l.Diagnose("another secret"); m.Kind != lti1p1.Unknown {
			b.Fatal(m)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	p := guidePayload(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lti1p1.Parse(p); err != nil {
			b.Fatal(err)
		}
	}
}
