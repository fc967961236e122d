package tokenexchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// The secrets of the fixture: none may appear in an answer or an error.
const (
	consumerKey    = "ck-1"
	consumerSecret = "cs-SECRET-consumer"
	token1         = "tok-1"
	tokenSecret    = "ts-SECRET-token-1"
	clientID       = "client-1"
	clientSecret   = "cl-SECRET-client-1"
	publicID       = "public-1"
	otherID        = "client-other"
	otherSecret    = "cl-SECRET-other"
	endpoint       = "https://p.example/oauth2/token"
)

var secrets = []string{consumerSecret, tokenSecret, clientSecret, otherSecret, "wrong-SECRET"}

type clientMap map[string]Client

func (m clientMap) Client(_ context.Context, id string) (Client, error) {
	c, ok := m[id]
	if !ok {
		return Client{}, fmt.Errorf("%w: client %q", server.ErrNotFound, id)
	}
	return c, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type observation struct {
	g   Grant
	err error
	r   bool // a request was given
}

type fixture struct {
	h      *Handler
	tokens *server.MemoryTokenStore
	clock  *clock
	issued atomic.Int32
	issue  func(ctx context.Context, g Grant) (*oauth2.Token, error) // replaces the default

	mu       sync.Mutex
	grants   []Grant
	observed []observation
	nonce    atomic.Int64
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{tokens: new(server.MemoryTokenStore), clock: &clock{t: time.Unix(1_800_000_000, 0)}}
	ctx := context.Background()
	for _, tc := range []server.TokenCredentials{
		{Token: token1, Secret: tokenSecret, ConsumerKey: consumerKey, User: "alice", Scope: "read write"},
		{Token: "tok-other", Secret: "ts-SECRET-other", ConsumerKey: "ck-other", User: "bob", Scope: "read"},
	} {
		require.NoError(t, f.tokens.PutToken(ctx, tc, f.clock.now()))
	}
	f.h = &Handler{
		Consumers: server.Consumers{consumerKey: {Secret: consumerSecret}, "ck-other": {Secret: "cs-SECRET-other"}},
		Tokens:    f.tokens,
		Settings:  server.Settings{Now: f.clock.now, Nonces: new(server.MemoryNonceStore)},
		Clients: clientMap{
			clientID: {ID: clientID, Secret: clientSecret, ConsumerKey: consumerKey},
			publicID: {ID: publicID, ConsumerKey: consumerKey},
			otherID:  {ID: otherID, Secret: otherSecret, ConsumerKey: "ck-other"},
		},
		Issuer: IssuerFunc(func(ctx context.Context, g Grant) (*oauth2.Token, error) {
			n := f.issued.Add(1)
			f.mu.Lock()
			f.grants = append(f.grants, g)
			issue := f.issue
			f.mu.Unlock()
			if issue != nil {
				return issue(ctx, g)
			}
			return &oauth2.Token{AccessToken: fmt.Sprintf("at-%d", n), RefreshToken: fmt.Sprintf("rt-%d", n), TokenType: "bearer", ExpiresIn: 3600}, nil
		}),
		Store: new(MemoryStore),
		Observe: func(r *http.Request, g Grant, err error) {
			f.mu.Lock()
			f.observed = append(f.observed, observation{g, err, r != nil})
			f.mu.Unlock()
		},
	}
	return f
}

// secretForm is X's shape: the token and its secret in the body.
func secretForm(extra ...string) url.Values {
	v := url.Values{
		"grant_type":         {GrantType},
		"subject_token":      {token1},
		"subject_token_type": {OAuth1TokenType},
		"oauth_token_secret": {tokenSecret},
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			v.Del(extra[i])
		} else {
			v.Set(extra[i], extra[i+1])
		}
	}
	return v
}

// post is a form POST authenticated with Basic as id and secret (none
// when id is empty).
func post(form url.Values, id, secret string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if id != "" {
		r.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	}
	return r
}

// signed is a signed exchange of token1 with a form body, at the fixture's
// clock and a nonce of its own.
func (f *fixture) signed(t testing.TB, form url.Values, tok oauth1.Credentials) *http.Request {
	t.Helper()
	return f.signedNonce(t, form, tok, fmt.Sprintf("nonce-%d", f.nonce.Add(1)))
}

func (f *fixture) signedNonce(t testing.TB, form url.Values, tok oauth1.Credentials, nonce string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cfg := oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
	require.NoError(t, cfg.SignAt(r, &tok, f.clock.now(), nonce))
	return r
}

var tok1 = oauth1.Credentials{Token: token1, Secret: tokenSecret}

// answerOf is a decoded answer.
type answerOf struct {
	status int
	header http.Header
	body   string
	fields map[string]any
}

func serve(t testing.TB, h http.Handler, r *http.Request) answerOf {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	a := answerOf{status: w.Code, header: w.Header(), body: w.Body.String()}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &a.fields), "body %q", a.body)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	require.Equal(t, "application/json;charset=UTF-8", a.header.Get("Content-Type"))
	return a
}

// noSecret fails t if any secret is in a's status line, headers or body,
// or in an error Observe saw.
func (f *fixture) noSecret(t testing.TB, a answerOf) {
	t.Helper()
	var all strings.Builder
	fmt.Fprintf(&all, "%d %v %s", a.status, a.header, a.body)
	f.mu.Lock()
	for _, o := range f.observed {
		fmt.Fprintf(&all, " %v %+v %#v", o.err, o.err, o.g)
		for e := o.err; e != nil; e = errors.Unwrap(e) {
			fmt.Fprintf(&all, " %s", e.Error())
		}
	}
	f.mu.Unlock()
	for _, s := range secrets {
		require.NotContains(t, all.String(), s)
	}
}

func (f *fixture) lastObserved(t testing.TB) observation {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.observed)
	return f.observed[len(f.observed)-1]
}
