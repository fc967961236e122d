package oauth1_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// The X API documentation's example ("Creating a signature"), from
// testdata/vectors/x-update-1.1.txt, and its credentials.
var (
	xVector   = vectors.MustLoad("x-update-1.1")
	xConsumer = oauth1.Credentials{Token: xVector.Get("consumer-key"), Secret: xVector.Get("consumer-secret")}
	xToken    = oauth1.Credentials{Token: xVector.Get("token"), Secret: xVector.Get("token-secret")}
)

// xTime is the example's timestamp.
func xTime() time.Time {
	ts, err := strconv.ParseInt(xVector.Get("timestamp"), 10, 64)
	if err != nil {
		panic(err)
	}
	return time.Unix(ts, 0)
}

// parseOAuthHeader splits an Authorization header of the form this package
// writes: OAuth k="v", k="v" with percent-encoded values.
func parseOAuthHeader(h string) (map[string]string, error) {
	rest, ok := strings.CutPrefix(h, "OAuth ")
	if !ok {
		return nil, fmt.Errorf("not an OAuth header: %q", h)
	}
	m := make(map[string]string)
	for _, kv := range strings.Split(rest, ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, fmt.Errorf("malformed auth-param %q", kv)
		}
		dv, err := percent.Decode(v[1 : len(v)-1])
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("duplicate auth-param %q", k)
		}
		m[k] = dv
	}
	return m, nil
}

// checkHMAC is what a provider does with an HMAC-SHA1 request: it
// rebuilds the request from what arrived (method, Host, request target,
// Content-Type, body), computes its base string with the parameters of the
// Authorization header and computes the HMAC itself. It returns the
// protocol parameters.
func checkHMAC(r *http.Request, body []byte, consumer oauth1.Credentials, tokenSecret string) (map[string]string, error) {
	p, err := parseOAuthHeader(r.Header.Get("Authorization"))
	if err != nil {
		return nil, err
	}
	if p["oauth_consumer_key"] != consumer.Token {
		return p, fmt.Errorf("oauth_consumer_key = %q", p["oauth_consumer_key"])
	}
	if p["oauth_signature_method"] != "HMAC-SHA1" {
		return p, fmt.Errorf("oauth_signature_method = %q", p["oauth_signature_method"])
	}
	ts, err := strconv.ParseInt(p["oauth_timestamp"], 10, 64)
	if err != nil {
		return p, fmt.Errorf("oauth_timestamp: %v", err)
	}
	if d := time.Since(time.Unix(ts, 0)); d < -time.Minute || d > time.Minute {
		return p, fmt.Errorf("oauth_timestamp %d is %v off", ts, d)
	}
	rebuilt, err := http.NewRequest(r.Method, "http://"+r.Host+r.RequestURI, bytes.NewReader(body))
	if err != nil {
		return p, err
	}
	rebuilt.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	cfg := &oauth1.Config{ConsumerKey: consumer.Token, ConsumerSecret: consumer.Secret, OmitVersion: p["oauth_version"] == ""}
	var tok *oauth1.Credentials
	if p["oauth_token"] != "" {
		tok = &oauth1.Credentials{Token: p["oauth_token"]}
	}
	var extra []oauth1.Param
	for _, k := range []string{"oauth_callback", "oauth_verifier", "oauth_body_hash"} {
		if v, ok := p[k]; ok {
			extra = append(extra, oauth1.Param{Name: k, Value: v})
		}
	}
	base, err := cfg.BaseString(rebuilt, tok, time.Unix(ts, 0), p["oauth_nonce"], extra...)
	if err != nil {
		return p, err
	}
	mac := hmac.New(sha1.New, []byte(percent.Encode(consumer.Secret)+"&"+percent.Encode(tokenSecret)))
	mac.Write([]byte(base))
	want := mac.Sum(nil)
	got, err := base64.StdEncoding.DecodeString(p["oauth_signature"])
	if err != nil {
		return p, fmt.Errorf("oauth_signature: %v", err)
	}
	if !hmac.Equal(got, want) {
		return p, fmt.Errorf("signature mismatch over base string %q", base)
	}
	return p, nil
}

// countingBody counts its Close calls.
type countingBody struct {
	io.Reader
	closes atomic.Int32
}

func (b *countingBody) Close() error { b.closes.Add(1); return nil }

// waitClosed waits for exactly one Close: net/http may close a body it
// sent from its write loop, after RoundTrip returned.
func waitClosed(t *testing.T, b *countingBody) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for b.closes.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond)
	if n := b.closes.Load(); n != 1 {
		t.Errorf("body closed %d times, want 1", n)
	}
}

