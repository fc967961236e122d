package server

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The X API documentation's example request ("Creating a signature"),
// from testdata/vectors/x-update-1.1.txt.
var (
	xVector         = vectors.MustLoad("x-update-1.1")
	xConsumerKey    = xVector.Get("consumer-key")
	xConsumerSecret = xVector.Get("consumer-secret")
	xToken          = xVector.Get("token")
	xTokenSecret    = xVector.Get("token-secret")
	xNonce          = xVector.Get("nonce")
	xBody           = xVector.Get("body")
	xTimestamp      = func() int64 {
		ts, err := strconv.ParseInt(xVector.Get("timestamp"), 10, 64)
		if err != nil {
			panic(err)
		}
		return ts
	}()
	xURL = func() *url.URL {
		u, err := url.Parse(xVector.Get("url"))
		if err != nil {
			panic(err)
		}
		return u
	}()
)

// xHeader is the example's Authorization header, with the signature
// method and signature of vector v.
func xHeader(v vectors.Vector) string {
	return xVector.With("signature-method", v.Get("signature-method")).With("signature", v.Get("signature")).Header()
}

// xRequest is the example request as an https server receives it.
func xRequest(auth string) *http.Request {
	r := httptest.NewRequest(xVector.Get("method"), xURL.RequestURI(), strings.NewReader(xBody))
	r.Host = xURL.Host
	r.TLS = &tls.ConnectionState{}
	r.Header.Set("Content-Type", xVector.Get("content-type"))
	r.Header.Set("Authorization", auth)
	return r
}

type memCredentials struct {
	consumers map[string]Registration
	tokens    map[string]string // consumer key + " " + token → secret
}

func (m *memCredentials) Consumer(_ context.Context, key string, _ time.Time) (Registration, error) {
	c, ok := m.consumers[key]
	if !ok {
		return Registration{}, ErrNotFound
	}
	return c, nil
}

func (m *memCredentials) TokenCredentials(_ context.Context, key, token string, _ time.Time) (TokenCredentials, error) {
	s, ok := m.tokens[key+" "+token]
	if !ok {
		return TokenCredentials{}, fmt.Errorf("token %q: %w", token, ErrNotFound)
	}
	return TokenCredentials{Token: token, Secret: s, ConsumerKey: key, User: "user of " + token}, nil
}

var testRSAKey = func() *rsa.PrivateKey {
	b, err := os.ReadFile("../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		panic(err)
	}
	blk, _ := pem.Decode(b)
	k, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
	if err != nil {
		panic(err)
	}
	return k
}()

func xCredentials() *memCredentials {
	return &memCredentials{
		consumers: map[string]Registration{
			xConsumerKey: {Secret: xConsumerSecret, PublicKey: &testRSAKey.PublicKey},
			"plain":      {Secret: "plain secret"},
			"rsa-only":   {PublicKey: &testRSAKey.PublicKey},
		},
		tokens: map[string]string{xConsumerKey + " " + xToken: xTokenSecret},
	}
}

func xVerifier() *Verifier {
	return &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(xTimestamp+100, 0) }}}
}

func TestVerifyXExample(t *testing.T) {
	// The published HMAC-SHA1 signature, and HMAC-SHA256 computed with openssl.
	for _, name := range []string{"x-update-1.1", "x-hmac-sha256"} {
		vec := vectors.MustLoad(name)
		method := vec.Get("signature-method")
		v := xVerifier()
		r := xRequest(xHeader(vec))
		got, err := v.Verify(r)
		if err != nil {
			t.Fatalf("Verify(X example, %s) = %v", method, err)
		}
		want := &Verification{
			ConsumerKey: xConsumerKey, Token: xToken, SignatureMethod: method, BaseString: vec.Get("base-string"),
			User: "user of " + xToken, // what the store's record says
			Params: []oauth1.Param{
				{Name: "oauth_consumer_key", Value: xConsumerKey}, {Name: "oauth_nonce", Value: xNonce},
				{Name: "oauth_signature_method", Value: method}, {Name: "oauth_timestamp", Value: xVector.Get("timestamp")},
				{Name: "oauth_token", Value: xToken}, {Name: "oauth_version", Value: xVector.Get("version")},
			},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Verify(X example, %s) =\n%+v\nwant\n%+v", method, got, want)
		}
		if b, _ := io.ReadAll(r.Body); string(b) != xBody {
			t.Errorf("body after Verify = %q, want %q", b, xBody)
		}
		// The same request again is a replay.
		_, err = v.Verify(xRequest(xHeader(vec)))
		var pe *ProblemError
		if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
			t.Errorf("Verify(replayed X example) = %v, want nonce_used", err)
		}
	}
}

