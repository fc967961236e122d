package oauth1test_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/oauth1/server"
)

var client = oauth1.Credentials{Token: "dpf43f3p2l4k3l03", Secret: "kd94hf93k423kf44"}

// TestFlow runs the three-legged flow and a signed call, on HTTP and on
// HTTPS, with the Config the Server returns.
func TestFlow(t *testing.T) {
	for _, tc := range []struct {
		scheme string
		start  func(key, secret string) *oauth1test.Server
	}{{"http", oauth1test.NewServer}, {"https", oauth1test.NewTLSServer}} {
		t.Run(tc.scheme, func(t *testing.T) { testFlow(t, tc.scheme, tc.start) })
	}
}

func testFlow(t *testing.T, scheme string, start func(key, secret string) *oauth1test.Server) {
	for _, callback := range []string{"", "oob", "https://client.example/cb?state=1"} {
		srv := start(client.Token, client.Secret)
		ctx := context.Background()
		cfg := srv.Config()
		cfg.Callback = callback
		if !strings.HasPrefix(srv.URL, scheme+"://127.0.0.1:") || !strings.HasPrefix(cfg.Endpoint.RequestTokenURL, srv.URL+"/") {
			t.Fatalf("URL %q, Endpoint %+v; want %s on loopback", srv.URL, cfg.Endpoint, scheme)
		}
		res, err := cfg.RequestToken(ctx)
		if err != nil {
			t.Fatalf("callback %q: RequestToken: %v", callback, err)
		}
		temp := res.Credentials
		verifier, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp))
		if err != nil || verifier == "" {
			t.Fatalf("callback %q: Authorize = %q, %v", callback, verifier, err)
		}
		res, err = cfg.AccessToken(ctx, temp, verifier)
		if err != nil {
			t.Fatalf("callback %q: AccessToken: %v", callback, err)
		}
		tok := res.Credentials
		if _, err := cfg.AccessToken(ctx, temp, verifier); err == nil {
			t.Errorf("callback %q: temporary credentials exchanged twice", callback)
		}
		// A wrong verifier uses temporary credentials up: one guess only.
		res, err = cfg.RequestToken(ctx)
		if err != nil {
			t.Fatalf("callback %q: RequestToken: %v", callback, err)
		}
		temp2 := res.Credentials
		verifier2, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp2))
		if err != nil {
			t.Fatalf("callback %q: Authorize: %v", callback, err)
		}
		var re *oauth1.ResponseError
		if _, err := cfg.AccessToken(ctx, temp2, "wrong"); !errors.As(err, &re) || re.Problem != oauth1.ProblemParameterRejected {
			t.Errorf("callback %q: AccessToken with a wrong verifier = %v, want parameter_rejected", callback, err)
		}
		if _, err := cfg.AccessToken(ctx, temp2, verifier2); !errors.As(err, &re) || re.Problem != oauth1.ProblemTokenUsed {
			t.Errorf("callback %q: AccessToken after a wrong verifier = %v, want token_used", callback, err)
		}
		resp, err := cfg.Client(tok).Post(srv.ResourceURL+"?a=1", "application/x-www-form-urlencoded", strings.NewReader("b=2+3"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf("consumer=%s token=%s method=HMAC-SHA1\nb=2+3", client.Token, tok.Token)
		if resp.StatusCode != 200 || string(body) != want {
			t.Errorf("callback %q: resource: %s %q, want 200 %q", callback, resp.Status, body, want)
		}
		recs := srv.Records()
		last := recs[len(recs)-1]
		// b=2+3 is form-encoded: the space is signed as %20, encoded again.
		if last.Err != nil || !strings.HasPrefix(last.BaseString, "POST&"+scheme+"%3A%2F%2F127.0.0.1%3A") ||
			!strings.Contains(last.BaseString, "&a%3D1%26b%3D2%25203%26oauth_consumer_key") {
			t.Errorf("callback %q: last record %+v", callback, last)
		}
		if srv.LastBaseString() != last.BaseString {
			t.Errorf("LastBaseString() = %q, want %q", srv.LastBaseString(), last.BaseString)
		}
		srv.Close()
	}
}

