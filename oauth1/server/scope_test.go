package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestProviderScope follows a scope from the temporary credential request
// (a scope parameter, read by Provider.Scope) through Pending and an
// Approval that narrows it, to the token credentials and the Verification
// of a request they sign.
func TestProviderScope(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	var asked []string
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    new(MemoryTokenStore),
		Settings:  Settings{Now: clock, Nonces: new(MemoryNonceStore)},
		Scope: func(r *http.Request, v *Verification) (string, error) {
			asked = append(asked, v.ConsumerKey)
			if s := r.FormValue("scope"); s != "nothing" {
				return s, nil
			}
			return "", errors.New("no such scope")
		},
	}
	issue := func(scope string) (*httptest.ResponseRecorder, *oauth1.Credentials) {
		t.Helper()
		w := httptest.NewRecorder()
		p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request?scope="+scope, nil, clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"}))
		if w.Code != http.StatusOK {
			return w, nil
		}
		return w, parseCredentials(t, w.Body.String())
	}

	_, temp := issue("photos:read+photos:write")
	if temp == nil {
		t.Fatal("temporary credential request refused")
	}
	pending, err := p.Pending(ctx, temp.Token)
	if err != nil || pending.Scope != "photos:read photos:write" {
		t.Fatalf("Pending = %+v, %v; want the scope asked for, %q", pending, err, "photos:read photos:write")
	}
	_, code, err := p.Authorize(ctx, Approval{Token: temp.Token, User: "alice", Scope: "photos:read"})
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}

	w := httptest.NewRecorder()
	p.AccessTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/access", temp, clock(), oauth1.Param{Name: "oauth_verifier", Value: code}))
	if w.Code != http.StatusOK {
		t.Fatalf("token request: %d %s", w.Code, w.Body)
	}
	tok := parseCredentials(t, w.Body.String())
	if rec, err := p.Tokens.Token(ctx, tok.Token, now); err != nil || rec.Scope != "photos:read" || rec.User != "alice" {
		t.Errorf("stored token credentials = %+v, %v; want alice's, for photos:read", rec, err)
	}
	var got *Verification
	w = httptest.NewRecorder()
	p.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got, _ = FromContext(r.Context()) })).
		ServeHTTP(w, providerRequest(t, "http://p.example/api", tok, clock()))
	if got == nil || got.Scope != "photos:read" || got.User != "alice" {
		t.Errorf("Verification of a request signed with the token = %+v; want alice, photos:read", got)
	}

	// An Approval without Scope keeps what the client asked for.
	_, temp = issue("email")
	_, code, err = p.Authorize(ctx, Approval{Token: temp.Token, User: "bob"})
	if err != nil {
		t.Fatalf("Authorize: %v", err)
	}
	taken, err := p.Temporary.TakeTemporary(ctx, temp.Token, now)
	if err != nil || taken.Scope != "email" || taken.VerificationCode != code {
		t.Errorf("approved temporary credentials = %+v, %v; want the scope asked for, email", taken, err)
	}

	// Refusals: the hook's error, and a scope no store should get.
	for _, scope := range []string{"nothing", strings.Repeat("a", maxScopeLen+1), "a%0Ab"} {
		if w, temp := issue(scope); temp != nil || w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "parameter_rejected") {
			t.Errorf("scope %.20q: %d %s, want 400 parameter_rejected", scope, w.Code, w.Body)
		}
	}
	if len(asked) != 5 || asked[0] != "key" {
		t.Errorf("Provider.Scope was called for %q, want once a request, with the verified consumer key", asked)
	}
}

// TestProviderAuthorizeApproval checks what Authorize refuses in an
// Approval before it records anything: no User, and a Scope no store
// should get; the temporary credentials stay pending.
func TestProviderAuthorizeApproval(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    new(MemoryTokenStore),
		Settings:  Settings{Now: func() time.Time { return now }},
	}
	if err := p.Temporary.PutTemporary(ctx, TemporaryCredentials{Token: "tok", Secret: "s", ConsumerKey: "key", Callback: "oob", Expires: now.Add(time.Minute)}, now); err != nil {
		t.Fatal(err)
	}
	for _, a := range []Approval{
		{Token: "tok"},
		{Token: "tok", User: "alice", Scope: strings.Repeat("s", maxScopeLen+1)},
		{Token: "tok", User: "alice", Scope: "read\r\nwrite"},
	} {
		if _, _, err := p.Authorize(ctx, a); err == nil {
			t.Errorf("Authorize(%.40q) succeeded", a)
		}
	}
	if _, err := p.Pending(ctx, "tok"); err != nil {
		t.Errorf("after the refused approvals, Pending: %v; want the credentials still pending", err)
	}
}

// TestProviderRegisteredCallbacks checks that a client whose Registration
// lists Callbacks may use only those.
func TestProviderRegisteredCallbacks(t *testing.T) {
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret", Callbacks: []string{"https://client.example/cb/", "oob"}}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    new(MemoryTokenStore),
	}
	for _, tt := range []struct {
		cb   string
		want int
	}{
		{"https://client.example/cb/done", http.StatusOK},
		{"oob", http.StatusOK},
		{"https://client.example/other", http.StatusBadRequest},
		{"https://evil.example/cb/", http.StatusBadRequest},
		{"https://client.example/cb/%2e%2e/other", http.StatusBadRequest},
	} {
		if code, body := requestWithCallback(t, p, tt.cb); code != tt.want {
			t.Errorf("callback %q: %d %s, want %d", tt.cb, code, body, tt.want)
		}
	}
}

// TestVerifierPassesItsClock checks that a Verifier passes a
// CredentialStore the time it read once for the request, the clock of its
// Settings.
func TestVerifierPassesItsClock(t *testing.T) {
	at := time.Unix(xTimestamp+100, 0)
	store := &clockedStore{memCredentials: xCredentials()}
	v := &Verifier{Store: store, Settings: Settings{Now: func() time.Time { return at }, Nonces: new(MemoryNonceStore)}}
	if _, err := v.Verify(signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "clock")); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if !store.now.Equal(at) {
		t.Errorf("TokenCredentials was passed %v, want the Verifier's clock, %v", store.now, at)
	}
	if !store.consumerNow.Equal(at) {
		t.Errorf("Consumer was passed %v, want the Verifier's clock, %v", store.consumerNow, at)
	}
}

// clockedStore records the now its Consumer and TokenCredentials are
// passed.
type clockedStore struct {
	*memCredentials
	now, consumerNow time.Time
}

func (s *clockedStore) Consumer(ctx context.Context, key string, now time.Time) (Registration, error) {
	s.consumerNow = now
	return s.memCredentials.Consumer(ctx, key, now)
}

func (s *clockedStore) TokenCredentials(ctx context.Context, key, token string, now time.Time) (TokenCredentials, error) {
	s.now = now
	return s.memCredentials.TokenCredentials(ctx, key, token, now)
}