// received turns a request a client signed into the request a server
// receives, the way net/http parses it.
func received(t testing.TB, c *http.Request) *http.Request {
	var body io.Reader
	if c.Body != nil {
		b, err := io.ReadAll(c.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	r := httptest.NewRequest(c.Method, c.URL.RequestURI(), body)
	r.Host = c.URL.Host
	if c.URL.Scheme == "https" {
		r.TLS = &tls.ConnectionState{}
	} else {
		r.TLS = nil
	}
	for k, v := range c.Header {
		r.Header[k] = v
	}
	return r
}

// signed returns a request signed by c with the X example's token.
func signed(t testing.TB, c *oauth1.Config, method, url, ctype, body string, nonce string, extra ...oauth1.Param) *http.Request {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	if err := c.SignAt(r, &oauth1.Credentials{Token: xToken, Secret: xTokenSecret}, time.Unix(xTimestamp, 0), nonce, extra...); err != nil {
		t.Fatal(err)
	}
	return received(t, r)
}

func xConfig() *oauth1.Config {
	return &oauth1.Config{ConsumerKey: xConsumerKey, ConsumerSecret: xConsumerSecret}
}

// TestVerifySigned verifies what the signer produces, in every delivery,
// method and body combination, and checks that changing the request or
// the secret makes it fail.
func TestVerifySigned(t *testing.T) {
	signers := []oauth1.Signer{oauth1.HMAC{}, oauth1.HMAC{Hash: crypto.SHA256}, oauth1.HMAC{Hash: crypto.SHA512}, oauth1.RSA{Key: testRSAKey}, oauth1.RSA{Key: testRSAKey, Hash: crypto.SHA256}, oauth1.Plaintext{}}
	bodies := []struct{ ctype, body string }{
		{"", ""},
		{"application/x-www-form-urlencoded; charset=utf-8", "a=1&b=x+y&c=%E2%98%83&empty="},
		{"application/json", `{"a": 1}`},
	}
	n := 0
	for _, sg := range signers {
		for _, d := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
			for _, b := range bodies {
				for _, bh := range []crypto.Hash{0, crypto.SHA1, crypto.SHA256} {
					if d == oauth1.FormBody && b.ctype == "application/json" {
						continue
					}
					n++
					c := xConfig()
					c.Signer, c.Delivery, c.BodyHash, c.Realm = sg, d, bh, "Photos"
					method := "POST"
					if b.body == "" {
						method = "GET"
					}
					name := fmt.Sprintf("%s/%v/%s/bodyhash=%v", sg.SignatureMethod(), d, b.ctype, bh)
					nonce := fmt.Sprintf("nonce%d", n)
					url := "https://API.example.com:443/a%2Fb/c%20d;e?x=1&y=%2B&y=+&z"
					v := xVerifier()
					v.SignatureMethods = append(slices.Clone(defaultMethods), "PLAINTEXT")
					got, err := v.Verify(signed(t, c, method, url, b.ctype, b.body, nonce))
					if err != nil {
						t.Errorf("%s: Verify = %v", name, err)
						continue
					}
					if got.ConsumerKey != xConsumerKey || got.Token != xToken || got.SignatureMethod != sg.SignatureMethod() {
						t.Errorf("%s: Verify = %+v", name, got)
					}
					if want := "GET&https%3A%2F%2Fapi.example.com%2Fa%252Fb%2Fc%2520d%3Be&"; method == "GET" && !strings.HasPrefix(got.BaseString, want) {
						t.Errorf("%s: base string %q, want prefix %q", name, got.BaseString, want)
					}

					// A different secret, a changed parameter or a changed
					// path must all fail; a fresh nonce each time, so that
					// the nonce is not what refuses them.
					wrong := xConfig()
					wrong.Signer, wrong.Delivery, wrong.BodyHash = sg, d, bh
					wrong.ConsumerSecret = "not the secret"
					if _, isRSA := sg.(oauth1.RSA); isRSA {
						wrong.Signer = oauth1.RSA{Key: otherRSAKey(t), Hash: sg.(oauth1.RSA).Hash}
					}
					mustProblem(t, name+" wrong secret", v, signed(t, wrong, method, url, b.ctype, b.body, nonce+"w"), oauth1.ProblemSignatureInvalid)
					if sg.SignatureMethod() == "PLAINTEXT" {
						continue // it signs nothing but the secrets
					}
					r := signed(t, c, method, url, b.ctype, b.body, nonce+"q")
					r.URL.RawQuery += "&x=2"
					r.RequestURI += "&x=2"
					mustProblem(t, name+" changed query", v, r, oauth1.ProblemSignatureInvalid)
					r = signed(t, c, method, url, b.ctype, b.body, nonce+"p")
					r.RequestURI = strings.Replace(r.RequestURI, "a%2Fb", "a/b", 1)
					mustProblem(t, name+" changed path", v, r, oauth1.ProblemSignatureInvalid)
				}
			}
		}
	}
}

var otherKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		panic(err)
	}
	return k
})

func otherRSAKey(testing.TB) *rsa.PrivateKey { return otherKey() }

func mustProblem(t *testing.T, name string, v *Verifier, r *http.Request, want oauth1.Problem) *ProblemError {
	t.Helper()
	got, err := v.Verify(r)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != want {
		t.Errorf("%s: Verify = %+v, %v, want problem %s", name, got, err, want)
		return nil
	}
	for _, secret := range []string{xConsumerSecret, xTokenSecret, "not the secret", "plain secret"} {
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), percentLike(secret)) || strings.Contains(pe.body(true), secret) {
			t.Errorf("%s: error %q reveals a secret", name, err)
		}
	}
	return pe
}