// TestRefusal checks that a refused request is recorded with the base
// string the Server computed, and that the client sees the problem.
func TestRefusal(t *testing.T) {
	srv := oauth1test.NewServer(client.Token, client.Secret)
	defer srv.Close()
	bad := &oauth1.Config{ConsumerKey: client.Token, ConsumerSecret: "wrong", Endpoint: srv.Endpoint}
	_, err := bad.RequestToken(context.Background())
	var re *oauth1.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 401 || re.Problem != "signature_invalid" {
		t.Fatalf("RequestToken with a wrong secret = %v, want a 401 signature_invalid", err)
	}
	recs := srv.Records()
	if len(recs) != 1 || recs[0].BaseString == "" || recs[0].Err == nil || recs[0].Path != oauth1test.RequestTokenPath {
		t.Fatalf("Records() = %+v", recs)
	}
	if strings.Contains(recs[0].Err.Error(), client.Secret) {
		t.Errorf("recorded error %q holds the secret", recs[0].Err)
	}

	// A token the Server did not issue is refused; a request without a
	// token, at the resource, lacks a parameter (RFC 5849 §3.2: 400).
	for _, tc := range []struct {
		tok  *oauth1.Credentials
		want int
	}{{&oauth1.Credentials{Token: "nope", Secret: "x"}, 401}, {nil, 400}} {
		tok := tc.tok
		req, _ := http.NewRequest("GET", srv.ResourceURL, nil)
		(&oauth1.Config{ConsumerKey: client.Token, ConsumerSecret: client.Secret}).Sign(req, tok)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("resource with token %v: %s, want %d", tok, resp.Status, tc.want)
		}
	}
}

func TestIssueTokenAndClock(t *testing.T) {
	srv := oauth1test.NewServer(client.Token, client.Secret)
	defer srv.Close()
	clock := oauth1test.NewClock(time.Unix(1318622958, 0))
	srv.Provider.Now = clock.Now
	nonce := oauth1test.SequentialNonces("n")
	tok := srv.IssueToken()
	cfg := &oauth1.Config{ConsumerKey: client.Token, ConsumerSecret: client.Secret, OmitVersion: true}
	send := func() int {
		req, _ := http.NewRequest("GET", srv.ResourceURL, nil)
		if err := cfg.SignAt(req, &tok, time.Unix(1318622958, 0), nonce()); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := send(); got != 200 {
		t.Errorf("request at the clock's time: %d, want 200", got)
	}
	want := "GET&" + strings.ReplaceAll(strings.ReplaceAll(srv.URL, ":", "%3A"), "/", "%2F") + "%2Fresource&oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3Dn-1%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D" + tok.Token
	if d := basestring.Format(basestring.Diff(want, srv.LastBaseString())); d != "" {
		t.Error(d)
	}
	clock.Advance(6 * time.Minute)
	if got := send(); got != 401 {
		t.Errorf("request 6 minutes late: %d, want 401", got)
	}
}

func TestSequentialNonces(t *testing.T) {
	next := oauth1test.SequentialNonces("x")
	if a, b := next(), next(); a != "x-1" || b != "x-2" {
		t.Errorf("SequentialNonces(\"x\") gave %q, %q, want x-1, x-2", a, b)
	}
}

// ExampleServer runs the three-legged flow against the fake provider and
// calls the protected resource.
func ExampleServer() {
	srv := oauth1test.NewServer("key", "secret")
	defer srv.Close()
	ctx := context.Background()
	cfg := srv.Config() // the client credentials, Endpoint and HTTPClient

	res, err := cfg.RequestToken(ctx)
	if err != nil {
		panic(err)
	}
	temp := res.Credentials
	pin, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp))
	if err != nil {
		panic(err)
	}
	res, err = cfg.AccessToken(ctx, temp, pin)
	if err != nil {
		panic(err)
	}
	tok := res.Credentials
	resp, err := cfg.Client(tok).Get(srv.ResourceURL)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status, len(srv.Records()), "requests verified")
	// Output: 200 OK 3 requests verified
}

