package oauth1_test

import (
	"context"
	"crypto"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
)

// Secrets that must never show up in an error message or printed value.
const (
	consumerSecret = "SECRET-consumer-4f1c"
	tokenSecret    = "SECRET-token-9a7e"
)

// The base string tests use a short, fixed protocol part so that each
// expected value can be written out by hand from the rules of RFC 5849
// §3.4.1; the oauth_* pairs below sort after every other test parameter.
const protoTail = "oauth_consumer_key%3Dck%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1"

var (
	testConfig = &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: consumerSecret, OmitVersion: true}
	testTime   = time.Unix(1, 0)
)

type baseTest struct {
	name        string
	method, url string
	contentType string
	body        string
	host        string // overrides r.Host when set
	want        string
}

var baseTests = []baseTest{
	{name: "method uppercased", method: "post", url: "http://example.com/r",
		want: "POST&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "custom method", method: "M-SEARCH", url: "http://example.com/r",
		want: "M-SEARCH&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "scheme and host lowercased", method: "GET", url: "HTTP://EXAMPLE.COM/R",
		want: "GET&http%3A%2F%2Fexample.com%2FR&" + protoTail},
	{name: "http default port dropped", method: "GET", url: "http://example.com:80/r",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "https default port dropped", method: "GET", url: "https://example.com:443/r",
		want: "GET&https%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "https port on http kept", method: "GET", url: "http://example.com:443/r",
		want: "GET&http%3A%2F%2Fexample.com%3A443%2Fr&" + protoTail},
	{name: "http port on https kept", method: "GET", url: "https://example.com:80/r",
		want: "GET&https%3A%2F%2Fexample.com%3A80%2Fr&" + protoTail},
	{name: "other port kept", method: "GET", url: "http://example.com:8080/r",
		want: "GET&http%3A%2F%2Fexample.com%3A8080%2Fr&" + protoTail},
	{name: "IPv6 default port", method: "GET", url: "http://[::1]:80/r",
		want: "GET&http%3A%2F%2F%5B%3A%3A1%5D%2Fr&" + protoTail},
	{name: "IPv6 other port", method: "GET", url: "http://[::1]:8080/r",
		want: "GET&http%3A%2F%2F%5B%3A%3A1%5D%3A8080%2Fr&" + protoTail},
	// net/http sends an IDN host in Punycode and an IPv6 address without
	// its zone; the provider signs what it received. xn--bcher-kva is
	// python3 -c 'print("bücher".encode("punycode"))'.
	{name: "IDN host in Punycode", method: "GET", url: "http://bücher.example/r",
		want: "GET&http%3A%2F%2Fxn--bcher-kva.example%2Fr&" + protoTail},
	{name: "IDN host with port", method: "GET", url: "https://Bücher.example:8443/r",
		want: "GET&https%3A%2F%2Fxn--bcher-kva.example%3A8443%2Fr&" + protoTail},
	{name: "IPv6 zone dropped", method: "GET", url: "http://[fe80::1%25en0]:8080/r",
		want: "GET&http%3A%2F%2F%5Bfe80%3A%3A1%5D%3A8080%2Fr&" + protoTail},
	{name: "empty port", method: "GET", url: "http://example.com:/r",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "escaped path stays escaped", method: "GET", url: "http://example.com/Space%20Craft",
		want: "GET&http%3A%2F%2Fexample.com%2FSpace%2520Craft&" + protoTail},
	{name: "escaped slash in path", method: "GET", url: "http://example.com/a%2Fb",
		want: "GET&http%3A%2F%2Fexample.com%2Fa%252Fb&" + protoTail},
	{name: "empty path", method: "GET", url: "http://example.com",
		want: "GET&http%3A%2F%2Fexample.com%2F&" + protoTail},
	{name: "fragment dropped", method: "GET", url: "http://example.com/r#frag",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "Host field wins", method: "GET", url: "http://10.0.0.1/r", host: "API.Example.com",
		want: "GET&http%3A%2F%2Fapi.example.com%2Fr&" + protoTail},
	// a=1;b=2 is one pair: name a, value "1;b=2" -> 1%3Bb%3D2 -> 1%253Bb%253D2.
	{name: "semicolon is not a separator", method: "GET", url: "http://example.com/r?a=1;b=2&c=3",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D1%253Bb%253D2%26c%3D3%26" + protoTail},
	{name: "duplicates kept and sorted by value", method: "GET", url: "http://example.com/r?b=2&a=3&a=1&a=",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D%26a%3D1%26a%3D3%26b%3D2%26" + protoTail},
	{name: "name without equals", method: "GET", url: "http://example.com/r?flag",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&flag%3D%26" + protoTail},
	{name: "empty pairs skipped", method: "GET", url: "http://example.com/r?&a=1&&",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D1%26" + protoTail},
	{name: "plus is a space in the query", method: "GET", url: "http://example.com/r?a=a+b%2Bc",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3Da%2520b%252Bc%26" + protoTail},
	{name: "lowercase escapes normalized", method: "GET", url: "http://example.com/r?a=%7e%2f",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D~%252F%26" + protoTail},
	{name: "UTF-8 value", method: "GET", url: "http://example.com/r?a=%E2%98%83",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D%25E2%2598%2583%26" + protoTail},
	// Upper case sorts before lower case, and "A" before "a1" (byte order).
	{name: "byte-order sort", method: "GET", url: "http://example.com/r?a1=x&B=y&A=z",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&A%3Dz%26B%3Dy%26a1%3Dx%26" + protoTail},
	{name: "form body signed", method: "POST", url: "http://example.com/r",
		contentType: "application/x-www-form-urlencoded", body: "b=2+3&a",
		want: "POST&http%3A%2F%2Fexample.com%2Fr&a%3D%26b%3D2%25203%26" + protoTail},
	{name: "form content type with charset, any case", method: "POST", url: "http://example.com/r",
		contentType: "Application/X-WWW-Form-URLEncoded; charset=UTF-8", body: "b=2",
		want: "POST&http%3A%2F%2Fexample.com%2Fr&b%3D2%26" + protoTail},
	{name: "JSON body not signed", method: "POST", url: "http://example.com/r",
		contentType: "application/json", body: `{"b":2}`,
		want: "POST&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "form-looking body without content type not signed", method: "POST", url: "http://example.com/r",
		body: "b=2",
		want: "POST&http%3A%2F%2Fexample.com%2Fr&" + protoTail},
	{name: "only the first = splits a pair", method: "GET", url: "http://example.com/r?a=b=c&=v",
		// "b=c" encodes to b%3Dc, the parameter string encodes that to b%253Dc;
		// the empty name sorts first.
		want: "GET&http%3A%2F%2Fexample.com%2Fr&%3Dv%26a%3Db%253Dc%26" + protoTail},
	{name: "escaped unreserved bytes decoded, raw reserved bytes encoded", method: "GET", url: "http://example.com/r?%41%2d=*&b=%C3%a9",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&A-%3D%252A%26b%3D%25C3%25A9%26" + protoTail},
	{name: "percent sorts below unreserved bytes", method: "GET", url: "http://example.com/r?a-=1&a+=2&a=3",
		// names a, "a " and a-: encoded a, a%20, a- in byte order.
		want: "GET&http%3A%2F%2Fexample.com%2Fr&a%3D3%26a%2520%3D2%26a-%3D1%26" + protoTail},
	{name: "realm and other oauth parameters in the query are signed", method: "GET",
		url:  "http://example.com/r?realm=x&oauth_callback=oob",
		want: "GET&http%3A%2F%2Fexample.com%2Fr&oauth_callback%3Doob%26" + protoTail + "%26realm%3Dx"},
}

func newRequest(t testing.TB, method, target, contentType, body string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func TestBaseString(t *testing.T) {
	for _, tt := range baseTests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRequest(t, tt.method, tt.url, tt.contentType, tt.body)
			if tt.host != "" {
				r.Host = tt.host
			}
			got, err := testConfig.BaseString(r, nil, testTime, "n")
			if err != nil {
				t.Fatalf("BaseString(%s %s) error: %v", tt.method, tt.url, err)
			}
			if got != tt.want {
				t.Errorf("BaseString(%s %s) =\n%s\nwant\n%s", tt.method, tt.url, got, tt.want)
			}
		})
	}
}

func TestBaseStringRealmNeverSigned(t *testing.T) {
	c := *testConfig
	c.Realm = "Photos"
	r := newRequest(t, "GET", "http://example.com/r", "", "")
	got, err := c.BaseString(r, nil, testTime, "n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "GET&http%3A%2F%2Fexample.com%2Fr&" + protoTail; got != want {
		t.Errorf("BaseString with Realm = %s, want %s", got, want)
	}
}

func TestBaseStringVersion(t *testing.T) {
	c := *testConfig
	c.OmitVersion = false
	r := newRequest(t, "GET", "http://example.com/r", "", "")
	got, err := c.BaseString(r, nil, testTime, "n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "GET&http%3A%2F%2Fexample.com%2Fr&" + protoTail + "%26oauth_version%3D1.0"; got != want {
		t.Errorf("BaseString = %s, want %s", got, want)
	}
}

func TestBaseStringLeavesBodyReadable(t *testing.T) {
	const body = "a=1&b=2"
	// With GetBody (set by http.NewRequest for a strings.Reader) the
	// caller's Body is not touched at all.
	r := newRequest(t, "POST", "http://example.com/r", "application/x-www-form-urlencoded", body)
	orig := r.Body
	if _, err := testConfig.BaseString(r, nil, testTime, "n"); err != nil {
		t.Fatal(err)
	}
	if r.Body != orig {
		t.Errorf("BaseString replaced a Body that had GetBody")
	}
	if b, _ := io.ReadAll(r.Body); string(b) != body {
		t.Errorf("Body after BaseString = %q, want %q", b, body)
	}

	// Without GetBody the body is read once and replaced by a copy.
	r = newRequest(t, "POST", "http://example.com/r", "application/x-www-form-urlencoded", "")
	r.Body = io.NopCloser(strings.NewReader(body))
	if _, err := testConfig.BaseString(r, nil, testTime, "n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r.Body); string(b) != body {
		t.Errorf("Body after BaseString = %q, want %q", b, body)
	}
	if r.GetBody == nil || r.ContentLength != int64(len(body)) {
		t.Errorf("GetBody = %v, ContentLength = %d, want a GetBody and %d", r.GetBody != nil, r.ContentLength, len(body))
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

type errorTest struct {
	name string
	cfg  *oauth1.Config
	req  func(t *testing.T) *http.Request
	want string // a substring of the error
}

// signOnly names the errors that only signing can find: BaseString never
// signs, so it succeeds.
var signOnly = map[string]bool{"RSA without key": true}

func errorTests() []errorTest {
	good := func(t *testing.T) *http.Request { return newRequest(t, "GET", "https://example.com/r", "", "") }
	cfg := func(edit func(c *oauth1.Config)) *oauth1.Config {
		c := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: consumerSecret}
		edit(c)
		return c
	}
	return []errorTest{
		{"nil config", nil, good, "nil Config"},
		{"nil request", testConfig, func(*testing.T) *http.Request { return nil }, "nil request"},
		{"nil URL", testConfig, func(*testing.T) *http.Request { return &http.Request{Method: "GET"} }, "no URL"},
		{"invalid method", testConfig, func(*testing.T) *http.Request {
			u, _ := url.Parse("https://example.com/r")
			return &http.Request{Method: "GET /", URL: u, Header: http.Header{}}
		}, `invalid method "GET /"`},
		{"missing consumer key", cfg(func(c *oauth1.Config) { c.ConsumerKey = "" }), good, "missing consumer key"},
		{"relative URL", testConfig, func(*testing.T) *http.Request {
			return &http.Request{Method: "GET", URL: &url.URL{Path: "/r"}, Header: http.Header{}}
		}, "not absolute"},
		{"unsupported HMAC hash", cfg(func(c *oauth1.Config) { c.Signer = oauth1.HMAC{Hash: crypto.MD5} }), good, "unsupported hash MD5"},
		{"unknown hash value", cfg(func(c *oauth1.Config) { c.Signer = oauth1.HMAC{Hash: 99} }), good, "unsupported hash crypto.Hash(99)"},
		{"RSA without key", cfg(func(c *oauth1.Config) { c.Signer = oauth1.RSA{} }), good, "no private key"},
		{"malformed query escape", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "https://example.com/r?a=1&b=%zz", "", "")
		}, `malformed query: percent: invalid escape "%zz" at offset 6`},
		{"malformed body escape", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "a=%4")
		}, `malformed body: percent: invalid escape "%4" at offset 2`},
		{"oauth_signature already present", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "https://example.com/r?oauth_signature=x", "", "")
		}, "already carries an oauth_signature"},
		{"protocol parameter already present", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "https://example.com/r?oauth_nonce=x", "", "")
		}, "already carries protocol parameter oauth_nonce"},
		{"protocol parameter escaped in the body", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "a=1&%6Fauth%5Fnonce=x")
		}, "already carries protocol parameter oauth_nonce"},
		{"protocol parameter in a long query", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "https://example.com/r?pad="+strings.Repeat("x", 600)+"&oauth_nonce=x", "", "")
		}, "already carries protocol parameter oauth_nonce"},
		{"extra parameter already present", cfg(func(c *oauth1.Config) { c.Params = []oauth1.Param{{"xoauth_a", "1"}} }), func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "https://example.com/r?xoauth_a=2", "", "")
		}, "already carries protocol parameter xoauth_a"},
		{"body too large by length", cfg(func(c *oauth1.Config) { c.MaxBodyBytes = 4 }), func(t *testing.T) *http.Request {
			return newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "a=12345")
		}, "exceeds the size limit"},
		{"body too large while reading", cfg(func(c *oauth1.Config) { c.MaxBodyBytes = 4 }), func(t *testing.T) *http.Request {
			r := newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "")
			r.Body, r.ContentLength = io.NopCloser(strings.NewReader("a=12345")), -1
			return r
		}, "exceeds the size limit"},
		{"unreadable body", testConfig, func(t *testing.T) *http.Request {
			r := newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "")
			r.Body = io.NopCloser(failingReader{})
			return r
		}, "disk on fire"},
		{"malformed form content type", testConfig, func(t *testing.T) *http.Request {
			return newRequest(t, "POST", "https://example.com/r", "text/x-www-form-urlencoded/;;", "a=1")
		}, "malformed Content-Type"},
		{"PLAINTEXT over http", cfg(func(c *oauth1.Config) { c.Signer = oauth1.Plaintext{} }), func(t *testing.T) *http.Request {
			return newRequest(t, "GET", "http://example.com/r", "", "")
		}, "PLAINTEXT needs an https URL"},
		{"FormBody delivery of a JSON body", cfg(func(c *oauth1.Config) { c.Delivery = oauth1.FormBody }), func(t *testing.T) *http.Request {
			return newRequest(t, "POST", "https://example.com/r", "application/json", "{}")
		}, "FormBody delivery needs"},
		{"unsupported body hash", cfg(func(c *oauth1.Config) { c.BodyHash = crypto.MD5 }), good, "oauth_body_hash: unsupported hash MD5"},
	}
}

