package redisstore_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
	"github.com/countersign/countersign/redisstore"
)

// exchangeProvider is a provider of one grant, alice's tok-1, on a Redis
// shared by its instances, with a clock the test moves.
type exchangeProvider struct {
	addr, prefix string
	tokens       *redisstore.TokenStore
	mu           sync.Mutex
	now          time.Time
}

func newExchangeProvider(t *testing.T) *exchangeProvider {
	p := &exchangeProvider{addr: sharedAddr(t), prefix: testPrefix(t), now: time.Unix(1_800_000_000, 0)}
	p.tokens = redisstore.NewTokenStore(newClient(t, p.addr), p.prefix)
	require.NoError(t, p.tokens.PutToken(context.Background(), server.TokenCredentials{Token: "tok-1", Secret: "ts-SECRET", ConsumerKey: "ck", User: "alice", Scope: "read"}, p.now))
	return p
}

func (p *exchangeProvider) clock() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.now }
func (p *exchangeProvider) add(d time.Duration) {
	p.mu.Lock()
	p.now = p.now.Add(d)
	p.mu.Unlock()
}

// instance is one instance of the provider: a Redis client of its own,
// and a nonce store on Redis unless nonces is given.
func (p *exchangeProvider) instance(t *testing.T, nonces server.NonceStore) *tokenexchange.Handler {
	rdb := newClient(t, p.addr)
	if nonces == nil {
		nonces = redisstore.NewNonceStore(rdb, p.prefix)
	}
	return &tokenexchange.Handler{
		Consumers: server.Consumers{"ck": {Secret: "cs-SECRET"}},
		Tokens:    redisstore.NewTokenStore(rdb, p.prefix),
		Settings:  server.Settings{Nonces: nonces, Now: p.clock},
		Clients:   tokenexchange.Clients{"client-1": {ID: "client-1", Secret: "cl-SECRET", ConsumerKey: "ck"}},
		Issuer: tokenexchange.IssuerFunc(func(ctx context.Context, g tokenexchange.Grant) (*oauth2.Token, error) {
			return &oauth2.Token{AccessToken: "at-live-" + g.User, ExpiresIn: 3600}, nil
		}),
		Store:        redisstore.NewExchangeStore(rdb, p.prefix),
		RepeatWindow: time.Hour,
		Grace:        time.Hour,
	}
}

// signedExchange is a signed exchange of tok-1, the same bytes each call.
func (p *exchangeProvider) signedExchange(t *testing.T) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "https://p.example/token?grant_type="+url.QueryEscape(tokenexchange.GrantType), nil)
	cfg := oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs-SECRET", Delivery: oauth1.QueryString}
	require.NoError(t, cfg.SignAt(r, &oauth1.Credentials{Token: "tok-1", Secret: "ts-SECRET"}, p.clock(), "nonce-in-the-access-log"))
	return r
}

func exchangeAnswer(h http.Handler, r *http.Request) (int, map[string]any) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var m map[string]any
	json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

// TestExchangeReplayToAnotherInstance: a query-signed exchange replayed
// (from an access log) to another instance sharing the ExchangeStore gets
// no token: refused as a replay with a shared nonce store, and refused as
// a misconfiguration with a nonce store per instance.
func TestExchangeReplayToAnotherInstance(t *testing.T) {
	p := newExchangeProvider(t)
	a, b := p.instance(t, new(server.MemoryNonceStore)), p.instance(t, new(server.MemoryNonceStore))
	_, first := exchangeAnswer(a, p.signedExchange(t))
	status, replay := exchangeAnswer(b, p.signedExchange(t))
	require.NotContains(t, replay, "access_token", "the replay got the token (the first answer: %v)", first)
	require.Equal(t, 500, status)
	require.Equal(t, "server_error", replay["error"])
	require.Contains(t, replay["error_description"], "nonce store")

	p = newExchangeProvider(t)
	a, b = p.instance(t, nil), p.instance(t, nil)
	status, first = exchangeAnswer(a, p.signedExchange(t))
	require.Equal(t, 200, status, first)
	require.Equal(t, "at-live-alice", first["access_token"])
	status, replay = exchangeAnswer(b, p.signedExchange(t))
	require.Equal(t, 401, status)
	require.NotContains(t, replay, "access_token")
	require.Contains(t, replay["error_description"], "nonce_used")
}

// TestExchangeRevocationSurvivesRestart: the instance that exchanged stops
// within Grace; another, started later, revokes the 1.0a token once Grace
// has passed on its clock, on whatever request it serves.
func TestExchangeRevocationSurvivesRestart(t *testing.T) {
	p := newExchangeProvider(t)
	first := p.instance(t, nil)
	status, m := exchangeAnswer(first, p.signedExchange(t))
	require.Equal(t, 200, status, m)
	first = nil // stopped

	p.add(time.Hour)
	second := p.instance(t, nil)
	form := url.Values{"grant_type": {tokenexchange.GrantType}, "subject_token": {"tok-nobody"}, "subject_token_type": {tokenexchange.OAuth1TokenType}, "oauth_token_secret": {"x"}}
	r := httptest.NewRequest(http.MethodPost, "https://p.example/token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.SetBasicAuth("client-1", "cl-SECRET")
	exchangeAnswer(second, r)
	_, err := p.tokens.Token(context.Background(), "tok-1", p.clock())
	require.ErrorIs(t, err, server.ErrTokenRevoked, "the grace passed, and no instance revoked the token")
	n, err := second.RevokeDue(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "no longer due")
}
