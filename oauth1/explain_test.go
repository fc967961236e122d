package oauth1_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

const (
	sbConsumerSecret = "sandbox consumer secret"
	sbTokenSecret    = "sandbox token secret"
)

// A sandbox is a Provider that sends its base string back, behind a
// proxy that can change requests on their way, as the proxies of the
// causes below do.
type sandbox struct {
	front *httptest.Server
	mu    sync.Mutex
	base  string // the base string of the last refusal, as Observe saw it
}

// newSandbox starts a Provider with SendBaseString and, in front of it, a
// reverse proxy that passes the Host header on and calls rewrite on each
// request; with tlsFront, the proxy terminates TLS and the Provider, which
// has no Scheme set, sees plain http.
func newSandbox(t *testing.T, tlsFront bool, rewrite func(*httputil.ProxyRequest)) *sandbox {
	t.Helper()
	tokens := new(server.MemoryTokenStore)
	if err := tokens.PutToken(context.Background(), server.TokenCredentials{Token: "sb-token", Secret: sbTokenSecret, ConsumerKey: "sb-key"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	sb := new(sandbox)
	p := &server.Provider{
		Consumers: server.Consumers{"sb-key": {Secret: sbConsumerSecret}},
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  server.Settings{SendBaseString: true},
		Observe: func(_ *http.Request, _ *server.Verification, err error) {
			var pe *server.ProblemError
			if errors.As(err, &pe) {
				sb.mu.Lock()
				sb.base = pe.BaseString
				sb.mu.Unlock()
			}
		},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("/", p.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })))
	backend := httptest.NewServer(mux)
	t.Cleanup(backend.Close)
	target, err := url.Parse(backend.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(target)
		pr.Out.Host = pr.In.Host
		if rewrite != nil {
			rewrite(pr)
		}
	}}
	if tlsFront {
		sb.front = httptest.NewTLSServer(proxy)
	} else {
		sb.front = httptest.NewServer(proxy)
	}
	t.Cleanup(sb.front.Close)
	return sb
}

// do sends req through a Transport signed with the sandbox's credentials
// and returns CheckResponse's error, which must be a signature_invalid
// refusal carrying the base string the Provider computed.
func (sb *sandbox) do(t *testing.T, req *http.Request) *oauth1.ResponseError {
	t.Helper()
	c := &oauth1.Config{ConsumerKey: "sb-key", ConsumerSecret: sbConsumerSecret, HTTPClient: sb.front.Client()}
	resp, err := c.Client(&oauth1.Credentials{Token: "sb-token", Secret: sbTokenSecret}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	err = oauth1.CheckResponse(resp)
	var re *oauth1.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("CheckResponse = %v; want a *ResponseError", err)
	}
	sb.mu.Lock()
	want := sb.base
	sb.mu.Unlock()
	if re.Problem != oauth1.ProblemSignatureInvalid || want == "" || re.BaseString != want {
		t.Fatalf("refusal %q with BaseString %q; want signature_invalid with the Provider's base string %q", re.Problem, re.BaseString, want)
	}
	msg := re.Error()
	for _, s := range []string{sbConsumerSecret, sbTokenSecret, url.QueryEscape(sbConsumerSecret), "oauth_signature="} {
		if strings.Contains(msg, s) || strings.Contains(re.BaseString, s) {
			t.Errorf("the error or its BaseString holds %q: %s", s, msg)
		}
	}
	return re
}

func checkNames(t *testing.T, re *oauth1.ResponseError, want ...string) {
	t.Helper()
	msg := re.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("Error() = %q\nwant it to name %q", msg, w)
		}
	}
}

// TestExplainSchemeBehindProxy: the client signs the https URL it uses;
// the proxy terminates TLS and the Provider, without Scheme, sees http.
func TestExplainSchemeBehindProxy(t *testing.T) {
	sb := newSandbox(t, true, nil)
	req, err := http.NewRequest("GET", sb.front.URL+"/api/photos?size=large", nil)
	if err != nil {
		t.Fatal(err)
	}
	re := sb.do(t, req)
	if !strings.HasPrefix(re.BaseString, "GET&http%3A%2F%2F") {
		t.Errorf("BaseString = %q; want the http URL the Provider saw", re.BaseString)
	}
	checkNames(t, re, "oauth_problem=signature_invalid", "the provider's base string differs from the one signed: URI:",
		"the client signed scheme https but the provider sees http", "is TLS terminated by a proxy in front of the provider")
}

