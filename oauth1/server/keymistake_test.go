package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
)

// The credentials of the hand-signed requests below.
const (
	kmConsumerKey    = "km-key"
	kmConsumerSecret = "km consumer/secret"
	kmToken          = "km-token"
	kmTokenSecret    = "km token+secret"
)

// kmHeader returns the Authorization header of a GET of rawURL (no query)
// at ts, signed with HMAC-SHA1 under key, the signing key as the client
// made it, and the base string it signed. encodeSig turns the raw HMAC
// into oauth_signature; nil means standard base64.
func kmHeader(t *testing.T, rawURL string, ts int64, nonce, key string, encodeSig func([]byte) string) (header, base string) {
	t.Helper()
	return kmHeaderHash(t, "HMAC-SHA1", sha1.New, rawURL, ts, nonce, key, encodeSig)
}

// kmHeaderHash is kmHeader for the signature method method, whose
// signature the client computes with HMAC and h (which need not be the
// method's hash).
func kmHeaderHash(t *testing.T, method string, h func() hash.Hash, rawURL string, ts int64, nonce, key string, encodeSig func([]byte) string) (header, base string) {
	t.Helper()
	params := map[string]string{
		"oauth_consumer_key":     kmConsumerKey,
		"oauth_nonce":            nonce,
		"oauth_signature_method": method,
		"oauth_timestamp":        itoa(ts),
		"oauth_token":            kmToken,
		"oauth_version":          "1.0",
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	var pairs []string
	for _, n := range names {
		pairs = append(pairs, kmEncode(n)+"="+kmEncode(params[n]))
	}
	base = "GET&" + kmEncode(rawURL) + "&" + kmEncode(strings.Join(pairs, "&"))
	m := hmac.New(h, []byte(key))
	m.Write([]byte(base))
	sum := m.Sum(nil)
	sig := base64.StdEncoding.EncodeToString(sum)
	if encodeSig != nil {
		sig = encodeSig(sum)
	}
	params["oauth_signature"] = sig
	var hp []string
	for _, n := range append(names, "oauth_signature") {
		hp = append(hp, kmEncode(n)+`="`+kmEncode(params[n])+`"`)
	}
	return "OAuth " + strings.Join(hp, ", "), base
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// observed collects what an Observe hook sees.
type observed struct {
	mu   sync.Mutex
	errs []error
}

func (o *observed) observe(_ *http.Request, _ *Verification, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.errs = append(o.errs, err)
}

func (o *observed) last(t *testing.T) error {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.errs) == 0 {
		t.Fatal("Observe was not called")
	}
	return o.errs[len(o.errs)-1]
}

// kmMistakes are the mistakes the tests below make: the signing key as
// the client makes it by mistake, and the kind the Verifier must name.
var kmMistakes = []struct {
	name string
	key  string
	enc  func([]byte) string
	want basestring.MistakeKind
}{
	{"empty token secret", kmEncode(kmConsumerSecret) + "&", nil, basestring.EmptyTokenSecret},
	{"swapped secrets", kmEncode(kmTokenSecret) + "&" + kmEncode(kmConsumerSecret), nil, basestring.SwappedSecrets},
	{"trailing newline", kmEncode(kmConsumerSecret+"\n") + "&" + kmEncode(kmTokenSecret), nil, basestring.SecretWhitespace},
	// A hex signature is refused before the base string is built, unless
	// DiagnoseKeys asks for the mistake.
	{"hex signature", kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret), hex.EncodeToString, basestring.SignatureEncoding},
}

// kmGet sends a GET of srv.URL+"/api" signed under key, and returns the
// answer's status, headers and body.
func kmGet(t *testing.T, srv *httptest.Server, ts int64, nonce, key string, enc func([]byte) string) (int, http.Header, string) {
	t.Helper()
	auth, _ := kmHeader(t, srv.URL+"/api", ts, nonce, key, enc)
	req, err := http.NewRequest("GET", srv.URL+"/api", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(body)
}

// checkNotSent fails if the answer to the client names the key mistake.
func checkNotSent(t *testing.T, h http.Header, body string, m basestring.Mistake) {
	t.Helper()
	var all strings.Builder
	all.WriteString(body)
	for name, vs := range h {
		all.WriteString(name + ": " + strings.Join(vs, ", ") + "\n")
	}
	text := all.String()
	for _, s := range []string{string(m.Kind), m.Cause, "mistake", "unknown", url.QueryEscape(string(m.Kind)), kmConsumerSecret, kmEncode(kmConsumerSecret), kmTokenSecret, kmEncode(kmTokenSecret)} {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("the answer to the client holds %q:\n%s", s, text)
		}
	}
}