func TestSignErrors(t *testing.T) {
	tok := &oauth1.Credentials{Token: "tk", Secret: tokenSecret}
	for _, tt := range errorTests() {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.SignAt(tt.req(t), tok, testTime, "n")
			if err == nil {
				t.Fatalf("SignAt = nil error, want one containing %q", tt.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("SignAt error = %q, want it to contain %q", msg, tt.want)
			}
			if strings.Contains(msg, consumerSecret) || strings.Contains(msg, tokenSecret) {
				t.Errorf("SignAt error %q contains a secret", msg)
			}
			if _, err := tt.cfg.BaseString(tt.req(t), tok, testTime, "n"); err == nil && !signOnly[tt.name] {
				t.Errorf("BaseString = nil error, want one containing %q", tt.want)
			}
		})
	}
}

func TestSignErrorTypes(t *testing.T) {
	r := newRequest(t, "GET", "https://example.com/r?q=%G1", "", "")
	err := testConfig.SignAt(r, nil, testTime, "n")
	var e *percent.EscapeError
	if !errors.As(err, &e) || *e != (percent.EscapeError{Offset: 2, Escape: "%G1"}) {
		t.Errorf("SignAt error = %#v, want *percent.EscapeError{Offset: 2, Escape: %%G1}", err)
	}
	c := *testConfig
	c.MaxBodyBytes = 1
	r = newRequest(t, "POST", "https://example.com/r", "application/x-www-form-urlencoded", "a=1")
	if err := c.SignAt(r, nil, testTime, "n"); !errors.Is(err, oauth1.ErrBodyTooLarge) {
		t.Errorf("SignAt error = %v, want ErrBodyTooLarge", err)
	}
}

