package server

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestWriteErrorTemporaryStoreFull checks that a full temporary
// credential store is answered by the Verifier's one error writer: 503
// with Retry-After.
func TestWriteErrorTemporaryStoreFull(t *testing.T) {
	w := httptest.NewRecorder()
	new(Verifier).WriteError(w, fmt.Errorf("oauth1: storing temporary credentials: %w", ErrStoreFull))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || w.Body.String() != "oauth_problem=internal_error" {
		t.Errorf("WriteError(ErrStoreFull) = %d, Retry-After %q, %q; want 503, a Retry-After, oauth_problem=internal_error",
			w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
}

// providerRequest returns a POST to url signed with client credentials
// key/secret and tok at now, with a fresh nonce: a Provider with Nonces
// nil shares the process's nonce store with every test, and every run.
func providerRequest(t *testing.T, url string, tok *oauth1.Credentials, now time.Time, extra ...oauth1.Param) *http.Request {
	t.Helper()
	c, err := http.NewRequest("POST", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret"}
	if err := cfg.SignAt(c, tok, now, rand.Text(), extra...); err != nil {
		t.Fatal(err)
	}
	return received(t, c)
}

// TestProviderOwnsVerification checks that the Provider looks credentials
// up itself and leaves its Settings as they were: temporary credentials sign
// the token request and nothing else, and the error Observe sees for them
// on a protected resource says why.
func TestProviderOwnsVerification(t *testing.T) {
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	settings := Settings{Now: clock, Realm: "photos"}
	var observed error
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    new(MemoryTokenStore),
		Settings:  settings,
		Observe:   func(_ *http.Request, _ *Verification, err error) { observed = err },
	}
	w := httptest.NewRecorder()
	p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"}))
	if w.Code != http.StatusOK {
		t.Fatalf("temporary credential request: %d %s", w.Code, w.Body)
	}
	if p.Nonces != nil || p.Window != 0 {
		t.Errorf("the Provider wrote defaults into its Settings: Nonces %v, Window %v", p.Nonces, p.Window)
	}
	temp := parseCredentials(t, w.Body.String())

	// A protected resource refuses temporary credentials, with the realm
	// of the Provider's settings.
	w = httptest.NewRecorder()
	p.Middleware(http.NotFoundHandler()).ServeHTTP(w, providerRequest(t, "http://p.example/api", temp, clock()))
	if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "token_rejected") || w.Header().Get("WWW-Authenticate") != `OAuth realm="photos"` {
		t.Errorf("resource request with temporary credentials = %d %q, WWW-Authenticate %q; want 401 token_rejected, realm photos",
			w.Code, w.Body, w.Header().Get("WWW-Authenticate"))
	}
	var pe *ProblemError
	if !errors.As(observed, &pe) || !errors.Is(pe.Err, ErrNotFound) || !strings.Contains(observed.Error(), "temporary credentials cannot access protected resources") {
		t.Errorf("Observe saw %v; want token_rejected saying that temporary credentials cannot access protected resources", observed)
	}
	if strings.Contains(w.Body.String(), "temporary") {
		t.Errorf("the answer %q tells whoever holds the token what it is", w.Body)
	}
	// An unknown token is refused without that reason.
	w = httptest.NewRecorder()
	p.Middleware(http.NotFoundHandler()).ServeHTTP(w, providerRequest(t, "http://p.example/api", &oauth1.Credentials{Token: "unknown", Secret: "s"}, clock()))
	if w.Code != http.StatusUnauthorized || observed == nil || strings.Contains(observed.Error(), "temporary") {
		t.Errorf("unknown token: %d, Observe saw %v; want 401, not a temporary-credential refusal", w.Code, observed)
	}

	_, code, err := p.Authorize(context.Background(), Approval{Token: temp.Token, User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	w = httptest.NewRecorder()
	p.AccessTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/access", temp, clock(), oauth1.Param{Name: "oauth_verifier", Value: code}))
	if w.Code != http.StatusOK {
		t.Fatalf("token request: %d %s", w.Code, w.Body)
	}
	tok := parseCredentials(t, w.Body.String())
	var got *Verification
	w = httptest.NewRecorder()
	p.Middleware(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got, _ = FromContext(r.Context()) })).
		ServeHTTP(w, providerRequest(t, "http://p.example/api", tok, clock()))
	if got == nil || got.Token != tok.Token {
		t.Errorf("resource request with token credentials = %d %s, Verification %+v", w.Code, w.Body, got)
	}
}

func parseCredentials(t *testing.T, body string) *oauth1.Credentials {
	t.Helper()
	var c oauth1.Credentials
	for _, kv := range strings.Split(body, "&") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "oauth_token":
			c.Token = v
		case "oauth_token_secret":
			c.Secret = v
		}
	}
	if c.Token == "" || c.Secret == "" {
		t.Fatalf("no credentials in %q", body)
	}
	return &c
}