// TestVerifierDiagnoseKeys signs requests by hand with the mistakes
// clients make with the key, sends them through Middleware, and checks
// that Observe gets a signature_invalid refusal that names each mistake,
// and the client an answer that does not.
func TestVerifierDiagnoseKeys(t *testing.T) {
	now := time.Unix(1700000000, 0)
	obs := new(observed)
	v := &Verifier{Store: &memCredentials{
		consumers: map[string]Registration{kmConsumerKey: {Secret: kmConsumerSecret}},
		tokens:    map[string]string{kmConsumerKey + " " + kmToken: kmTokenSecret},
	}, Observe: obs.observe, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }, DiagnoseKeys: true}}
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
	defer srv.Close()

	// The hand-made signature is right with the right key.
	right := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)
	if code, _, body := kmGet(t, srv, now.Unix(), "right", right, nil); code != 200 || body != "ok" {
		t.Fatalf("rightly signed request = %d %q; want 200 ok", code, body)
	}
	for i, c := range kmMistakes {
		t.Run(c.name, func(t *testing.T) {
			code, h, body := kmGet(t, srv, now.Unix(), "mistake"+itoa(int64(i)), c.key, c.enc)
			if code != http.StatusUnauthorized || body != "oauth_problem=signature_invalid" {
				t.Errorf("answer = %d %q; want 401 oauth_problem=signature_invalid", code, body)
			}
			var pe *ProblemError
			if err := obs.last(t); !errors.As(err, &pe) {
				t.Fatalf("Observe got %v; want a *ProblemError", err)
			}
			if pe.Problem != oauth1.ProblemSignatureInvalid || pe.KeyMistake.Kind != c.want {
				t.Errorf("refusal %v, KeyMistake %q; want signature_invalid, %q", pe.Problem, pe.KeyMistake.Kind, c.want)
			}
			if pe.KeyMistake.Cause == "" || !strings.Contains(pe.Error(), "key mistake: "+string(c.want)) {
				t.Errorf("KeyMistake.Cause %q, Error() %q; want a cause, and the kind in the message", pe.KeyMistake.Cause, pe.Error())
			}
			if _, base := kmHeader(t, srv.URL+"/api", now.Unix(), "mistake"+itoa(int64(i)), c.key, c.enc); pe.BaseString != base {
				t.Errorf("BaseString = %q; want %q", pe.BaseString, base)
			}
			checkNotSent(t, h, body, pe.KeyMistake)
		})
	}

	// Off by default: the same mistake, and no KeyMistake.
	v2 := *v
	v2.DiagnoseKeys = false
	srv2 := httptest.NewServer(v2.Middleware(http.NotFoundHandler()))
	defer srv2.Close()
	for i, c := range kmMistakes {
		kmGet(t, srv2, now.Unix(), "off"+itoa(int64(i)), c.key, c.enc)
		var pe *ProblemError
		if err := obs.last(t); !errors.As(err, &pe) || pe.Problem != oauth1.ProblemSignatureInvalid || pe.KeyMistake.String() != "" {
			t.Errorf("%s without DiagnoseKeys: Observe got %v, KeyMistake %+v; want signature_invalid and none", c.name, err, pe.KeyMistake)
		}
	}
}