func TestSignTimestampAndNonceRequired(t *testing.T) {
	r := newRequest(t, "GET", "https://example.com/r", "", "")
	if err := testConfig.SignAt(r, nil, time.Time{}, "n"); err == nil {
		t.Error("SignAt with a zero time = nil error")
	}
	if err := testConfig.SignAt(r, nil, testTime, ""); err == nil {
		t.Error("SignAt with an empty nonce = nil error")
	}
}

func TestExtraParams(t *testing.T) {
	r := newRequest(t, "POST", "https://example.com/r", "", "")
	err := testConfig.SignAt(r, nil, testTime, "n", oauth1.Param{Name: "oauth_verifier", Value: "v"}, oauth1.Param{Name: "oauth_verifier", Value: "w"})
	if err == nil || !strings.Contains(err.Error(), "oauth_verifier given twice") {
		t.Errorf("SignAt with a repeated extra parameter: error = %v", err)
	}
	for _, name := range []string{"realm", "oauth_signature", "oauth_nonce"} {
		if err := testConfig.SignAt(r, nil, testTime, "n", oauth1.Param{Name: name, Value: "x"}); err == nil {
			t.Errorf("SignAt with extra parameter %s = nil error", name)
		}
	}
}

func TestQueryDeliveryKeepsCallerURL(t *testing.T) {
	c := *testConfig
	c.Delivery = oauth1.QueryString
	u, _ := url.Parse("https://example.com/r?a=1")
	r := &http.Request{Method: "GET", URL: u, Header: http.Header{}}
	if err := c.SignAt(r, nil, testTime, "n"); err != nil {
		t.Fatal(err)
	}
	if u.RawQuery != "a=1" {
		t.Errorf("caller's URL changed to %s", u)
	}
	got, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(got))
	for k := range got {
		names = append(names, k)
	}
	slices.Sort(names)
	want := []string{"a", "oauth_consumer_key", "oauth_nonce", "oauth_signature", "oauth_signature_method", "oauth_timestamp"}
	if !slices.Equal(names, want) {
		t.Errorf("query names = %v, want %v", names, want)
	}
}