func TestRSA(t *testing.T) {
	pemBytes, err := os.ReadFile("../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		t.Fatal(err)
	}
	key, err := rsakey.Parse(pemBytes, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := oauth1test.NewServer("jira-consumer", "")
	defer srv.Close()
	srv.PublicKey = &key.PublicKey
	tok := srv.IssueToken()
	cfg := &oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret, Signer: oauth1.RSA{Key: key}}
	c := cfg.Client(&tok)
	resp, err := c.Get(srv.ResourceURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "method=RSA-SHA1") {
		t.Errorf("RSA-SHA1 call: %s %q", resp.Status, body)
	}
	// The consumer has no shared secret, so HMAC is refused.
	resp, err = (&oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret}).Client(&tok).Get(srv.ResourceURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("HMAC call for an RSA consumer: %s, want 400", resp.Status)
	}
}

// TestHandle mounts a test's handler behind the Server's verification.
func TestHandle(t *testing.T) {
	srv := oauth1test.NewServer(client.Token, client.Secret)
	defer srv.Close()
	calls := 0
	srv.Handle("POST /mine", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		v, ok := server.FromContext(r.Context())
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%v token=%q %s", ok, v.Token, body)
	}))
	tok := srv.IssueToken()
	cfg := srv.Config()
	for _, tc := range []struct {
		tok  *oauth1.Credentials
		want string
	}{{&tok, `true token="` + tok.Token + `" x=1`}, {nil, `true token="" x=1`}} {
		resp, err := cfg.Client(tc.tok).Post(srv.URL+"/mine", "application/x-www-form-urlencoded", strings.NewReader("x=1"))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != tc.want {
			t.Errorf("signed with %v: %s %q, want 200 %q", tc.tok, resp.Status, body, tc.want)
		}
	}
	resp, err := srv.Client().Post(srv.URL+"/mine", "text/plain", strings.NewReader("unsigned"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	recs := srv.Records()
	if resp.StatusCode != 400 || calls != 2 || len(recs) != 3 || recs[0].Path != "/mine" || recs[0].Err != nil || recs[2].Err == nil {
		t.Errorf("unsigned: %s after %d calls; Records() = %+v", resp.Status, calls, recs)
	}
}

// TestTokenValues adds values to the access token answer through the
// Server's Provider.
func TestTokenValues(t *testing.T) {
	srv := oauth1test.NewServer(client.Token, client.Secret)
	defer srv.Close()
	srv.User = "12345"
	srv.Provider.TokenValues = func(_ context.Context, tok server.TokenCredentials) (url.Values, error) {
		return url.Values{"user_id": {tok.User}, "screen_name": {"jack"}}, nil
	}
	ctx := context.Background()
	cfg := srv.Config()
	res, err := cfg.RequestToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	temp := res.Credentials
	verifier, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.AccessToken(ctx, temp, verifier)
	if err != nil || tok.Values.Get("user_id") != "12345" || tok.Values.Get("screen_name") != "jack" {
		t.Fatalf("AccessToken = %+v, %v; want user_id 12345 and screen_name jack", tok, err)
	}
	if _, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp)); err == nil || !strings.Contains(err.Error(), "token_used") {
		t.Errorf("Authorize after the exchange: %v, want a token_used refusal", err)
	}
}