// refHMACSHA1 computes an HMAC-SHA1 signature with crypto/hmac, apart
// from the package's own code; the secrets used in these tests need no
// escaping beyond spaces.
func refHMACSHA1(base, consumerSecret, tokenSecret string) string {
	mac := hmac.New(sha1.New, []byte(percentLike(consumerSecret)+"&"+percentLike(tokenSecret)))
	mac.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

func percentLike(s string) string { return strings.ReplaceAll(s, " ", "%20") }

type methodSigner struct {
	oauth1.Signer
	name string
}

func (s methodSigner) SignatureMethod() string { return s.name }

func TestVerifyProblems(t *testing.T) {
	const url = "https://api.example.com/r?q=1"
	hdr := func(mod func(*http.Request)) *http.Request {
		r := signed(t, xConfig(), "GET", url, "", "", "n1")
		mod(r)
		return r
	}
	omit := xConfig()
	omit.OmitVersion = true
	http1 := xConfig()
	http1.Signer = oauth1.Plaintext{}
	http1.AllowInsecurePlaintext = true
	unknown := xConfig()
	unknown.ConsumerKey = "who"
	md5 := xConfig()
	md5.Signer = methodSigner{oauth1.HMAC{}, "HMAC-MD5"}
	rsaOnly := xConfig()
	rsaOnly.ConsumerKey, rsaOnly.ConsumerSecret = "rsa-only", "x"

	tests := []struct {
		name   string
		v      func(*Verifier)
		r      *http.Request
		want   oauth1.Problem
		params []string
	}{
		{"no parameters", nil, httptest.NewRequest("GET", url, nil), oauth1.ProblemParameterAbsent,
			[]string{"oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce"}},
		{"bearer only", nil, hdr(func(r *http.Request) { r.Header.Set("Authorization", "Bearer x") }), oauth1.ProblemParameterAbsent, nil},
		{"malformed header", nil, hdr(func(r *http.Request) { r.Header.Set("Authorization", `OAuth a="`) }), oauth1.ProblemParameterRejected, []string{"Authorization"}},
		{"two headers", nil, hdr(func(r *http.Request) { r.Header.Add("Authorization", r.Header.Get("Authorization")) }), oauth1.ProblemParameterRejected, []string{"Authorization"}},
		{"duplicate in query", nil, hdr(func(r *http.Request) { r.URL.RawQuery += "&oauth_nonce=n2"; r.RequestURI += "&oauth_nonce=n2" }), oauth1.ProblemParameterRejected, []string{"oauth_nonce"}},
		{"duplicate in header", nil, hdr(func(r *http.Request) {
			r.Header.Set("Authorization", r.Header.Get("Authorization")+`, oauth_version="1.0"`)
		}), oauth1.ProblemParameterRejected, []string{"oauth_version"}},
		{"version 2.0", nil, signed(t, omit, "GET", url, "", "", "n1", oauth1.Param{Name: "oauth_version", Value: "2.0"}), oauth1.ProblemVersionRejected, nil},
		{"method not accepted", nil, signed(t, md5, "GET", url, "", "", "n1"), oauth1.ProblemSignatureMethodRejected, nil},
		{"method not listed", func(v *Verifier) { v.SignatureMethods = []string{"RSA-SHA256"} }, hdr(func(*http.Request) {}), oauth1.ProblemSignatureMethodRejected, nil},
		{"PLAINTEXT over http", func(v *Verifier) { v.SignatureMethods = []string{"PLAINTEXT"} }, signed(t, http1, "GET", "http://api.example.com/r", "", "", "n1"), oauth1.ProblemSignatureMethodRejected, nil},
		{"PLAINTEXT for an RSA-only consumer", func(v *Verifier) { v.SignatureMethods = []string{"PLAINTEXT"} }, func() *http.Request {
			c := &oauth1.Config{ConsumerKey: "rsa-only", Signer: oauth1.Plaintext{}}
			r, _ := http.NewRequest("GET", url, nil)
			c.SignAt(r, nil, time.Unix(xTimestamp, 0), "n1")
			return received(t, r)
		}(), oauth1.ProblemSignatureMethodRejected, nil},
		{"HMAC for an RSA-only consumer", nil, func() *http.Request {
			r, _ := http.NewRequest("GET", url, nil)
			rsaOnly.SignAt(r, nil, time.Unix(xTimestamp, 0), "n1")
			return received(t, r)
		}(), oauth1.ProblemSignatureMethodRejected, nil},
		{"old timestamp", func(v *Verifier) { v.Now = func() time.Time { return time.Unix(xTimestamp+301, 0) } }, hdr(func(*http.Request) {}), oauth1.ProblemTimestampRefused, nil},
		{"future timestamp", func(v *Verifier) {
			v.Now = func() time.Time { return time.Unix(xTimestamp-31, 0) }
			v.Window = 30 * time.Second
		}, hdr(func(*http.Request) {}), oauth1.ProblemTimestampRefused, nil},
		{"bad timestamp", nil, hdr(func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), `oauth_timestamp="`, `oauth_timestamp="-`, 1))
		}), oauth1.ProblemParameterRejected, []string{"oauth_timestamp"}},
		{"unknown consumer", nil, signed(t, unknown, "GET", url, "", "", "n1"), oauth1.ProblemConsumerKeyUnknown, nil},
		{"unknown token", nil, hdr(func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), xToken, "other", 1))
		}), oauth1.ProblemTokenRejected, nil},
		{"token required", func(v *Verifier) { v.RequireToken = true }, func() *http.Request {
			r, _ := http.NewRequest("GET", url, nil)
			xConfig().SignAt(r, nil, time.Unix(xTimestamp, 0), "n1")
			return received(t, r)
		}(), oauth1.ProblemParameterAbsent, []string{"oauth_token"}},
		{"body hash required", func(v *Verifier) { v.BodyHash = crypto.SHA256 }, signed(t, xConfig(), "POST", url, "application/json", "{}", "n1"), oauth1.ProblemParameterAbsent, []string{"oauth_body_hash"}},
		{"body hash on a form", nil, signed(t, xConfig(), "POST", url, "application/x-www-form-urlencoded", "a=1", "n1", oauth1.Param{Name: "oauth_body_hash", Value: "2jmj7l5rSw0yVb/vlWAYkK/YBwk="}), oauth1.ProblemParameterRejected, []string{"oauth_body_hash"}},
		{"body hash of another hash", func(v *Verifier) { v.BodyHash = crypto.SHA256 }, func() *http.Request {
			c := xConfig()
			c.BodyHash = crypto.SHA1
			return signed(t, c, "POST", url, "application/json", "{}", "n1")
		}(), oauth1.ProblemParameterRejected, []string{"oauth_body_hash"}},
		{"body changed", nil, func() *http.Request {
			c := xConfig()
			c.BodyHash = crypto.SHA1
			r := signed(t, c, "POST", url, "application/json", "{}", "n1")
			r.Body = io.NopCloser(strings.NewReader("[]"))
			return r
		}(), oauth1.ProblemBodyHashInvalid, nil},
		{"signature not base64", nil, hdr(func(r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), `oauth_signature="`, `oauth_signature="%21`, 1))
		}), oauth1.ProblemSignatureInvalid, nil},
		{"host changed", nil, hdr(func(r *http.Request) { r.Host = "api.example.com:8443" }), oauth1.ProblemSignatureInvalid, nil},
		{"scheme changed", nil, hdr(func(r *http.Request) { r.TLS = nil }), oauth1.ProblemSignatureInvalid, nil},
	}
	for _, tt := range tests {
		v := xVerifier()
		if tt.v != nil {
			tt.v(v)
		}
		pe := mustProblem(t, tt.name, v, tt.r, tt.want)
		if pe == nil {
			continue
		}
		got := pe.ParamsRejected
		if tt.want == oauth1.ProblemParameterAbsent {
			got = pe.ParamsAbsent
		}
		if tt.params != nil && !reflect.DeepEqual(got, tt.params) {
			t.Errorf("%s: ParamsAbsent %q, ParamsRejected %q, want %q", tt.name, pe.ParamsAbsent, pe.ParamsRejected, tt.params)
		}
		if tt.want == oauth1.ProblemTimestampRefused {
			now := v.Now().Unix()
			w := int64(v.window() / time.Second)
			if pe.MinTimestamp != now-w || pe.MaxTimestamp != now+w {
				t.Errorf("%s: acceptable %d-%d, want %d-%d", tt.name, pe.MinTimestamp, pe.MaxTimestamp, now-w, now+w)
			}
		}
	}
}