func TestFormBodyDeliveryWithoutBody(t *testing.T) {
	c := *testConfig
	c.Delivery = oauth1.FormBody
	r := newRequest(t, "POST", "https://example.com/r", "", "")
	if err := c.SignAt(r, nil, testTime, "n"); err != nil {
		t.Fatal(err)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		t.Errorf("Content-Type = %q", ct)
	}
	b, _ := io.ReadAll(r.Body)
	if !strings.HasPrefix(string(b), "oauth_consumer_key=ck&oauth_nonce=n&oauth_signature=") {
		t.Errorf("body = %q", b)
	}
}

// FuzzBaseString feeds arbitrary URLs, content types and bodies: BaseString
// must never panic, and every success must be a well-formed base string.
func FuzzBaseString(f *testing.F) {
	f.Add("POST", "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b", "application/x-www-form-urlencoded", "c2&a3=2+q")
	f.Add("GET", "HTTPS://[::1]:443/a%2Fb?x=1;y=2&&z", "", "")
	f.Add("put", "http://h:8080", "application/json", "{}")
	f.Add("GET", "http://h/?%zz", "", "")
	f.Fuzz(func(t *testing.T, method, target, contentType, body string) {
		u, err := url.Parse(target)
		if err != nil {
			return
		}
		r := &http.Request{Method: method, URL: u, Host: u.Host, Header: http.Header{"Content-Type": {contentType}}}
		if body != "" {
			r.Body = io.NopCloser(strings.NewReader(body))
		}
		base, err := testConfig.BaseString(r, nil, testTime, "n")
		if err != nil {
			return
		}
		parts := strings.Split(base, "&")
		if len(parts) != 3 {
			t.Fatalf("BaseString = %q: %d parts, want 3", base, len(parts))
		}
		for i, p := range parts {
			if percent.Encode(mustDecode(t, p)) != p {
				t.Fatalf("BaseString part %d = %q is not strictly encoded", i, p)
			}
		}
		if m := mustDecode(t, parts[0]); strings.ContainsAny(m, "abcdefghijklmnopqrstuvwxyz") {
			t.Fatalf("method %q is not uppercase", m)
		}
		pairs := strings.Split(mustDecode(t, parts[2]), "&")
		for i, p := range pairs {
			if strings.Count(p, "=") != 1 {
				t.Fatalf("parameter %q is not name=value", p)
			}
			if i > 0 && cmpPair(pairs[i-1], p) > 0 {
				t.Fatalf("parameters %q and %q are out of order", pairs[i-1], p)
			}
		}
		// The same parameters, built the plain way, when it is clear
		// whether the body is signed.
		form := u.RawQuery
		switch {
		case contentType == "application/x-www-form-urlencoded":
			form += "&" + body
		case strings.Contains(strings.ToLower(contentType), "form"):
			return
		}
		want := refParamString(t, form+"&oauth_consumer_key=ck&oauth_nonce=n&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1")
		if got := mustDecode(t, parts[2]); got != want {
			t.Fatalf("parameter string = %q, want %q", got, want)
		}
	})
}