// TestProviderDiagnoseKeys checks that a Provider diagnoses keys with its
// Verifier's DiagnoseKeys, for its Observe, and never tells the client.
func TestProviderDiagnoseKeys(t *testing.T) {
	now := time.Unix(1700000000, 0)
	obs := new(observed)
	tokens := new(MemoryTokenStore)
	if err := tokens.PutToken(context.Background(), TokenCredentials{Token: kmToken, Secret: kmTokenSecret, ConsumerKey: kmConsumerKey}, now); err != nil {
		t.Fatal(err)
	}
	p := &Provider{
		Consumers: Consumers{kmConsumerKey: {Secret: kmConsumerSecret}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  Settings{Now: func() time.Time { return now }, Nonces: new(MemoryNonceStore), DiagnoseKeys: true},
		Observe:   obs.observe,
	}
	srv := httptest.NewServer(p.Middleware(http.NotFoundHandler()))
	defer srv.Close()
	c := kmMistakes[1] // swapped secrets
	code, h, body := kmGet(t, srv, now.Unix(), "provider", c.key, nil)
	var pe *ProblemError
	if err := obs.last(t); !errors.As(err, &pe) || pe.KeyMistake.Kind != basestring.SwappedSecrets {
		t.Fatalf("Provider.Observe got %v; want a refusal naming %q", err, basestring.SwappedSecrets)
	}
	if code != http.StatusUnauthorized {
		t.Errorf("status %d; want 401", code)
	}
	checkNotSent(t, h, body, pe.KeyMistake)
}

// TestSendBaseString checks that the base string goes back to the client
// in the problem report only when SendBaseString is set, only for
// signature_invalid, and as a form value that decodes to the base string
// the client signed.
func TestSendBaseString(t *testing.T) {
	now := time.Unix(1700000000, 0)
	obs := new(observed)
	tokens := new(MemoryTokenStore)
	if err := tokens.PutToken(context.Background(), TokenCredentials{Token: kmToken, Secret: kmTokenSecret, ConsumerKey: kmConsumerKey}, now); err != nil {
		t.Fatal(err)
	}
	settings := Settings{Now: func() time.Time { return now }, Nonces: new(MemoryNonceStore), SendBaseString: true, DiagnoseKeys: true}
	p := &Provider{Consumers: Consumers{kmConsumerKey: {Secret: kmConsumerSecret}}, Temporary: new(MemoryTemporaryStore), Tokens: tokens, Settings: settings, Observe: obs.observe}
	srv := httptest.NewServer(p.Middleware(http.NotFoundHandler()))
	defer srv.Close()

	key := kmMistakes[0].key
	code, h, body := kmGet(t, srv, now.Unix(), "send", key, nil)
	_, base := kmHeader(t, srv.URL+"/api", now.Unix(), "send", key, nil)
	form, err := url.ParseQuery(body)
	if err != nil {
		t.Fatal(err)
	}
	if code != http.StatusUnauthorized || form.Get("oauth_problem") != "signature_invalid" || form.Get("oauth_signature_base_string") != base || len(form) != 2 {
		t.Errorf("answer = %d %q; want 401 signature_invalid with oauth_signature_base_string=%q", code, body, base)
	}
	if strings.Contains(body, "oauth_signature%3D") || strings.Contains(body, "oauth_signature%253D") {
		t.Errorf("the answer holds an oauth_signature: %q", body)
	}
	var pe *ProblemError
	if err := obs.last(t); !errors.As(err, &pe) {
		t.Fatal(err)
	}
	checkNotSent(t, h, body, pe.KeyMistake)

	// Other refusals do not send it: a replay of a nonce, an old timestamp.
	right := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)
	kmGet(t, srv, now.Unix(), "replayed", right, nil)
	for _, ts := range []int64{now.Unix(), now.Unix() - 3600} {
		code, _, body := kmGet(t, srv, ts, "replayed", right, nil)
		if code != http.StatusUnauthorized || strings.Contains(body, "base_string") {
			t.Errorf("refusal at %d = %d %q; want 401 without the base string", ts, code, body)
		}
	}

	// Off: nothing but the problem.
	v := Verifier{Store: providerStore{p: p}, Settings: Settings{Now: settings.Now, Nonces: new(MemoryNonceStore)}}
	srv2 := httptest.NewServer(v.Middleware(http.NotFoundHandler()))
	defer srv2.Close()
	if code, _, body := kmGet(t, srv2, now.Unix(), "off", key, nil); code != http.StatusUnauthorized || body != "oauth_problem=signature_invalid" {
		t.Errorf("without SendBaseString: %d %q; want 401 oauth_problem=signature_invalid", code, body)
	}
}

// TestProblemBodyBaseString checks the problem report with and without
// the base string: never for a body hash mismatch, whose base strings
// agree, and never with the KeyMistake or Err.
func TestProblemBodyBaseString(t *testing.T) {
	base := "GET&http%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dk"
	pe := &ProblemError{ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemSignatureInvalid}, BaseString: base,
		KeyMistake: basestring.Mistake{Kind: basestring.SwappedSecrets, Cause: "swapped"}, Err: errors.New("detail")}
	want := "oauth_problem=signature_invalid&oauth_signature_base_string=" + kmEncode(base)
	if got := pe.body(true); got != want {
		t.Errorf("body(true) = %q; want %q", got, want)
	}
	if got := pe.body(false); got != "oauth_problem=signature_invalid" {
		t.Errorf("body(false) = %q", got)
	}
	pe.Problem = oauth1.ProblemBodyHashInvalid
	if got := pe.body(true); got != "oauth_problem=body_hash_invalid" {
		t.Errorf("body(true) of a body hash mismatch = %q; want no base string", got)
	}
}