func TestVerifySchemeOverride(t *testing.T) {
	const url = "https://api.example.com/r"
	for _, tt := range []struct {
		scheme, schemeHeader, header string
		ok                           bool
	}{
		{"", "", "", false},
		{"HTTPS", "", "", true},
		{"", "X-Forwarded-Proto", "https", true},
		{"", "X-Forwarded-Proto", "https, http", false}, // the nearest proxy said http
		{"", "X-Forwarded-Proto", "http, https", true},
		{"", "X-Forwarded-Proto", "", false},
		{"https", "X-Forwarded-Proto", "http", false},
	} {
		r := signed(t, xConfig(), "GET", url, "", "", "n")
		r.TLS = nil // the proxy terminated TLS
		if tt.header != "" {
			r.Header.Set("X-Forwarded-Proto", tt.header)
		}
		v := xVerifier()
		v.Scheme, v.SchemeHeader = tt.scheme, tt.schemeHeader
		_, err := v.Verify(r)
		if (err == nil) != tt.ok {
			t.Errorf("Verify with Scheme=%q SchemeHeader=%q and header %q = %v, want ok=%v", tt.scheme, tt.schemeHeader, tt.header, err, tt.ok)
		}
	}
}

func TestVerifyBodyHash(t *testing.T) {
	for _, body := range []string{"", `{"a": "b"}`} {
		sum := sha1.Sum([]byte(body))
		sum256 := sha256.Sum256([]byte(body))
		for _, h := range []string{base64.StdEncoding.EncodeToString(sum[:]), base64.StdEncoding.EncodeToString(sum256[:])} {
			c := xConfig()
			c.OmitVersion = true
			var rd io.Reader
			if body != "" {
				rd = strings.NewReader(body)
			}
			cr, _ := http.NewRequest("PUT", "https://api.example.com/r", rd)
			cr.Header.Set("Content-Type", "application/json")
			if err := c.SignAt(cr, nil, time.Unix(xTimestamp, 0), "n"+h, oauth1.Param{Name: "oauth_body_hash", Value: h}); err != nil {
				t.Fatal(err)
			}
			v := xVerifier()
			v.BodyHash = crypto.SHA1
			_, err := v.Verify(received(t, cr))
			if len(h) == 28 && err != nil {
				t.Errorf("Verify(body %q, SHA-1 hash) = %v", body, err)
			}
			if len(h) != 28 && err == nil {
				t.Errorf("Verify(body %q, SHA-256 hash, Verifier.BodyHash SHA-1) succeeded", body)
			}
		}
	}
}