func mustDecode(t *testing.T, s string) string {
	d, err := percent.Decode(s)
	if err != nil {
		t.Fatalf("Decode(%q): %v", s, err)
	}
	return d
}

func cmpPair(a, b string) int {
	an, av, _ := strings.Cut(a, "=")
	bn, bv, _ := strings.Cut(b, "=")
	if c := strings.Compare(an, bn); c != 0 {
		return c
	}
	return strings.Compare(av, bv)
}

var zeroTime time.Time

// The X API example, prepared once; signing it is the hot path.
func xRequest(t testing.TB) (*oauth1.Config, *oauth1.Credentials, *http.Request) {
	c := &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}
	tok := xToken
	r := newRequest(t, xVector.Get("method"), xVector.Get("url"), xVector.Get("content-type"), xVector.Get("body"))
	return c, &tok, r
}

// TestSignAllocs guards the allocation budget of the hot path: the header
// string and its []string in the Header map, and the two of net/http's
// GetBody (a strings.Reader and its NopCloser). Pooled state and the cached
// keyed HMAC cover everything else.
func TestSignAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c, tok, r := xRequest(t)
	ts, nonce := xTime(), xVector.Get("nonce")
	n := testing.AllocsPerRun(200, func() {
		if err := c.SignAt(r, tok, ts, nonce); err != nil {
			t.Fatal(err)
		}
	})
	if n > 4 {
		t.Errorf("SignAt(X example) allocs = %v, want at most 4", n)
	}
}