// signedServer answers 200 "ok" to requests that carry a valid signature
// by xConsumer and xToken, and 401 with the reason otherwise. It records
// the bodies it received.
type signedServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	nonces []string
}

func newSignedServer(t *testing.T) *signedServer {
	s := &signedServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p, err := checkHMAC(r, body, xConsumer, xToken.Secret)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		s.nonces = append(s.nonces, p["oauth_nonce"])
		s.mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

func TestTransportSignsRequests(t *testing.T) {
	srv := newSignedServer(t)
	form := xVector.Get("body") + "&b=x+y"
	tests := []struct {
		name, method, path, ctype, body string
		getBody                         bool // NewRequest sets GetBody for a strings.Reader
	}{
		{"GET", "GET", "/1.1/statuses/home_timeline.json?count=2&a=%20b", "", "", false},
		{"form, streamed", "POST", "/1.1/statuses/update.json?include_entities=true", "application/x-www-form-urlencoded", form, false},
		{"form, GetBody", "POST", "/1.1/statuses/update.json?include_entities=true", "application/x-www-form-urlencoded", form, true},
		{"form with charset", "PUT", "/x", "Application/X-WWW-Form-Urlencoded; charset=utf-8", form, false},
		{"JSON, streamed", "POST", "/2/tweets", "application/json", `{"text":"a=b&c"}`, false},
		{"JSON, GetBody", "POST", "/2/tweets", "application/json", `{"text":"a=b&c"}`, true},
	}
	client := (&oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}).Client(&xToken)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			var counted *countingBody
			switch {
			case tt.body == "":
			case tt.getBody:
				body = strings.NewReader(tt.body)
			default:
				counted = &countingBody{Reader: strings.NewReader(tt.body)}
				body = counted
			}
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			wantURL, wantHeader := req.URL.String(), req.Header.Clone()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("server: %d %s", resp.StatusCode, got)
			}
			srv.mu.Lock()
			gotBody := srv.bodies[len(srv.bodies)-1]
			srv.mu.Unlock()
			if gotBody != tt.body {
				t.Errorf("server got body %q, want %q", gotBody, tt.body)
			}
			if counted != nil {
				waitClosed(t, counted)
			}
			// The caller's request is as it was.
			if req.URL.String() != wantURL {
				t.Errorf("req.URL = %q after RoundTrip, want %q", req.URL, wantURL)
			}
			if req.Header.Get("Authorization") != "" || len(req.Header) != len(wantHeader) {
				t.Errorf("req.Header = %v after RoundTrip, want %v", req.Header, wantHeader)
			}
			if tt.getBody {
				rc, err := req.GetBody()
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(rc)
				if string(b) != tt.body {
					t.Errorf("req.GetBody() reads %q after RoundTrip, want %q", b, tt.body)
				}
			}
		})
	}
}

// A 307 redirect replays the body, a 302 turns the request into a GET; both
// are signed again, with a new nonce, when they go to a host that
// RedirectHosts lists (TestTransportRedirects covers the hosts it doesn't).
func TestTransportRedirectIsResigned(t *testing.T) {
	srv := newSignedServer(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/307", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, srv.URL+"/end?via=307", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/302", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, srv.URL+"/end?via=302", http.StatusFound)
	})
	var first sync.Map // path -> nonce of the first hop
	redir := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := parseOAuthHeader(r.Header.Get("Authorization"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		first.Store(r.URL.Path, p["oauth_nonce"])
		mux.ServeHTTP(w, r)
	}))
	defer redir.Close()

	client := &http.Client{Transport: &oauth1.Transport{
		Config:        &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret},
		Token:         &xToken,
		RedirectHosts: []string{strings.TrimPrefix(srv.URL, "http://")},
	}}
	for _, tt := range []struct {
		path, wantBody string
	}{
		{"/307", "a=1&b=2"},
		{"/302", ""},
	} {
		req, _ := http.NewRequest("POST", redir.URL+tt.path, strings.NewReader("a=1&b=2"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d %s", tt.path, resp.StatusCode, got)
		}
		srv.mu.Lock()
		body, nonce := srv.bodies[len(srv.bodies)-1], srv.nonces[len(srv.nonces)-1]
		srv.mu.Unlock()
		if body != tt.wantBody {
			t.Errorf("POST %s: redirected body = %q, want %q", tt.path, body, tt.wantBody)
		}
		n1, _ := first.Load(tt.path)
		if n1 == nonce || nonce == "" {
			t.Errorf("POST %s: redirect signed with nonce %q, first request with %q", tt.path, nonce, n1)
		}
	}
}