// TestVerifyFailureKeepsNonce checks that a refused request does not use
// up its nonce, and that the nonce is bound to the consumer and token.
func TestVerifyFailureKeepsNonce(t *testing.T) {
	v := xVerifier()
	bad := xConfig()
	bad.ConsumerSecret = "wrong"
	mustProblem(t, "wrong secret", v, signed(t, bad, "GET", "https://a.example/", "", "", "N"), oauth1.ProblemSignatureInvalid)
	if _, err := v.Verify(signed(t, xConfig(), "GET", "https://a.example/", "", "", "N")); err != nil {
		t.Fatalf("Verify after a refused request with the same nonce = %v", err)
	}
	mustProblem(t, "replay", v, signed(t, xConfig(), "GET", "https://a.example/", "", "", "N"), oauth1.ProblemNonceUsed)
	mustProblem(t, "replay, other URL", v, signed(t, xConfig(), "GET", "https://a.example/other", "", "", "N"), oauth1.ProblemNonceUsed)
	r, _ := http.NewRequest("GET", "https://a.example/", nil)
	xConfig().SignAt(r, nil, time.Unix(xTimestamp, 0), "N") // same nonce, no token
	if _, err := v.Verify(received(t, r)); err != nil {
		t.Errorf("Verify(same nonce, no token) = %v, want a different nonce key", err)
	}
}