// fipsCases are the requests of TestDiagnoseKeysFIPS140Only: each signed
// with HMAC and h (which need not be the method's hash) under key.
var fipsCases = []struct {
	name   string
	secret string // the consumer secret the provider holds
	method string
	h      func() hash.Hash
	key    string
	enc    func([]byte) string
	want   basestring.MistakeKind // "" for any mistake
}{
	{"empty token secret", kmConsumerSecret, "HMAC-SHA256", sha256.New, kmEncode(kmConsumerSecret) + "&", nil, basestring.EmptyTokenSecret},
	{"another key", kmConsumerSecret, "HMAC-SHA256", sha256.New, "another key of some length", nil, basestring.KeyUnknown},
	{"SHA-512 for HMAC-SHA256", kmConsumerSecret, "HMAC-SHA256", sha512.New, kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret), nil, basestring.WrongHMACHash},
	{"hex SHA-256", kmConsumerSecret, "HMAC-SHA256", sha256.New, kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret), hex.EncodeToString, basestring.SignatureEncoding},
	// Every key would be tried with SHA-1, the length of the signature.
	{"SHA-1 for HMAC-SHA256", kmConsumerSecret, "HMAC-SHA256", sha1.New, kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret), nil, basestring.KeyUnchecked},
	// The mistaken keys made of "short" are shorter than 112 bits.
	{"short secret, hex", "short", "HMAC-SHA512", sha512.New, kmEncode("short") + "&", hex.EncodeToString, ""},
	{"short secret, SHA-1", "short", "HMAC-SHA512", sha1.New, kmEncode("short") + "&", nil, ""},
}

var fipsNow = time.Unix(1700000000, 0)

const fipsURL = "https://api.example/r"

// TestDiagnoseKeysFIPS140Only checks that in FIPS 140-only mode, where
// crypto/hmac panics on SHA-1 and on keys shorter than 112 bits, a
// Verifier with DiagnoseKeys refuses a badly signed request with
// signature_invalid instead of panicking while it tries mistaken keys and
// other hashes. The mode is fixed at start-up, so the checks run in a child
// process; the parent signs the requests, which the child could not.
func TestDiagnoseKeysFIPS140Only(t *testing.T) {
	if os.Getenv("COUNTERSIGN_FIPS_CHILD") == "1" {
		diagnoseFIPSChild(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiagnoseKeysFIPS140Only$", "-test.v")
	cmd.Env = append(os.Environ(), "COUNTERSIGN_FIPS_CHILD=1", "GODEBUG=fips140=only")
	for i, tt := range fipsCases {
		auth, _ := kmHeaderHash(t, tt.method, tt.h, fipsURL, fipsNow.Unix(), "fips"+itoa(int64(i)), tt.key, tt.enc)
		cmd.Env = append(cmd.Env, "COUNTERSIGN_FIPS_AUTH_"+itoa(int64(i))+"="+auth)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "fips child: ok") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func diagnoseFIPSChild(t *testing.T) {
	for i, tt := range fipsCases {
		v := &Verifier{Store: &memCredentials{
			consumers: map[string]Registration{kmConsumerKey: {Secret: tt.secret}},
			tokens:    map[string]string{kmConsumerKey + " " + kmToken: kmTokenSecret},
		}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return fipsNow }, DiagnoseKeys: true}}
		r := httptest.NewRequest("GET", fipsURL, nil)
		r.Header.Set("Authorization", os.Getenv("COUNTERSIGN_FIPS_AUTH_"+itoa(int64(i))))
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: Verify panicked: %v", tt.name, p)
				}
			}()
			_, err = v.Verify(r)
		}()
		var pe *ProblemError
		if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemSignatureInvalid {
			t.Errorf("%s: Verify = %v; want a signature_invalid refusal", tt.name, err)
			continue
		}
		if pe.KeyMistake.Kind == "" || tt.want != "" && pe.KeyMistake.Kind != tt.want {
			t.Errorf("%s: KeyMistake %v; want %q", tt.name, pe.KeyMistake, tt.want)
		}
	}
	if !t.Failed() {
		fmt.Println("fips child: ok")
	}
}

