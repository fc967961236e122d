// Package oauth1test provides a fake OAuth 1.0a provider for tests, in the
// manner of [net/http/httptest]: a loopback [Server] with the three
// endpoints of RFC 5849 §2 and a protected resource, all verifying every
// request with an [oauth1.Verifier] and recording the base string it
// computed, plus helpers for deterministic tests: a settable [Clock],
// [SequentialNonces], and [DiffBaseString] for failure messages.
//
// A client test runs the whole flow against it:
//
//	srv := oauth1test.NewServer(oauth1.Credentials{Token: "key", Secret: "secret"})
//	defer srv.Close()
//	cfg := &oauth1.Config{Consumer: srv.Consumer, Endpoint: srv.Endpoint}
//	temp, _, err := cfg.RequestToken(ctx)
//	verifier, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp, nil))
//	tok, _, err := cfg.AccessToken(ctx, temp, verifier)
//	resp, err := cfg.Client(tok).Get(srv.ResourceURL)
package oauth1test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
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
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// Paths of the Server's endpoints.
const (
	RequestTokenPath = "/oauth/request_token"
	AuthorizePath    = "/oauth/authorize"
	AccessTokenPath  = "/oauth/access_token"
	ResourcePath     = "/resource"
)

// BaseStringHeader is the response header in which the Server returns the
// base string it computed when it refuses a signature, so that a client
// test can diff it against its own. Real providers do not do this.
const BaseStringHeader = "Oauth1test-Base-String"

// A Record is one request the Server received and verified.
type Record struct {
	Method string
	Path   string // the request target: path and query, as received
	// BaseString is the signature base string the Verifier computed; empty
	// when the request was refused before it got that far.
	BaseString string
	Err        error // nil if the request was accepted
}

// Server is a fake provider. It knows one client, Consumer, issues random
// temporary and token credentials, approves every authorization at once,
// and serves ResourcePath to requests signed with token credentials it
// issued. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server

	// Consumer holds the client credentials the Server accepts.
	Consumer oauth1.Credentials

	// PublicKey, if set before the first request, is the client's RSA
	// public key, for the RSA-SHA* methods.
	PublicKey *rsa.PublicKey

	// Endpoint holds the URLs of the Server's three endpoints.
	Endpoint oauth1.Endpoint

	// ResourceURL is the URL of the protected resource. It answers
	// text/plain "consumer=… token=… method=…" and the body it was sent.
	ResourceURL string

	// Verifier verifies every request. Set its fields, such as Now, before
	// the first request.
	Verifier *oauth1.Verifier

	mu      sync.Mutex
	records []Record
	temp    map[string]*tempToken
	access  map[string]string // token → secret
}

type tempToken struct {
	secret, callback, verifier string
}

// NewServer starts and returns a Server that accepts the client credentials
// consumer. The caller should call Close when finished.
func NewServer(consumer oauth1.Credentials) *Server {
	s := &Server{
		Consumer: consumer,
		temp:     make(map[string]*tempToken),
		access:   make(map[string]string),
	}
	s.Verifier = &oauth1.Verifier{Credentials: store{s}, Realm: "oauth1test"}
	mux := http.NewServeMux()
	mux.HandleFunc(RequestTokenPath, s.requestToken)
	mux.HandleFunc(AuthorizePath, s.authorize)
	mux.HandleFunc(AccessTokenPath, s.accessToken)
	mux.HandleFunc(ResourcePath, s.resource)
	s.Server = httptest.NewServer(mux)
	s.Endpoint = oauth1.Endpoint{
		RequestTokenURL: s.URL + RequestTokenPath,
		AuthorizeURL:    s.URL + AuthorizePath,
		AccessTokenURL:  s.URL + AccessTokenPath,
	}
	s.ResourceURL = s.URL + ResourcePath
	return s
}

// store is the Server seen as the Verifier's CredentialStore.
type store struct{ s *Server }

func (st store) Consumer(_ context.Context, key string) (oauth1.Registration, error) {
	s := st.s
	if key != s.Consumer.Token {
		return oauth1.Registration{}, oauth1.ErrNotFound
	}
	return oauth1.Registration{Secret: s.Consumer.Secret, PublicKey: s.PublicKey}, nil
}

func (st store) TokenSecret(_ context.Context, _, token string) (string, error) {
	s := st.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.temp[token]; ok {
		return t.secret, nil
	}
	if secret, ok := s.access[token]; ok {
		return secret, nil
	}
	return "", oauth1.ErrNotFound
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

// IssueToken creates token credentials directly, for tests of signed
// requests that do not need the flow.
func (s *Server) IssueToken() oauth1.Credentials {
	tok := oauth1.Credentials{Token: rand.Text(), Secret: rand.Text()}
	s.mu.Lock()
	s.access[tok.Token] = tok.Secret
	s.mu.Unlock()
	return tok
}

// verify verifies r, records it, and answers refusals.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) (*oauth1.Verification, bool) {
	v, err := s.Verifier.Verify(r)
	rec := Record{Method: r.Method, Path: r.URL.RequestURI(), Err: err}
	var pe *oauth1.ProblemError
	switch {
	case v != nil:
		rec.BaseString = v.BaseString
	case errors.As(err, &pe):
		rec.BaseString = pe.BaseString
	}
	s.mu.Lock()
	s.records = append(s.records, rec)
	s.mu.Unlock()
	if err != nil {
		if rec.BaseString != "" {
			w.Header().Set(BaseStringHeader, rec.BaseString)
		}
		s.Verifier.WriteError(w, err)
		return nil, false
	}
	return v, true
}