func TestTransportConcurrentNonces(t *testing.T) {
	srv := newSignedServer(t)
	client := (&oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}).Client(&xToken)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", srv.URL+"/c?i="+strconv.Itoa(i), strings.NewReader("n="+strconv.Itoa(i)))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := client.Do(req)
			if err != nil {
				errs <- err
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs <- fmt.Errorf("%d %s", resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := make(map[string]bool)
	for _, nonce := range srv.nonces {
		if seen[nonce] {
			t.Errorf("nonce %q used twice", nonce)
		}
		seen[nonce] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct nonces, want %d", len(seen), n)
	}
}

// roundTripFunc is an http.RoundTripper that closes the body it is given,
// as the contract requires, and fails.
type failingBase struct{ calls atomic.Int32 }

func (f *failingBase) RoundTrip(r *http.Request) (*http.Response, error) {
	f.calls.Add(1)
	if r.Body != nil {
		r.Body.Close()
	}
	return nil, errors.New("base failed")
}

func TestTransportClosesBodyOnErrors(t *testing.T) {
	form := "application/x-www-form-urlencoded"
	// A loopback address nobody listens on: the real transport fails.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String() + "/"
	ln.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name      string
		tr        *oauth1.Transport
		url       string
		ctype     string
		body      string
		ctx       context.Context
		wantErrIs error
	}{
		{"nil Config", &oauth1.Transport{Token: &xToken}, "http://example.com/", form, "a=1", nil, nil},
		{"bad query escape", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}}, "http://example.com/?a=%zz", "", "x", nil, nil},
		{"bad body escape", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}, Base: &failingBase{}}, "http://example.com/", form, "a=%zz", nil, nil},
		{"form body too large", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, MaxBodyBytes: 8}}, "http://example.com/", form, "a=123456789", nil, oauth1.ErrBodyTooLarge},
		{"body hash, too large", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, MaxBodyBytes: 8, BodyHash: crypto.SHA256}}, "http://example.com/", "application/json", `{"a":123456789}`, nil, oauth1.ErrBodyTooLarge},
		{"canceled context", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}}, "http://example.com/", form, "a=1", canceled, context.Canceled},
		{"base fails, streamed", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}, Base: &failingBase{}}, "http://example.com/", "application/json", "{}", nil, nil},
		{"base fails, buffered", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}, Base: &failingBase{}}, "http://example.com/", form, "a=1", nil, nil},
		{"connection refused, streamed", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}}, deadURL, "application/json", "{}", nil, nil},
		{"connection refused, buffered", &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}}, deadURL, form, "a=1", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &countingBody{Reader: strings.NewReader(tt.body)}
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			req, err := http.NewRequestWithContext(ctx, "POST", tt.url, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tt.ctype)
			resp, err := tt.tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("RoundTrip succeeded, want an error")
			}
			t.Logf("RoundTrip error: %v", err)
			if tt.wantErrIs != nil && !errors.Is(err, tt.wantErrIs) {
				t.Errorf("RoundTrip error = %v, want errors.Is %v", err, tt.wantErrIs)
			}
			if strings.Contains(err.Error(), xConsumer.Secret) || strings.Contains(err.Error(), xToken.Secret) {
				t.Errorf("error %q reveals a secret", err)
			}
			waitClosed(t, body)
			if req.Header.Get("Authorization") != "" {
				t.Error("the caller's request was signed")
			}
		})
	}
}

// With a known Content-Length above the limit, nothing is read at all.
func TestTransportContentLengthLimit(t *testing.T) {
	body := &countingBody{Reader: strings.NewReader("a=123456789")}
	req, _ := http.NewRequest("POST", "http://example.com/", body)
	req.ContentLength = 11
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	tr := &oauth1.Transport{Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, MaxBodyBytes: 10}, Base: &failingBase{}}
	if _, err := tr.RoundTrip(req); !errors.Is(err, oauth1.ErrBodyTooLarge) {
		t.Fatalf("RoundTrip error = %v, want ErrBodyTooLarge", err)
	}
	if n := body.Reader.(*strings.Reader).Len(); n != 11 {
		t.Errorf("%d bytes left unread, want 11", n)
	}
	waitClosed(t, body)
}

// recordingTransport remembers that it was used.
type recordingTransport struct {
	used atomic.Bool
	base http.RoundTripper
}

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.used.Store(true)
	return r.base.RoundTrip(req)
}