// TestRefusalCarriesBaseString checks that a signature_invalid refusal
// carries the base string the Server computed, at the token endpoints and
// the resource alike, where oauth1.CheckResponse finds it (the Server's
// Verifier has SendBaseString), and that a refusal before any base string
// carries none.
func TestRefusalCarriesBaseString(t *testing.T) {
	srv := oauth1test.NewServer(client.Token, client.Secret)
	defer srv.Close()
	bad := &oauth1.Config{ConsumerKey: client.Token, ConsumerSecret: "wrong"}
	for _, u := range []string{srv.Endpoint.RequestTokenURL, srv.Endpoint.AccessTokenURL, srv.ResourceURL} {
		req, _ := http.NewRequest("POST", u, nil)
		if err := bad.Sign(req, nil); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var re *oauth1.ResponseError
		if err := oauth1.CheckResponse(resp); !errors.As(err, &re) || re.StatusCode != 401 || re.Problem != oauth1.ProblemSignatureInvalid {
			t.Fatalf("%s: CheckResponse = %v; want a 401 signature_invalid ResponseError", u, err)
		}
		resp.Body.Close()
		b, err := basestring.Parse(re.BaseString)
		if err != nil || re.BaseString != srv.LastBaseString() || b.URI != u {
			t.Errorf("%s: base string %q (%v); want the recorded %q, of this URL", u, re.BaseString, err, srv.LastBaseString())
		}
	}
	resp, err := srv.Client().Get(srv.ResourceURL) // refused before any base string
	if err != nil {
		t.Fatal(err)
	}
	var re *oauth1.ResponseError
	if err := oauth1.CheckResponse(resp); !errors.As(err, &re) {
		t.Errorf("unsigned request: %v; want a ResponseError", err)
	} else if re.BaseString != "" {
		t.Errorf("unsigned request: base string %q; want none", re.BaseString)
	}
	resp.Body.Close()
}

// TestServerWrapsHTTPTest: the Server wraps its httptest.Server instead of
// embedding it, so httptest's Start and StartTLS, which panic on a started
// server, and its Config field (an *http.Server) are not part of it.
func TestServerWrapsHTTPTest(t *testing.T) {
	typ := reflect.TypeFor[*oauth1test.Server]()
	for _, name := range []string{"Start", "StartTLS", "EnableHTTP2", "CloseClientConnections"} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*oauth1test.Server has the method %s of httptest.Server", name)
		}
	}
	for _, name := range []string{"Server", "Listener", "TLS", "EnableHTTP2"} {
		if _, ok := typ.Elem().FieldByName(name); ok {
			t.Errorf("oauth1test.Server has the field %s of httptest.Server", name)
		}
	}
	if m, ok := typ.MethodByName("Config"); !ok || m.Type.Out(0) != reflect.TypeFor[*oauth1.Config]() {
		t.Errorf("Server.Config is %v, want a method returning *oauth1.Config", m.Type)
	}
}

// TestServerConfig: Config holds what a client of the Server needs, and a
// new Config at each call.
func TestServerConfig(t *testing.T) {
	srv := oauth1test.NewTLSServer("key", "secret")
	defer srv.Close()
	cfg := srv.Config()
	if cfg.ConsumerKey != "key" || cfg.ConsumerSecret != "secret" || cfg.Endpoint != srv.Endpoint || cfg.HTTPClient != srv.Client() || cfg.Callback != "" {
		t.Errorf("Config() = %+v", cfg)
	}
	if srv.Config() == cfg {
		t.Error("Config() returned the same *Config twice")
	}
}

// TestTLSServer: the HTTPS Server is trusted only by its own client, and
// Close may be called twice.
func TestTLSServer(t *testing.T) {
	srv := oauth1test.NewTLSServer("key", "secret")
	tok := srv.IssueToken()
	cfg := srv.Config()
	cfg.HTTPClient = &http.Client{} // the default roots: the test certificate is not among them
	_, err := cfg.Client(&tok).Get(srv.ResourceURL)
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Errorf("a client without the test certificate: %v, want x509.UnknownAuthorityError", err)
	}
	resp, err := srv.Config().Client(&tok).Get(srv.ResourceURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Errorf("signed call over TLS: %s, TLS %v; want 200 over TLS", resp.Status, resp.TLS != nil)
	}
	srv.Close()
	srv.Close()
	if _, err := srv.Client().Get(srv.ResourceURL); err == nil {
		t.Error("the Server answers after Close")
	}
}