// TestVerifyConcurrentReplays verifies from many goroutines: each request
// is sent by several goroutines at once, and exactly one of them must be
// accepted.
func TestVerifyConcurrentReplays(t *testing.T) {
	v := xVerifier()
	const requests, copies = 200, 4
	var accepted, replays, other atomic.Int64
	reqs := make([][]*http.Request, requests)
	c := xConfig()
	for i := range reqs {
		for range copies {
			reqs[i] = append(reqs[i], signed(t, c, "POST", "https://api.example.com/r", "application/x-www-form-urlencoded", "a=1", fmt.Sprint("nonce-", i)))
		}
	}
	var wg sync.WaitGroup
	for j := range copies {
		wg.Go(func() {
			for i := range reqs {
				_, err := v.Verify(reqs[(i+j*7)%requests][j])
				var pe *ProblemError
				switch {
				case err == nil:
					accepted.Add(1)
				case errors.As(err, &pe) && pe.Problem == oauth1.ProblemNonceUsed:
					replays.Add(1)
				default:
					other.Add(1)
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if accepted.Load() != requests || replays.Load() != requests*(copies-1) || other.Load() != 0 {
		t.Errorf("accepted %d, replays %d, other %d; want %d, %d, 0", accepted.Load(), replays.Load(), other.Load(), requests, requests*(copies-1))
	}
}

func TestMiddleware(t *testing.T) {
	v := xVerifier()
	v.Realm = `Photos "x"`
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, ok := FromContext(r.Context())
		b, err := io.ReadAll(r.Body)
		if !ok || err != nil {
			t.Errorf("handler: FromContext = %v, %v; body %v", ver, ok, err)
		}
		fmt.Fprintf(w, "%s %s %s", ver.ConsumerKey, ver.Token, b)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, signed(t, xConfig(), "POST", "https://api.example.com/r", "application/x-www-form-urlencoded", "a=1&b=2", "m1"))
	if want := xConsumerKey + " " + xToken + " a=1&b=2"; rec.Code != 200 || rec.Body.String() != want {
		t.Errorf("accepted request: %d %q, want 200 %q", rec.Code, rec.Body, want)
	}

	for _, tt := range []struct {
		r      *http.Request
		status int
		body   string
	}{
		{httptest.NewRequest("GET", "/r", nil), 400, "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_consumer_key%26oauth_signature_method%26oauth_signature%26oauth_timestamp%26oauth_nonce"},
		{signed(t, xConfig(), "POST", "https://api.example.com/r", "application/x-www-form-urlencoded", "a=1&b=2", "m1"), 401, "oauth_problem=nonce_used"},
		{signed(t, &oauth1.Config{ConsumerKey: xConsumerKey, ConsumerSecret: "x"}, "GET", "https://api.example.com/r", "", "", "m2"), 401, "oauth_problem=signature_invalid"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, tt.r)
		if rec.Code != tt.status || rec.Body.String() != tt.body {
			t.Errorf("refused request: %d %q, want %d %q", rec.Code, rec.Body, tt.status, tt.body)
		}
		if got, want := rec.Header().Get("WWW-Authenticate"), `OAuth realm="Photos \"x\""`; got != want {
			t.Errorf("WWW-Authenticate = %q, want %q", got, want)
		}
	}

	rec = httptest.NewRecorder()
	v.Now = func() time.Time { return time.Unix(2e9, 0) }
	h.ServeHTTP(rec, signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "m3"))
	if want := "oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1999999700%2D2000000300&oauth_problem_advice=oauth_timestamp%20is%20outside%20the%20acceptable%20range%3A%20check%20the%20client%27s%20clock."; rec.Code != 401 || rec.Body.String() != want {
		t.Errorf("stale request: %d %q, want 401 %q", rec.Code, rec.Body, want)
	}
}

// TestMiddlewareServer runs the middleware on a real loopback server, so
// that the base string URI comes from what net/http parsed.
func TestMiddlewareServer(t *testing.T) {
	v := &Verifier{Store: xCredentials()}
	srv := httptest.NewServer(v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := FromContext(r.Context())
		io.WriteString(w, ver.BaseString)
	})))
	defer srv.Close()
	for _, path := range []string{"/", "/a%2Fb/%7Euser/c%20d", "//double", "/x?q=a+b&q=%2B&r"} {
		r, _ := http.NewRequest("GET", srv.URL+path, nil)
		if err := xConfig().Sign(r, &oauth1.Credentials{Token: xToken, Secret: xTokenSecret}); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
}

func TestProblemErrorStatus(t *testing.T) {
	for code, want := range map[oauth1.Problem]int{
		oauth1.ProblemVersionRejected: 400, oauth1.ProblemParameterAbsent: 400, oauth1.ProblemParameterRejected: 400,
		oauth1.ProblemSignatureMethodRejected: 400, oauth1.ProblemTimestampRefused: 401, oauth1.ProblemNonceUsed: 401,
		oauth1.ProblemSignatureInvalid: 401, oauth1.ProblemBodyHashInvalid: 401, oauth1.ProblemConsumerKeyUnknown: 401, oauth1.ProblemTokenRejected: 401,
		oauth1.ProblemTokenRevoked: 401,
	} {
		if got := problem(code, nil).StatusCode; got != want {
			t.Errorf("problem(%s).StatusCode = %d, want %d", code, got, want)
		}
		// A ProblemError made without a status gets its problem's.
		w := httptest.NewRecorder()
		new(Verifier).WriteError(w, &ProblemError{ProblemReport: oauth1.ProblemReport{Problem: code}})
		if w.Code != want {
			t.Errorf("WriteError(ProblemError{%s}) status = %d, want %d", code, w.Code, want)
		}
		w = httptest.NewRecorder()
		new(Verifier).WriteError(w, &ProblemError{ProblemReport: oauth1.ProblemReport{Problem: code}, StatusCode: http.StatusForbidden})
		if w.Code != http.StatusForbidden {
			t.Errorf("WriteError(ProblemError{%s, StatusCode: 403}) status = %d, want 403", code, w.Code)
		}
	}
}

// FuzzVerify sends arbitrary requests. None may panic, and none may be
// accepted unless it was signed with the right secrets: the fuzzer can
// change anything, but it cannot compute an HMAC with a secret it does not
// know, so an accepted request must carry the HMAC computed here.
func FuzzVerify(f *testing.F) {
	f.Add(xVector.Get("method"), xURL.RequestURI(), xURL.Host, xVector.Get("content-type"), xBody, xHeader(xVector))
	f.Add("GET", "/?oauth_consumer_key="+xConsumerKey+"&oauth_signature_method=PLAINTEXT&oauth_signature=x%26y", "h", "", "", "")
	f.Add("PUT", "/a", "h", "text/plain", "body", `OAuth oauth_body_hash="2jmj7l5rSw0yVb%2FvlWAYkK%2FYBwk%3D", oauth_consumer_key="plain"`)
	f.Fuzz(func(t *testing.T, method, target, host, ctype, body, auth string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") || strings.ContainsAny(method, " \r\n\t") || method == "" || host == "" {
			return
		}
		r, err := http.NewRequest(method, "http://"+host+target, strings.NewReader(body))
		if err != nil {
			return
		}
		r.RequestURI = target
		r.Host = host
		r.GetBody = nil // as a server receives it
		r.TLS = &tls.ConnectionState{}
		r.Header.Set("Content-Type", ctype)
		r.Header.Set("Authorization", auth)
		v := xVerifier()
		v.SignatureMethods = []string{"HMAC-SHA1", "PLAINTEXT", "RSA-SHA1"}
		got, err := v.Verify(r)
		if err != nil {
			return
		}
		var sig string
		for _, p := range got.Params {
			if p.Name == "oauth_signature" {
				t.Fatal("Verification.Params holds oauth_signature")
			}
		}
		// The signature, wherever it was sent: Verify refuses duplicates.
		ps, _ := oauth1.ParseAuthHeader(auth)
		ps, _ = appendOAuthForm(ps, r.URL.RawQuery, "query")
		if form, _ := wire.IsForm(ctype); form {
			ps, _ = appendOAuthForm(ps, body, "body")
		}
		for _, p := range ps {
			if p.Name == "oauth_signature" {
				sig = p.Value
			}
		}
		secrets := map[string]string{xConsumerKey: xConsumerSecret, "plain": "plain secret"}
		tokenSecret := ""
		if got.Token != "" {
			tokenSecret = xTokenSecret
		}
		var want string
		switch got.SignatureMethod {
		case "HMAC-SHA1":
			want = refHMACSHA1(got.BaseString, secrets[got.ConsumerKey], tokenSecret)
		case "PLAINTEXT":
			want = percentLike(secrets[got.ConsumerKey]) + "&" + tokenSecret
		case "RSA-SHA1":
			d := sha1.Sum([]byte(got.BaseString))
			raw, _ := base64.StdEncoding.DecodeString(sig)
			if rsa.VerifyPKCS1v15(&testRSAKey.PublicKey, crypto.SHA1, d[:], raw) != nil {
				t.Fatalf("accepted an RSA-SHA1 request with a bad signature: %+v", got)
			}
			return
		}
		if sig != want {
			t.Fatalf("accepted %s request with signature %q, want %q; base string %q", got.SignatureMethod, sig, want, got.BaseString)
		}
	})
}

type failingStore struct{ err error }

func (f failingStore) Use(context.Context, Nonce, time.Time, time.Time) (bool, error) {
	return false, f.err
}