// TestDenyApproved checks that Deny refuses temporary credentials the
// resource owner already approved, with ErrTokenUsed, and leaves them to
// the client: whoever reaches the deny action with the temporary token
// must not cancel an approved flow.
func TestDenyApproved(t *testing.T) {
	ctx := context.Background()
	for _, callback := range []string{"oob", "https://client.example/cb"} {
		tokens := new(MemoryTemporaryStore)
		p := &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Temporary: tokens, Tokens: new(MemoryTokenStore)}
		temp := TemporaryCredentials{Token: "temp", Secret: "s", ConsumerKey: "key", Callback: callback, Expires: time.Now().Add(time.Minute)}
		if err := tokens.PutTemporary(ctx, temp, time.Now()); err != nil {
			t.Fatal(err)
		}
		_, code, err := p.Authorize(ctx, Approval{Token: "temp", User: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if redirect, err := p.Deny(ctx, "temp"); !errors.Is(err, ErrTokenUsed) {
			t.Errorf("callback %s: Deny(approved) = %q, %v; want ErrTokenUsed", callback, redirect, err)
		}
		got, err := tokens.TakeTemporary(ctx, "temp", time.Now())
		if err != nil || got.VerificationCode != code || got.User != "alice" {
			t.Errorf("callback %s: after Deny(approved), TakeTemporary = %v, %v; want the approval of alice", callback, got, err)
		}
	}
}

// TestDeny checks that Deny uses up temporary credentials not yet approved,
// so that neither an approval nor an exchange follows.
func TestDeny(t *testing.T) {
	ctx := context.Background()
	tokens := new(MemoryTemporaryStore)
	p := &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Temporary: tokens, Tokens: new(MemoryTokenStore)}
	temp := TemporaryCredentials{Token: "temp", Secret: "s", ConsumerKey: "key", Callback: "https://client.example/cb?x=1", Expires: time.Now().Add(time.Minute)}
	if err := tokens.PutTemporary(ctx, temp, time.Now()); err != nil {
		t.Fatal(err)
	}
	redirect, err := p.Deny(ctx, "temp")
	if want := "https://client.example/cb?x=1&oauth_token=temp&oauth_problem=permission_denied"; redirect != want || err != nil {
		t.Errorf("Deny = %q, %v; want %q", redirect, err, want)
	}
	if _, _, err := p.Authorize(ctx, Approval{Token: "temp", User: "alice"}); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("Authorize after Deny: %v, want ErrTokenUsed", err)
	}
	if _, err := tokens.TakeTemporary(ctx, "temp", time.Now()); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("TakeTemporary after Deny: %v, want ErrTokenUsed", err)
	}
	if _, err := p.Deny(ctx, "temp"); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("Deny after Deny: %v, want ErrTokenUsed", err)
	}
	if _, err := p.Deny(ctx, "unknown"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Deny(unknown): %v, want ErrNotFound", err)
	}
}

// TestProviderTestClock checks that a Provider on a test clock, with
// default memory stores, issues temporary credentials that live for
// TemporaryTTL on that clock: the stores decide expiry on the Provider's
// clock, having none of their own.
func TestProviderTestClock(t *testing.T) {
	now := time.Unix(1_300_000_000, 0) // 2011: long before the real clock
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    new(MemoryTokenStore),
		Settings:  Settings{Now: func() time.Time { return now }},
	}
	w := httptest.NewRecorder()
	p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, now, oauth1.Param{Name: "oauth_callback", Value: "oob"}))
	if w.Code != http.StatusOK {
		t.Fatalf("temporary credential request: %d %s", w.Code, w.Body)
	}
	temp := parseCredentials(t, w.Body.String())
	if _, _, err := p.Authorize(context.Background(), Approval{Token: temp.Token, User: "alice"}); err != nil {
		t.Fatalf("Authorize of temporary credentials issued a moment ago on the Provider's clock: %v", err)
	}
}