// TestTransportAllocs guards the Transport's budget for the X example over
// a base that allocates nothing: SignAt's four, the request's copy and its
// header map (three), and the nonce.
func TestTransportAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	c, tok, r := xRequest(t)
	tr := &oauth1.Transport{Config: c, Token: tok, Base: &staticResponse{}}
	n := testing.AllocsPerRun(200, func() {
		if _, err := tr.RoundTrip(r); err != nil {
			t.Fatal(err)
		}
	})
	if n > 8 {
		t.Errorf("Transport.RoundTrip(X example) allocs = %v, want at most 8", n)
	}
}

// staticResponse answers every request with the same response, allocating
// nothing.
type staticResponse struct{ resp http.Response }

func (s *staticResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	s.resp = http.Response{StatusCode: 200, Body: http.NoBody, Request: r}
	return &s.resp, nil
}

// TestVerifyAllocs guards the allocation budget of Verify for the X
// example: the Verification with its parameters, its base string, the
// reader of the body that GetBody returns, and the test's io.NopCloser.
func TestVerifyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	v := &server.Verifier{Store: acceptAll{}, Settings: server.Settings{Nonces: acceptNonces{}, Now: xTime}}
	body := xVector.Get("body")
	u, err := url.Parse(xVector.Get("url"))
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest(xVector.Get("method"), u.RequestURI(), nil)
	r.Host = u.Host
	r.TLS = &tls.ConnectionState{}
	r.Header.Set("Content-Type", xVector.Get("content-type"))
	r.Header.Set("Authorization", xVector.Header())
	rd := strings.NewReader(body)
	n := testing.AllocsPerRun(200, func() {
		rd.Reset(body)
		r.Body = io.NopCloser(rd)
		if _, err := v.Verify(r); err != nil {
			t.Fatal(err)
		}
	})
	if n > 4 {
		t.Errorf("Verify(X example) allocs = %v, want at most 4", n)
	}
}