func TestClientKeepsHTTPClientSettings(t *testing.T) {
	srv := newSignedServer(t)
	rec := &recordingTransport{base: http.DefaultTransport}
	base := &http.Client{Transport: rec, Timeout: 7 * time.Second}
	cfg := &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, HTTPClient: base}
	client := cfg.Client(&xToken)
	if client.Timeout != 7*time.Second {
		t.Errorf("Client().Timeout = %v, want 7s", client.Timeout)
	}
	if base.Transport != rec || cfg.HTTPClient != base {
		t.Error("Client modified Config.HTTPClient")
	}
	resp, err := client.Get(srv.URL + "/me")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !rec.used.Load() {
		t.Errorf("status %d, base transport used: %v; want 200, true", resp.StatusCode, rec.used.Load())
	}
	if c := (&oauth1.Config{}).Client(nil); c.Transport.(*oauth1.Transport).Base != nil || c.Timeout != 0 {
		t.Errorf("Client without HTTPClient = %+v, want a zero client around a Transport with a nil Base", c)
	}
}

// Bodies that are not signed stream through: a limit far below their size
// does not matter.
func TestTransportStreamsUnsignedBodies(t *testing.T) {
	srv := newSignedServer(t)
	json := `{"text":"` + strings.Repeat("a", 1000) + `"}`
	body := &countingBody{Reader: strings.NewReader(json)}
	req, _ := http.NewRequest("POST", srv.URL+"/2/tweets", body)
	req.Header.Set("Content-Type", "application/json")
	client := (&oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, MaxBodyBytes: 8}).Client(&xToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	if got := srv.bodies[len(srv.bodies)-1]; got != json {
		t.Errorf("server got a %d-byte body, want the %d bytes sent", len(got), len(json))
	}
	waitClosed(t, body)
}

// With BodyHash, a JSON body is read (bounded), hashed and still sent
// intact; the server checks oauth_body_hash against what it received.
func TestTransportBodyHash(t *testing.T) {
	const json = `{"amount":"10.00","currency":"EUR"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p, err := checkHMAC(r, body, xConsumer, "")
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		sum := sha256.Sum256(body)
		if want := base64.StdEncoding.EncodeToString(sum[:]); p["oauth_body_hash"] != want || string(body) != json {
			http.Error(w, fmt.Sprintf("oauth_body_hash %q over body %q, want %q", p["oauth_body_hash"], body, want), http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	client := (&oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, BodyHash: crypto.SHA256}).Client(nil)
	for _, getBody := range []bool{false, true} {
		var body io.Reader = strings.NewReader(json)
		var counted *countingBody
		if !getBody {
			counted = &countingBody{Reader: body}
			body = counted
		}
		req, _ := http.NewRequest("POST", srv.URL+"/pay", body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GetBody %v: %d %s", getBody, resp.StatusCode, msg)
		}
		if counted != nil {
			waitClosed(t, counted)
		}
	}
}

// FormBody delivery replaces the body with one that carries the protocol
// parameters; the caller's body is still closed exactly once.
func TestTransportFormBodyDelivery(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
	}))
	defer srv.Close()
	client := (&oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret, Delivery: oauth1.FormBody}).Client(&xToken)
	for _, getBody := range []bool{false, true} {
		var body io.Reader = strings.NewReader("a=1")
		var counted *countingBody
		if !getBody {
			counted = &countingBody{Reader: body}
			body = counted
		}
		req, _ := http.NewRequest("POST", srv.URL+"/form", body)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		b := got.Load().(string)
		if !strings.HasPrefix(b, "a=1&oauth_consumer_key=") || !strings.Contains(b, "&oauth_signature=") {
			t.Errorf("GetBody %v: server got body %q", getBody, b)
		}
		if counted != nil {
			waitClosed(t, counted)
		}
	}
}

// TestTransportSignsWireHost sends requests whose URL host net/http
// rewrites on the wire (an IDN host goes in Punycode, an IPv6 zone is
// dropped) to a server that checks the signature against the Host it
// received. The dialer reaches the test server whatever the host.
func TestTransportSignsWireHost(t *testing.T) {
	srv := newSignedServer(t)
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	client := &http.Client{Transport: &oauth1.Transport{
		Config: &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret},
		Token:  &xToken,
		Base:   &http.Transport{DialContext: dial},
	}}
	for _, url := range []string{
		"http://bücher.example/1.1/statuses/home_timeline.json?count=2",
		"http://MÜNCHEN.bücher.example:8080/x",
		"http://[fe80::1%25en0]:8080/x",
	} {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: server: %d %s", url, resp.StatusCode, got)
		}
	}
}
