// Package oauth1test provides a fake OAuth 1.0a provider for tests, in the
// manner of [net/http/httptest]: a loopback [Server] with the three
// endpoints of RFC 5849 §2 (those of [server.Provider]) and a protected
// resource, all verifying every request with a [server.Verifier] and
// recording the base string it computed; [Server.Handle] puts a test's own
// handlers behind the same verification. Helpers for deterministic tests:
// a settable [Clock] and [SequentialNonces]; in failure messages,
// basestring.Format(basestring.Diff(want, got)) says how two base strings
// differ. A provider's own stores are checked against their interfaces'
// contracts by [TestConsumerStore], [TestCredentialStore],
// [TestNonceStore], [TestTemporaryStore] and [TestTokenStore].
//
// A client test runs the whole flow against it:
//
//	srv := oauth1test.NewServer("key", "secret") // or NewTLSServer
//	defer srv.Close()
//	cfg := srv.Config()
//	temp, err := cfg.RequestToken(ctx)
//	code, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp.Credentials))
//	tok, err := cfg.AccessToken(ctx, temp.Credentials, code)
//	resp, err := cfg.Client(tok.Credentials).Get(srv.ResourceURL)
package oauth1test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// Paths of the Server's endpoints.
const (
	RequestTokenPath = "/oauth/request_token"
	AuthorizePath    = "/oauth/authorize"
	AccessTokenPath  = "/oauth/access_token"
	ResourcePath     = "/resource"
)

// A Record is one request the Server received and verified.
type Record struct {
	Method string
	Path   string // the request target: path and query, as received
	// BaseString is the signature base string the Verifier computed; empty
	// when the request was refused before it got that far.
	BaseString string
	Err        error // nil if the request was accepted
}

// Server is a fake provider built on [server.Provider], listening on a
// loopback address. It knows one client, ConsumerKey, issues random
// temporary and token credentials, approves every authorization at once in
// the name of User, and serves ResourcePath to requests signed with token
// credentials it issued. Handle mounts a test's own handlers behind the
// same verification. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the Server, of the form http://ipaddr:port
	// (https:// for a [NewTLSServer]) with no trailing slash.
	URL string

	// ConsumerKey and ConsumerSecret are the client credentials the
	// Server accepts.
	ConsumerKey, ConsumerSecret string

	// PublicKey, if set before the first request, is the client's RSA
	// public key, for the RSA-SHA* methods.
	PublicKey *rsa.PublicKey

	// Endpoint holds the URLs of the Server's three endpoints.
	Endpoint oauth1.Endpoint

	// ResourceURL is the URL of the protected resource. It answers
	// text/plain "consumer=… token=… method=…" and the body it was sent.
	ResourceURL string

	// Provider issues the credentials and verifies every request, with
	// its Settings (a nonce store of this Server's own, the realm
	// "oauth1test", and SendBaseString, so that a signature_invalid
	// refusal carries the base string the Server computed, which
	// [oauth1.CheckResponse] puts in [oauth1.ResponseError.BaseString] and
	// compares with the one the client signed), and keeps them in a
	// [server.MemoryTemporaryStore] and a [server.MemoryTokenStore], on
	// its clock. Set its fields, such as Now, or TokenValues to add
	// user_id to the access token answer, before the first request.
	Provider *server.Provider

	// User is the resource owner who approves every authorization; NewServer
	// sets it to "user". Change it only between flows.
	User string

	srv     *httptest.Server
	mux     *http.ServeMux
	mu      sync.Mutex
	records []Record
}

// NewServer starts and returns a Server on plain HTTP that accepts the
// client credentials consumerKey and consumerSecret (which may be empty
// for a client that signs with RSA: set PublicKey). The caller should call
// Close when finished.
func NewServer(consumerKey, consumerSecret string) *Server {
	return newServer(consumerKey, consumerSecret, httptest.NewServer)
}

// NewTLSServer is [NewServer] on HTTPS, with a certificate that only the
// clients from [Server.Client] and [Server.Config] trust.
func NewTLSServer(consumerKey, consumerSecret string) *Server {
	return newServer(consumerKey, consumerSecret, httptest.NewTLSServer)
}

func newServer(consumerKey, consumerSecret string, start func(http.Handler) *httptest.Server) *Server {
	s := &Server{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, User: "user", mux: http.NewServeMux()}
	s.Provider = &server.Provider{
		Consumers: consumerFunc(s.consumer),
		Temporary: new(server.MemoryTemporaryStore),
		Tokens:    new(server.MemoryTokenStore),
		Settings:  server.Settings{Nonces: new(server.MemoryNonceStore), Realm: "oauth1test", SendBaseString: true},
		Observe:   s.record,
	}
	s.mux.Handle(RequestTokenPath, s.Provider.RequestTokenHandler())
	s.mux.HandleFunc(AuthorizePath, s.authorize)
	s.mux.Handle(AccessTokenPath, s.Provider.AccessTokenHandler())
	s.Handle(ResourcePath, http.HandlerFunc(s.resource))
	s.srv = start(s.mux)
	s.URL = s.srv.URL
	s.Endpoint = oauth1.Endpoint{
		RequestTokenURL: s.URL + RequestTokenPath,
		AuthorizeURL:    s.URL + AuthorizePath,
		AccessTokenURL:  s.URL + AccessTokenPath,
	}
	s.ResourceURL = s.URL + ResourcePath
	return s
}

