package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestMemoryTokenStoreBounds: PutToken past MaxTokens, or past a client's
// MaxTokensPerClient, fails with ErrStoreFull (naming the client for its
// share); the tokens kept go on working, other clients still get tokens
// while one client's share is full, and a revocation frees a place.
func TestMemoryTokenStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	m := &MemoryTokenStore{MaxTokens: 5, MaxTokensPerClient: 3}
	put := func(token, client string) error {
		return m.PutToken(ctx, TokenCredentials{Token: token, Secret: "s", ConsumerKey: client, User: "u-" + token}, now)
	}
	for _, tok := range []string{"h1", "h2", "h3"} {
		if err := put(tok, "hog"); err != nil {
			t.Fatal(err)
		}
	}
	err := put("h4", "hog")
	if !errors.Is(err, ErrStoreFull) || !strings.Contains(err.Error(), `"hog"`) {
		t.Errorf("PutToken past the client's share: %v, want ErrStoreFull naming the client", err)
	}
	for _, tok := range []string{"h1", "h2", "h3"} {
		if _, err := m.Token(ctx, tok, now); err != nil {
			t.Errorf("Token(%s) with the client's share full: %v", tok, err)
		}
	}
	if err := put("a1", "alice-app"); err != nil {
		t.Errorf("another client's PutToken with one client's share full: %v", err)
	}
	if err := put("b1", "bob-app"); err != nil {
		t.Errorf("another client's PutToken: %v", err)
	}
	if err := put("c1", "carol-app"); !errors.Is(err, ErrStoreFull) {
		t.Errorf("PutToken past MaxTokens: %v, want ErrStoreFull", err)
	}
	// A revocation, or a grant's, frees places.
	if err := m.Revoke(ctx, "h1", now); err != nil {
		t.Fatal(err)
	}
	if err := put("c1", "carol-app"); err != nil {
		t.Errorf("PutToken after a revocation: %v", err)
	}
	if n, err := m.RevokeGrant(ctx, "hog", "u-h2", now); n != 1 || err != nil {
		t.Fatalf("RevokeGrant = %d, %v", n, err)
	}
	if err := put("h5", "hog"); err != nil {
		t.Errorf("PutToken after RevokeGrant: %v", err)
	}
	if len(m.perClient) != 4 || m.perClient["hog"] != 2 {
		t.Errorf("counts %v, want hog 2 of 4 clients", m.perClient)
	}
	// The defaults bound the store too.
	var d MemoryTokenStore
	d.perClient = map[string]int{"big": defaultMaxTokensPerClient}
	d.tokens = map[string]TokenCredentials{}
	if err := d.PutToken(ctx, TokenCredentials{Token: "x", ConsumerKey: "big"}, now); !errors.Is(err, ErrStoreFull) {
		t.Errorf("PutToken past the default share: %v, want ErrStoreFull", err)
	}
}

// TestMemoryTokenStoreDefaultShare: a zero MemoryTokenStore holds at most
// 65,536 token credentials for one client, the documented default, and
// still issues to other clients; one client collecting tokens cannot
// grow it without bound.
func TestMemoryTokenStoreDefaultShare(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	var m MemoryTokenStore
	var err error
	for i := range 1<<16 + 1 {
		tok := TokenCredentials{Token: "t" + strconv.Itoa(i), Secret: "s", ConsumerKey: "collector", User: "u"}
		if err = m.PutToken(ctx, tok, now); err != nil {
			if i != 1<<16 {
				t.Fatalf("PutToken %d: %v", i, err)
			}
		}
	}
	if !errors.Is(err, ErrStoreFull) {
		t.Errorf("PutToken of token 65,537 for one client: %v, want ErrStoreFull", err)
	}
	if err := m.PutToken(ctx, TokenCredentials{Token: "other", ConsumerKey: "other"}, now); err != nil {
		t.Errorf("another client's PutToken: %v", err)
	}
}

// TestProviderTokenStoreFull: with the token store full, a Provider
// answers a new exchange 503 with Retry-After and stores nothing, and the
// users who hold tokens go on using them.
func TestProviderTokenStoreFull(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	tokens := &MemoryTokenStore{MaxTokens: 1}
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  Settings{Now: clock},
	}
	flow := func(user string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"}))
		temp := parseCredentials(t, w.Body.String())
		_, code, err := p.Authorize(ctx, Approval{Token: temp.Token, User: user})
		if err != nil {
			t.Fatal(err)
		}
		w = httptest.NewRecorder()
		p.AccessTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/access", temp, clock(), oauth1.Param{Name: "oauth_verifier", Value: code}))
		return w
	}
	w := flow("alice")
	if w.Code != http.StatusOK {
		t.Fatalf("alice's exchange: %d %s", w.Code, w.Body)
	}
	alice := parseCredentials(t, w.Body.String())
	if w := flow("bob"); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("bob's exchange with the store full = %d %q, Retry-After %q; want 503 with Retry-After", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	if len(tokens.tokens) != 1 {
		t.Errorf("%d tokens stored, want alice's alone", len(tokens.tokens))
	}
	w = httptest.NewRecorder()
	p.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, providerRequest(t, "http://p.example/api", alice, clock()))
	if w.Code != http.StatusOK {
		t.Errorf("alice's request with the store full: %d %s", w.Code, w.Body)
	}
}