// TestVerifierNamesEveryKeyMistake checks that a Verifier with
// DiagnoseKeys names each MistakeKind it can reach (all but unchecked,
// which TestDiagnoseKeysFIPS140Only reaches) in ProblemError.KeyMistake,
// whatever the signature looks like, and each of the mistakes made at once.
func TestVerifierNamesEveryKeyMistake(t *testing.T) {
	now := time.Unix(1700000000, 0)
	const u = "https://api.example/r"
	cs, ts := kmEncode(kmConsumerSecret), kmEncode(kmTokenSecret)
	right := cs + "&" + ts
	twice := func(sum []byte) string { return kmEncode(base64.StdEncoding.EncodeToString(sum)) }
	k := func(ks ...basestring.MistakeKind) []basestring.MistakeKind { return ks }
	tests := []struct {
		name   string
		method string
		h      func() hash.Hash
		key    string
		enc    func([]byte) string
		want   []basestring.MistakeKind
	}{
		{"signature encoded twice", "HMAC-SHA1", sha1.New, right, twice, k(basestring.SignatureEncoding)},
		{"uppercase hex", "HMAC-SHA256", sha256.New, right, func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }, k(basestring.SignatureEncoding)},
		{"unpadded", "HMAC-SHA512", sha512.New, right, base64.RawStdEncoding.EncodeToString, k(basestring.SignatureEncoding)},
		{"empty token secret", "HMAC-SHA1", sha1.New, cs + "&", nil, k(basestring.EmptyTokenSecret)},
		{"consumer secret only", "HMAC-SHA1", sha1.New, cs, nil, k(basestring.ConsumerSecretOnly)},
		{"swapped secrets", "HMAC-SHA1", sha1.New, ts + "&" + cs, nil, k(basestring.SwappedSecrets)},
		{"not encoded", "HMAC-SHA1", sha1.New, kmConsumerSecret + "&" + kmTokenSecret, nil, k(basestring.SecretNotEncoded)},
		{"encoded twice", "HMAC-SHA1", sha1.New, kmEncode(cs) + "&" + kmEncode(ts), nil, k(basestring.SecretEncodedTwice)},
		{"CR LF", "HMAC-SHA1", sha1.New, kmEncode(kmConsumerSecret+"\r\n") + "&" + ts, nil, k(basestring.SecretWhitespace)},
		{"consumer key as secret", "HMAC-SHA1", sha1.New, kmEncode(kmConsumerKey) + "&" + ts, nil, k(basestring.ConsumerKeyAsSecret)},
		{"token as secret", "HMAC-SHA1", sha1.New, cs + "&" + kmEncode(kmToken), nil, k(basestring.TokenAsSecret)},
		{"base64-encoded token secret", "HMAC-SHA1", sha1.New, cs + "&" + kmEncode(base64.StdEncoding.EncodeToString([]byte(kmTokenSecret))), nil, k(basestring.Base64Secret)},
		{"SHA-512 as HMAC-SHA1", "HMAC-SHA1", sha512.New, right, nil, k(basestring.WrongHMACHash)},
		{"another key", "HMAC-SHA256", sha256.New, "another&key", nil, k(basestring.KeyUnknown)},
		{"hex SHA-512 as HMAC-SHA256", "HMAC-SHA256", sha512.New, right, hex.EncodeToString, k(basestring.SignatureEncoding, basestring.WrongHMACHash)},
		{"not encoded, encoded twice", "HMAC-SHA1", sha1.New, kmConsumerSecret + "&" + kmTokenSecret, twice, k(basestring.SignatureEncoding, basestring.SecretNotEncoded)},
		{"swapped with SHA-1 as HMAC-SHA512", "HMAC-SHA512", sha1.New, ts + "&" + cs, nil, k(basestring.SwappedSecrets, basestring.WrongHMACHash)},
		{"empty token secret and a newline", "HMAC-SHA1", sha1.New, kmEncode(kmConsumerSecret+"\n") + "&", nil, k(basestring.EmptyTokenSecret, basestring.SecretWhitespace)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Verifier{Store: &memCredentials{
				consumers: map[string]Registration{kmConsumerKey: {Secret: kmConsumerSecret}},
				tokens:    map[string]string{kmConsumerKey + " " + kmToken: kmTokenSecret},
			}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }, DiagnoseKeys: true}}
			auth, _ := kmHeaderHash(t, tt.method, tt.h, u, now.Unix(), "every"+itoa(int64(i)), tt.key, tt.enc)
			r := httptest.NewRequest("GET", u, nil)
			r.Header.Set("Authorization", auth)
			_, err := v.Verify(r)
			var pe *ProblemError
			if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemSignatureInvalid {
				t.Fatalf("Verify = %v; want signature_invalid", err)
			}
			m := pe.KeyMistake
			if got := append([]basestring.MistakeKind{m.Kind}, m.Also...); !slices.Equal(got, tt.want) {
				t.Errorf("KeyMistake = %v; want the kinds %v", m, tt.want)
			}
			for _, s := range []string{kmConsumerSecret, kmTokenSecret, cs, ts} {
				if strings.Contains(m.String()+pe.Error(), s) {
					t.Errorf("the refusal holds a secret: %v", m)
				}
			}
		})
	}
}

// kmEncode is RFC 5849 §3.6 percent-encoding, written out apart from
// package percent, so that the requests are signed without the code under
// test.
var kmEncode = vectors.Encode