// Client returns an HTTP client that reaches the Server: for a
// [NewTLSServer], one that trusts its certificate. It is the same client at
// every call; Close closes its idle connections.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Config returns a new Config for a client of the Server: its client
// credentials, its Endpoint and, as HTTPClient, [Server.Client]. Callback
// is empty, which the flow sends as "oob"; set it, or the other fields, as
// the test needs.
func (s *Server) Config() *oauth1.Config {
	return &oauth1.Config{
		ConsumerKey:    s.ConsumerKey,
		ConsumerSecret: s.ConsumerSecret,
		Endpoint:       s.Endpoint,
		HTTPClient:     s.Client(),
	}
}

// Close shuts the Server down and blocks until all its requests have
// finished. Calling it again does nothing.
func (s *Server) Close() { s.srv.Close() }

// Handle mounts h at pattern (a [http.ServeMux] pattern) behind the
// Server's verification: h gets only the requests Provider accepts,
// signed with token credentials the Server issued or with the client
// credentials alone, with the [server.Verification] in their context
// ([server.FromContext]); Records lists them with the others.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, s.Provider.Middleware(h))
}

func (s *Server) now() time.Time {
	if s.Provider.Now != nil {
		return s.Provider.Now()
	}
	return time.Now()
}

// writeError answers a refusal as the Provider does.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	v := server.Verifier{Settings: s.Provider.Settings}
	v.WriteError(w, err)
}

// consumerFunc is a [server.ConsumerStore] made of a function.
type consumerFunc func(ctx context.Context, consumerKey string) (server.Registration, error)

func (f consumerFunc) Consumer(ctx context.Context, consumerKey string, _ time.Time) (server.Registration, error) {
	return f(ctx, consumerKey)
}

func (s *Server) consumer(_ context.Context, key string) (server.Registration, error) {
	if key != s.ConsumerKey {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: s.ConsumerSecret, PublicKey: s.PublicKey}, nil
}

// record is the Provider's Observe.
func (s *Server) record(r *http.Request, v *server.Verification, err error) {
	rec := Record{Method: r.Method, Path: r.URL.RequestURI(), Err: err}
	var pe *server.ProblemError
	switch {
	case v != nil:
		rec.BaseString = v.BaseString
	case errors.As(err, &pe):
		rec.BaseString = pe.BaseString
	}
	s.mu.Lock()
	s.records = append(s.records, rec)
	s.mu.Unlock()
}

// Records returns the requests the Server has verified so far, oldest first.
func (s *Server) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.records...)
}

// LastBaseString returns the base string of the last request verified, or
// "" if there was none.
func (s *Server) LastBaseString() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.records) == 0 {
		return ""
	}
	return s.records[len(s.records)-1].BaseString
}

// IssueToken creates token credentials for User directly, for tests of
// signed requests that do not need the flow.
func (s *Server) IssueToken() oauth1.Credentials {
	tok := server.TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: s.ConsumerKey, User: s.User}
	if err := s.Provider.Tokens.PutToken(context.Background(), tok, s.now()); err != nil {
		panic("oauth1test: IssueToken: " + err.Error()) // a MemoryTokenStore fails only on a duplicate
	}
	return oauth1.Credentials{Token: tok.Token, Secret: tok.Secret}
}

// authorize plays the resource owner who approves at once: it redirects to
// the callback with a verification code, or shows the code as a PIN for "oob".
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	redirect, code, err := s.Provider.Authorize(r.Context(), server.Approval{Token: r.URL.Query().Get("oauth_token"), User: s.User})
	switch {
	case errors.Is(err, server.ErrTokenUsed):
		s.writeError(w, &server.ProblemError{ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemTokenUsed}, StatusCode: http.StatusUnauthorized, Err: err})
	case errors.Is(err, server.ErrNotFound):
		s.writeError(w, &server.ProblemError{ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemTokenRejected}, StatusCode: http.StatusUnauthorized, Err: err})
	case err != nil:
		s.writeError(w, err)
	case redirect == "":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "Authorized. Enter this PIN in the application: %s\n", code)
	default:
		http.Redirect(w, r, redirect, http.StatusFound)
	}
}

// resource needs a token; Handle lets two-legged requests through.
func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	v, _ := server.FromContext(r.Context())
	if v.Token == "" {
		s.writeError(w, &server.ProblemError{ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemParameterAbsent, ParamsAbsent: []string{"oauth_token"}}, StatusCode: http.StatusBadRequest})
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "consumer=%s token=%s method=%s\n%s", v.ConsumerKey, v.Token, v.SignatureMethod, body)
}

// Authorize plays the resource owner at authURL, which
// [oauth1.Config.AuthorizationURL] returned for this Server, and returns the
// verification code: from the redirect to the callback, which it does not follow, or
// from the PIN page when the callback is "oob".
func (s *Server) Authorize(ctx context.Context, authURL string) (code string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return "", err
	}
	c := *s.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return "", err
	}
	switch resp.StatusCode {
	case http.StatusFound:
		u, err := url.Parse(resp.Header.Get("Location"))
		if err != nil {
			return "", err
		}
		return u.Query().Get("oauth_verifier"), nil
	case http.StatusOK:
		const prefix = "PIN in the application: "
		if _, after, ok := strings.Cut(string(body), prefix); ok {
			return strings.TrimSpace(after), nil
		}
	}
	return "", fmt.Errorf("oauth1test: authorization failed: %s: %s", resp.Status, body)
}

// Clock is a settable clock for [oauth1.Config.Now] and
// [server.Settings].Now (pass the method value, clock.Now) and for the
// timestamps given to [oauth1.Config.SignAt]. Its methods are safe for
// concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time; it does not advance by itself.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d (backward if d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// SequentialNonces returns a function that returns prefix-1, prefix-2 and
// so on, for deterministic nonces: set it as [oauth1.Config.Nonce], or call
// it for [oauth1.Config.SignAt]. The function is safe for concurrent use.
func SequentialNonces(prefix string) func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s-%d", prefix, n)
	}
}