// failingCredentials fails every lookup with err, or an error that is
// not ErrStoreUnavailable when err is nil.
type failingCredentials struct{ err error }

func (f failingCredentials) Consumer(context.Context, string, time.Time) (Registration, error) {
	if f.err != nil {
		return Registration{}, f.err
	}
	return Registration{}, errors.New("database is down")
}

func (f failingCredentials) TokenCredentials(context.Context, string, string, time.Time) (TokenCredentials, error) {
	if f.err != nil {
		return TokenCredentials{}, f.err
	}
	return TokenCredentials{}, errors.New("database is down")
}

// TestMiddlewareErrors checks the answers to errors that are not problems
// with the request: they carry no detail.
func TestMiddlewareErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		v      func(*Verifier)
		r      *http.Request
		status int
		retry  string // Retry-After
	}{
		{"store full", func(v *Verifier) { v.Nonces = failingStore{errNonceStoreFull} }, nil, 503, retryAfter},
		{"store down", func(v *Verifier) {
			v.Nonces = failingStore{fmt.Errorf("%w: redis: connection refused", ErrStoreUnavailable)}
		}, nil, 503, retryAfter},
		{"store broken", func(v *Verifier) { v.Nonces = failingStore{errors.New("redis: unexpected reply")} }, nil, 500, ""},
		{"database broken", func(v *Verifier) { v.Store = failingCredentials{} }, nil, 500, ""},
		{"database down", func(v *Verifier) {
			v.Store = failingCredentials{fmt.Errorf("%w: dial tcp: connection refused", ErrStoreUnavailable)}
		}, nil, 503, retryAfter},
		{"body too large", func(v *Verifier) { v.MaxBodyBytes = 10 }, signed(t, xConfig(), "POST", "https://api.example.com/r", "application/x-www-form-urlencoded", "a=1&b=2&c=3&d=4", "e4"), 413, ""},
	} {
		v := xVerifier()
		tt.v(v)
		r := tt.r
		if r == nil {
			r = signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", tt.name)
		}
		rec := httptest.NewRecorder()
		v.Middleware(http.NotFoundHandler()).ServeHTTP(rec, r)
		if rec.Code != tt.status || strings.Contains(rec.Body.String(), "refused") || strings.Contains(rec.Body.String(), "down") {
			t.Errorf("%s: %d %q, want %d and no detail", tt.name, rec.Code, rec.Body, tt.status)
		}
		if got := rec.Header().Get("Retry-After"); got != tt.retry {
			t.Errorf("%s: Retry-After = %q, want %q", tt.name, got, tt.retry)
		}
	}
}

// TestVerifyNonceStoreDown checks that a nonce store that fails refuses the
// request, even a correctly signed one, with an error that wraps the
// store's own error, ErrStoreUnavailable included.
func TestVerifyNonceStoreDown(t *testing.T) {
	down := fmt.Errorf("%w: redis: connection refused", ErrStoreUnavailable)
	for _, storeErr := range []error{down, fmt.Errorf("shared store: %w: %w", ErrStoreUnavailable, context.DeadlineExceeded), errNonceStoreFull, errors.New("broken")} {
		v := xVerifier()
		v.Nonces = failingStore{storeErr}
		got, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "down"))
		if got != nil || !errors.Is(err, storeErr) || errors.Is(storeErr, ErrStoreUnavailable) != errors.Is(err, ErrStoreUnavailable) {
			t.Errorf("Verify with a store failing with %q = %+v, %v; want nil and an error wrapping the store's", storeErr, got, err)
		}
		var pe *ProblemError
		if errors.As(err, &pe) {
			t.Errorf("Verify with a store failing with %q: a *ProblemError (%v), want an error the client is not blamed for", storeErr, pe)
		}
	}
}

// TestVerifyReceivedForms covers request targets and parameter placements
// that clients produce but the signer test above does not.
func TestVerifyReceivedForms(t *testing.T) {
	// The request line in absolute form, as sent to a proxy.
	r := signed(t, xConfig(), "GET", "https://api.example.com/a%2Fb?q=1", "", "", "abs")
	r.RequestURI = "https://api.example.com/a%2Fb?q=1"
	if _, err := xVerifier().Verify(r); err != nil {
		t.Errorf("absolute-form request target: %v", err)
	}

	// Protocol parameters in the query with encoded names, which decode
	// like any other query parameter.
	c := xConfig()
	c.Delivery = oauth1.QueryString
	r = signed(t, c, "GET", "https://api.example.com/r", "", "", "enc")
	r.URL.RawQuery = strings.ReplaceAll(r.URL.RawQuery, "oauth_nonce", "oauth%5Fnonce")
	r.RequestURI = r.URL.RequestURI()
	if got, err := xVerifier().Verify(r); err != nil || param(got.Params, "oauth_nonce") != "enc" {
		t.Errorf("encoded parameter name in the query: %+v, %v", got, err)
	}

	// The signature under an encoded name, in the query and in a form
	// body: left out of the base string as the plain name is.
	for _, d := range []oauth1.Delivery{oauth1.QueryString, oauth1.FormBody} {
		c = xConfig()
		c.Delivery = d
		r = signed(t, c, "POST", "https://api.example.com/r", "application/x-www-form-urlencoded", "a=1", "encsig")
		if d == oauth1.QueryString {
			r.URL.RawQuery = strings.ReplaceAll(r.URL.RawQuery, "oauth_signature=", "oauth%5Fsignature=")
			r.RequestURI = r.URL.RequestURI()
		} else {
			b, _ := io.ReadAll(r.Body)
			wire.SetBody(r, []byte(strings.ReplaceAll(string(b), "oauth_signature=", "%6Fauth_signature=")))
			r.GetBody = nil
		}
		if _, err := xVerifier().Verify(r); err != nil {
			t.Errorf("%v delivery, oauth_signature with an encoded name: %v", d, err)
		}
	}

	// A second signature beside the header's, under any spelling, is
	// refused, not dropped: the base string has no room for it.
	for _, q := range []string{"oauth_signature=x", "oauth%5Fsignature=x", "%6Fauth%5Fsignature=", "oauth%5Fsignature", "oauth%ZZsignature=x"} {
		r = signed(t, xConfig(), "GET", "https://api.example.com/r?a=1", "", "", "twosig")
		r.URL.RawQuery += "&" + q
		r.RequestURI = r.URL.RequestURI()
		if _, err := xVerifier().Verify(r); err == nil {
			t.Errorf("header signature and %q in the query: verified", q)
		}
	}

	// A JSON body covered by oauth_body_hash stays readable.
	c = xConfig()
	c.BodyHash = crypto.SHA256
	r = signed(t, c, "POST", "https://api.example.com/r", "application/json", `{"a":1}`, "json")
	v := xVerifier()
	v.BodyHash = crypto.SHA256
	if _, err := v.Verify(r); err != nil {
		t.Fatalf("JSON body with oauth_body_hash: %v", err)
	}
	if b, _ := io.ReadAll(r.Body); string(b) != `{"a":1}` {
		t.Errorf("body after Verify = %q", b)
	}
}