// TestExplainFormBodyNotSigned: the client sends a form body without its
// Content-Type, so it does not sign the body's parameters; a gateway on
// the way adds the Content-Type, and the Provider signs them.
func TestExplainFormBodyNotSigned(t *testing.T) {
	sb := newSandbox(t, false, func(pr *httputil.ProxyRequest) {
		if pr.Out.Header.Get("Content-Type") == "" {
			pr.Out.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	})
	req, err := http.NewRequest("POST", sb.front.URL+"/api/statuses", strings.NewReader("status=hello%20world"))
	if err != nil {
		t.Fatal(err)
	}
	re := sb.do(t, req)
	if !strings.Contains(re.BaseString, "status%3Dhello%2520world") {
		t.Errorf("BaseString = %q; want the body's parameter signed", re.BaseString)
	}
	checkNames(t, re, `missing parameter "status"`, "did the client send Content-Type application/x-www-form-urlencoded (only form bodies are signed")
}

// TestExplainQueryEncodedTwice: the client builds its URL with a value it
// encoded twice; a proxy that normalizes URLs decodes the query once, and
// the Provider sees the value the client meant.
func TestExplainQueryEncodedTwice(t *testing.T) {
	sb := newSandbox(t, false, func(pr *httputil.ProxyRequest) {
		if q, err := url.PathUnescape(pr.Out.URL.RawQuery); err == nil {
			pr.Out.URL.RawQuery = q
		}
	})
	twice := url.QueryEscape(url.QueryEscape("a,b")) // "a%252Cb"
	req, err := http.NewRequest("GET", sb.front.URL+"/api/search?q="+twice, nil)
	if err != nil {
		t.Fatal(err)
	}
	re := sb.do(t, req)
	checkNames(t, re, `double-encoded "q"`, "got's value is encoded twice", "the client encoded a value that was already encoded")
}

// TestExplainSameBaseString: when the base strings agree, the error says
// the key differs; and with nothing to compare (a request not sent by a
// Transport), it keeps the base string and says nothing more.
func TestExplainSameBaseString(t *testing.T) {
	sb := newSandbox(t, false, nil)
	c := &oauth1.Config{ConsumerKey: "sb-key", ConsumerSecret: sbConsumerSecret + "\n", HTTPClient: sb.front.Client()}
	resp, err := c.Client(&oauth1.Credentials{Token: "sb-token", Secret: sbTokenSecret}).Get(sb.front.URL + "/api")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var re *oauth1.ResponseError
	if err := oauth1.CheckResponse(resp); !errors.As(err, &re) || re.BaseString == "" {
		t.Fatalf("CheckResponse = %v; want a refusal with the base string", err)
	}
	checkNames(t, re, "the provider's base string is the one signed, so the key or the signature's encoding differs")

	// Signed with Config.Sign: the base string is kept, not compared.
	req, err := http.NewRequest("GET", sb.front.URL+"/api", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Sign(req, &oauth1.Credentials{Token: "sb-token", Secret: sbTokenSecret}); err != nil {
		t.Fatal(err)
	}
	resp2, err := sb.front.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp2.Body.Close()
	if err := oauth1.CheckResponse(resp2); !errors.As(err, &re) || re.BaseString == "" || strings.Contains(re.Error(), "base string") {
		t.Errorf("CheckResponse of a request signed by hand = %v (BaseString %q); want the base string kept and not compared", err, re.BaseString)
	}
}

// TestExplainTokenRequest: the flow's token requests explain a refusal
// too, here the scheme of a temporary credential request behind a proxy
// that terminates TLS.
func TestExplainTokenRequest(t *testing.T) {
	sb := newSandbox(t, true, nil)
	c := &oauth1.Config{
		ConsumerKey: "sb-key", ConsumerSecret: sbConsumerSecret,
		Endpoint:   oauth1.Endpoint{RequestTokenURL: sb.front.URL + "/oauth/request_token"},
		HTTPClient: sb.front.Client(),
	}
	_, err := c.RequestToken(context.Background())
	var re *oauth1.ResponseError
	if !errors.As(err, &re) || re.Problem != oauth1.ProblemSignatureInvalid {
		t.Fatalf("RequestToken = %v; want a signature_invalid refusal", err)
	}
	sb.mu.Lock()
	want := sb.base
	sb.mu.Unlock()
	if re.BaseString != want {
		t.Errorf("BaseString = %q; want %q", re.BaseString, want)
	}
	checkNames(t, re, "the client signed scheme https but the provider sees http")
	if strings.Contains(re.Error(), sbConsumerSecret) {
		t.Errorf("Error() holds the consumer secret: %q", re.Error())
	}
}

// TestTokenRequestScrubsPassword: an error page that echoes an xAuth
// request, and a base string that holds its password, leave nothing of
// the password in the ResponseError.
func TestTokenRequestScrubsPassword(t *testing.T) {
	const password = "correct horse battery"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		base := "POST&http%3A%2F%2Fx%2F&x_auth_password%3D" + url.PathEscape(url.PathEscape(password))
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "oauth_problem=signature_invalid&oauth_signature_base_string="+url.QueryEscape(base)+"&echo="+url.QueryEscape(string(body)))
	}))
	defer srv.Close()
	c := &oauth1.Config{ConsumerKey: "k", ConsumerSecret: "consumer-secret-for-xauth", Endpoint: oauth1.Endpoint{AccessTokenURL: srv.URL}}
	_, err := c.XAuthToken(context.Background(), "u", password)
	var re *oauth1.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("AccessToken = %v; want a *ResponseError", err)
	}
	if re.BaseString != "" {
		t.Errorf("BaseString = %q; want none: it holds the password", re.BaseString)
	}
	for _, form := range []string{password, url.QueryEscape(password), url.PathEscape(password), url.QueryEscape(url.QueryEscape(password)), "horse"} {
		if strings.Contains(string(re.Body), form) || strings.Contains(re.Error(), form) {
			t.Errorf("the error holds the password as %q: Body %q, Error %q", form, re.Body, re.Error())
		}
	}
}