func (s *Server) refuse(w http.ResponseWriter, problem oauth1.Problem, status int, extra string) {
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
	w.WriteHeader(status)
	io.WriteString(w, "oauth_problem="+string(problem)+extra)
}

func (s *Server) requestToken(w http.ResponseWriter, r *http.Request) {
	v, ok := s.verify(w, r)
	if !ok {
		return
	}
	if v.Token != "" {
		s.refuse(w, oauth1.ProblemParameterRejected, http.StatusBadRequest, "&oauth_parameters_rejected=oauth_token")
		return
	}
	cb := v.Get("oauth_callback")
	if cb == "" {
		s.refuse(w, oauth1.ProblemParameterAbsent, http.StatusBadRequest, "&oauth_parameters_absent=oauth_callback")
		return
	}
	tok := oauth1.Credentials{Token: rand.Text(), Secret: rand.Text()}
	s.mu.Lock()
	s.temp[tok.Token] = &tempToken{secret: tok.Secret, callback: cb}
	s.mu.Unlock()
	writeForm(w, "oauth_token", tok.Token, "oauth_token_secret", tok.Secret, "oauth_callback_confirmed", "true")
}

// authorize plays the resource owner who approves at once: it redirects to
// the callback with a verifier, or shows the verifier as a PIN for "oob".
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("oauth_token")
	s.mu.Lock()
	t, ok := s.temp[token]
	if ok && t.verifier == "" {
		t.verifier = pin()
	}
	s.mu.Unlock()
	if !ok {
		s.refuse(w, oauth1.ProblemTokenRejected, http.StatusUnauthorized, "")
		return
	}
	if t.callback == "oob" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "Authorized. Enter this PIN in the application: %s\n", t.verifier)
		return
	}
	u, err := url.Parse(t.callback)
	if err != nil {
		http.Error(w, "bad callback URL", http.StatusBadRequest)
		return
	}
	q := u.RawQuery
	if q != "" {
		q += "&"
	}
	u.RawQuery = q + "oauth_token=" + percent.Encode(token) + "&oauth_verifier=" + percent.Encode(t.verifier)
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// pin returns eight random digits.
func pin() string {
	var b [8]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = '0' + b[i]%10
	}
	return string(b[:])
}

func (s *Server) accessToken(w http.ResponseWriter, r *http.Request) {
	v, ok := s.verify(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	t, ok := s.temp[v.Token]
	if ok && t.verifier != "" && subtle.ConstantTimeCompare([]byte(t.verifier), []byte(v.Get("oauth_verifier"))) == 1 {
		delete(s.temp, v.Token) // temporary credentials are good for one exchange
	} else {
		ok = false
	}
	var tok oauth1.Credentials
	if ok {
		tok = oauth1.Credentials{Token: rand.Text(), Secret: rand.Text()}
		s.access[tok.Token] = tok.Secret
	}
	s.mu.Unlock()
	if !ok {
		s.refuse(w, oauth1.ProblemTokenRejected, http.StatusUnauthorized, "&oauth_problem_advice=not+an+authorized+temporary+token+or+wrong+oauth_verifier")
		return
	}
	writeForm(w, "oauth_token", tok.Token, "oauth_token_secret", tok.Secret)
}

func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	v, ok := s.verify(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	_, ok = s.access[v.Token]
	s.mu.Unlock()
	if !ok {
		s.refuse(w, oauth1.ProblemTokenRejected, http.StatusUnauthorized, "")
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "consumer=%s token=%s method=%s\n%s", v.ConsumerKey, v.Token, v.Method, body)
}

func writeForm(w http.ResponseWriter, kv ...string) {
	var b strings.Builder
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(percent.Encode(kv[i]))
		b.WriteByte('=')
		b.WriteString(percent.Encode(kv[i+1]))
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
	io.WriteString(w, b.String())
}

// Authorize plays the resource owner at authURL, which
// [oauth1.Config.AuthorizationURL] returned for this Server, and returns the
// verifier: from the redirect to the callback, which it does not follow, or
// from the PIN page when the callback is "oob".
func (s *Server) Authorize(ctx context.Context, authURL string) (verifier string, err error) {
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

// DiffBaseString reports how two signature base strings differ, parameter
// by parameter and decoded, with the likely cause of each difference (see
// [basestring.Diff]), labelled (-want +got); it returns "" when they are
// equal. Use it in failure messages:
//
//	if d := oauth1test.DiffBaseString(want, got); d != "" {
//		t.Error(d)
//	}
func DiffBaseString(want, got string) string {
	return basestring.Format(basestring.Diff(want, got))
}

// Clock is a settable clock for [oauth1.Verifier.Now] and for the
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
// so on, for deterministic nonces in [oauth1.Config.SignAt]. The function is
// safe for concurrent use.
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