// TestVerifyExtraHeaderParams signs extra Authorization header parameters
// whose names and values need encoding: the provider must sign them exactly
// as the client did (RFC 5849 §3.4.1.3.1 takes every header parameter but
// realm), whichever delivery carries them.
func TestVerifyExtraHeaderParams(t *testing.T) {
	extra := []oauth1.Param{{Name: "oauth_callback", Value: "https://client.example/cb?a=1&b=x y"}, {Name: "xoauth_requestor id", Value: "ü/☃"}}
	for i, d := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString} {
		c := xConfig()
		c.Delivery = d
		r := signed(t, c, "GET", "https://api.example.com/r?q=1", "", "", fmt.Sprintf("extra%d", i), extra...)
		if _, err := xVerifier().Verify(r); err != nil {
			t.Errorf("%v delivery: Verify = %v", d, err)
		}
	}
}

func TestConsumerRedacted(t *testing.T) {
	c := Registration{Secret: "SECRET-consumer-77", PublicKey: &testRSAKey.PublicKey}
	for _, format := range []string{"%v", "%+v", "%s", "%#v"} {
		for _, v := range []any{c, &c, []Registration{c}} {
			if got := fmt.Sprintf(format, v); strings.Contains(got, "SECRET-consumer-77") {
				t.Errorf("Sprintf(%q, %T) = %s: contains the secret", format, v, got)
			}
		}
	}
	if got, want := fmt.Sprint(c), "{Secret:REDACTED PublicKey:RSA-2048}"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}

// A registered public key is the client's choice: one of 262,144 bits made
// every request with a bogus signature cost seconds of CPU. Keys over 8192
// bits are refused before any RSA operation, whatever the signature.
func TestVerifyRefusesHugeRegisteredKey(t *testing.T) {
	n := new(big.Int).Lsh(big.NewInt(1), 262144-1)
	n.SetBit(n, 0, 1)
	v := &Verifier{Store: Consumers{xConsumerKey: {PublicKey: &rsa.PublicKey{N: n, E: 65537}}}, Settings: Settings{Now: func() time.Time { return time.Unix(xTimestamp, 0) }}}
	c := xConfig()
	c.Signer = oauth1.RSA{Key: testRSAKey}
	r, _ := http.NewRequest("GET", "https://api.example.com/r", nil)
	if err := c.SignAt(r, nil, time.Unix(xTimestamp, 0), "huge-1"); err != nil {
		t.Fatal(err)
	}
	r = received(t, r)
	start := time.Now()
	pe := mustProblem(t, "262,144-bit key", v, r, oauth1.ProblemSignatureMethodRejected)
	if d := time.Since(start); d > 200*time.Millisecond {
		t.Errorf("refusing took %v", d)
	}
	if pe != nil && !strings.Contains(pe.Error(), "262144 bits") {
		t.Errorf("error %q does not name the key's size", pe.Error())
	}
}

// otherClientCredentials is xCredentials, but its token record names
// another client, as a store that ignores the consumer key it is given
// would return.
type otherClientCredentials struct{ *memCredentials }

func (o otherClientCredentials) TokenCredentials(ctx context.Context, key, token string, now time.Time) (TokenCredentials, error) {
	t, err := o.memCredentials.TokenCredentials(ctx, key, token, now)
	t.ConsumerKey = "another client"
	return t, err
}

// TestVerifyTokenOfAnotherClient checks that the Verifier itself refuses a
// token whose record names another client, whatever the store checked.
func TestVerifyTokenOfAnotherClient(t *testing.T) {
	v := xVerifier()
	v.Store = otherClientCredentials{xCredentials()}
	got, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "other client"))
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemTokenRejected {
		t.Errorf("Verify with the token of another client = %+v, %v; want token_rejected", got, err)
	}
}