// acceptNonces takes every nonce as new.
type acceptNonces struct{}

func (acceptNonces) Use(context.Context, server.Nonce, time.Time, time.Time) (bool, error) {
	return true, nil
}

// TestBaseStringLargeForms checks the sort paths that only large parameter
// sets take (radix passes on a few differing key bytes or on many, long
// runs of a repeated name, names that share their first eight bytes)
// against refBaseString, which builds the parameter string the plain way.
func TestBaseStringLargeForms(t *testing.T) {
	forms := map[string]func(i int) string{
		"names differ in three bytes": func(i int) string { return fmt.Sprintf("field%d=v%d", i%500, (i*7919)%1000) },
		"names differ in many bytes":  func(i int) string { return fmt.Sprintf("%x=%d", int(uint32(i)*2654435761%100000), i%3) },
		"one name":                    func(i int) string { return fmt.Sprintf("id=%d", (i*7919)%1000) },
		"long shared prefix":          func(i int) string { return fmt.Sprintf("parameter_%d=%d+x", i%40, i%7) },
		"escapes everywhere":          func(i int) string { return fmt.Sprintf("k%%%02X%d=%%%02x+%d", i%256, i%5, (i*31)%256, i%9) },
		// Names alike in their first seven bytes but not the eighth, with
		// values that sort the other way round.
		"eighth byte differs": func(i int) string { return fmt.Sprintf("abcdefg%c=%d", 'a'+i%3, 9-i%10) },
	}
	for name, pair := range forms {
		for _, n := range []int{5, 12, 30, 100, 300, 3000} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				pairs := make([]string, n)
				for i := range pairs {
					pairs[i] = pair(i)
				}
				body := strings.Join(pairs, "&")
				r := newRequest(t, "POST", "http://example.com/r?z=1", "application/x-www-form-urlencoded", body)
				got, err := testConfig.BaseString(r, nil, testTime, "n")
				if err != nil {
					t.Fatal(err)
				}
				want := refBaseString(t, "POST", "http://example.com/r", "z=1&"+body+"&oauth_consumer_key=ck&oauth_nonce=n&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1")
				if got != want {
					t.Errorf("BaseString differs from the reference; first difference at byte %d", firstDiff(got, want))
				}
			})
		}
	}
}

// refBaseString builds a base string the way RFC 5849 §3.4.1 spells it out:
// split on "&" and the first "=", decode, encode, sort the pairs, join,
// encode the whole.
func refBaseString(t *testing.T, method, uri, form string) string {
	t.Helper()
	return method + "&" + percent.Encode(uri) + "&" + percent.Encode(refParamString(t, form))
}

// refParamString is the normalized parameter string of §3.4.1.3.2 for the
// pairs of form.
func refParamString(t *testing.T, form string) string {
	t.Helper()
	type pair struct{ k, v string }
	var ps []pair
	for _, kv := range strings.Split(form, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		dk, err := percent.DecodeForm(k)
		if err != nil {
			t.Fatal(err)
		}
		dv, err := percent.DecodeForm(v)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, pair{percent.Encode(dk), percent.Encode(dv)})
	}
	slices.SortFunc(ps, func(a, b pair) int {
		if c := strings.Compare(a.k, b.k); c != 0 {
			return c
		}
		return strings.Compare(a.v, b.v)
	})
	var params []string
	for _, p := range ps {
		params = append(params, p.k+"="+p.v)
	}
	return strings.Join(params, "&")
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestHeaderMatchesQuery signs each request twice, for header and for
// query delivery, which write the protocol parameters by separate code,
// and checks the header against one written by hand from the parameters
// the query carries, in their order.
func TestHeaderMatchesQuery(t *testing.T) {
	ck := oauth1.Credentials{Token: "ck", Secret: consumerSecret}
	configs := map[string]oauth1.Config{
		"defaults":        {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret},
		"realm":           {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret, Realm: "Photos & more", OmitVersion: true},
		"escaped key":     {ConsumerKey: "c k+/=é", ConsumerSecret: consumerSecret},
		"body hash":       {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret, BodyHash: crypto.SHA256},
		"plaintext":       {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret, Signer: oauth1.Plaintext{}},
		"HMAC-SHA512":     {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret, Signer: oauth1.HMAC{Hash: crypto.SHA512}},
		"version omitted": {ConsumerKey: ck.Token, ConsumerSecret: ck.Secret, OmitVersion: true},
	}
	toks := []*oauth1.Credentials{nil, {Token: "t+k/=", Secret: tokenSecret}, {Token: "370773112-Gm", Secret: tokenSecret}}
	extras := [][]oauth1.Param{nil, {{Name: "oauth_callback", Value: "https://x.example/cb?a=1"}}, {{Name: "oauth_a", Value: "1"}, {Name: "oauth_zz", Value: "é"}}}
	for name, c := range configs {
		for _, tok := range toks {
			for _, extra := range extras {
				ts, nonce := testTime, "n+/ ="
				if name == "plaintext" {
					ts, nonce = time.Time{}, "" // no nonce and no timestamp
				}
				if err := checkHeaderMatchesQuery(t, c, tok, ts, nonce, extra); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	}
}

// FuzzHeaderMatchesQuery is TestHeaderMatchesQuery over arbitrary keys,
// tokens, nonces, realms and one extra parameter.
func FuzzHeaderMatchesQuery(f *testing.F) {
	f.Add("ck", "tok", "nonce", "", "", "", false)
	f.Add("c k+/=é", "t+k/=", "n+/ =", "Photos & more", "oauth_callback", "https://x.example/cb?a=1", true)
	f.Fuzz(func(t *testing.T, key, token, nonce, realm, extraName, extraValue string, omitVersion bool) {
		c := oauth1.Config{ConsumerKey: key, ConsumerSecret: consumerSecret, Realm: realm, OmitVersion: omitVersion}
		var extra []oauth1.Param
		if extraName != "" {
			extra = []oauth1.Param{{Name: extraName, Value: extraValue}}
		}
		// An error is fine (an empty key or nonce, a repeated name), as
		// long as both deliveries give it.
		checkHeaderMatchesQuery(t, c, &oauth1.Credentials{Token: token, Secret: tokenSecret}, testTime, nonce, extra)
	})
}

// checkHeaderMatchesQuery signs one request for header and one for query
// delivery with c and the arguments, and reports a difference with t. It
// returns the signing error, after checking that both deliveries gave one.
func checkHeaderMatchesQuery(t *testing.T, c oauth1.Config, tok *oauth1.Credentials, ts time.Time, nonce string, extra []oauth1.Param) error {
	t.Helper()
	hc, qc := c, c
	hc.Delivery, qc.Delivery = oauth1.AuthHeader, oauth1.QueryString
	hr := newRequest(t, "POST", "https://example.com/r?a=1", "text/plain", "body")
	qr := newRequest(t, "POST", "https://example.com/r?a=1", "text/plain", "body")
	herr := hc.SignAt(hr, tok, ts, nonce, extra...)
	qerr := qc.SignAt(qr, tok, ts, nonce, extra...)
	if (herr == nil) != (qerr == nil) {
		t.Fatalf("header delivery: %v; query delivery: %v", herr, qerr)
	}
	if herr != nil {
		return herr
	}
	var qp []oauth1.Param
	for _, kv := range strings.Split(qr.URL.RawQuery, "&")[1:] { // after a=1
		k, v, _ := strings.Cut(kv, "=")
		dk, err1 := percent.Decode(k)
		dv, err2 := percent.Decode(v)
		if err1 != nil || err2 != nil {
			t.Fatalf("query %q: %v %v", qr.URL.RawQuery, err1, err2)
		}
		qp = append(qp, oauth1.Param{Name: dk, Value: dv})
	}
	// The header written from the query's parameters, by hand.
	var fields []string
	if c.Realm != "" {
		// A quoted-string (RFC 5849 §3.5.1, RFC 2617 §1.2), not percent-encoded.
		fields = append(fields, `realm="`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(c.Realm)+`"`)
	}
	for _, p := range qp {
		fields = append(fields, percent.Encode(p.Name)+`="`+percent.Encode(p.Value)+`"`)
	}
	if got, want := hr.Header.Get("Authorization"), "OAuth "+strings.Join(fields, ", "); got != want {
		t.Errorf("token %v, extra %v:\nheader %s\nwant   %s", tok, extra, got, want)
	}
	return nil
}
