package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestProviderMisconfigured checks that a Provider missing Consumers or
// Tokens refuses every request with 500, on every endpoint, two-legged
// requests to protected resources included, and that Observe sees an
// error naming the missing field.
func TestProviderMisconfigured(t *testing.T) {
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	for _, tt := range []struct {
		name  string
		p     *Provider
		field string
	}{
		{"no Consumers", &Provider{Temporary: new(MemoryTemporaryStore), Tokens: new(MemoryTokenStore)}, "Provider.Consumers is nil"},
		{"no Temporary", &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Tokens: new(MemoryTokenStore)}, "Provider.Temporary is nil"},
		{"no Tokens", &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Temporary: new(MemoryTemporaryStore)}, "Provider.Tokens is nil"},
		{"neither", &Provider{}, "Provider.Consumers is nil"},
	} {
		p := tt.p
		p.Settings = Settings{Now: clock, Nonces: new(MemoryNonceStore)}
		var observed []error
		p.Observe = func(_ *http.Request, _ *Verification, err error) { observed = append(observed, err) }
		failsEveryEndpoint(t, p, clock, &observed, tt.name, tt.field, true)
	}
}

// TestSettingsHoldNoStoreOrObserver checks the fact that replaced the
// Provider's check of its Verifier's Store and Observe at first use (a 500
// on every request): Settings, what a Provider shares with a Verifier,
// has no field for a store of credentials or an observer, so that a
// Provider cannot be given one it would ignore.
func TestSettingsHoldNoStoreOrObserver(t *testing.T) {
	st := reflect.TypeFor[Settings]()
	credStore, observer := reflect.TypeFor[CredentialStore](), reflect.TypeFor[func(*http.Request, *Verification, error)]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type == observer || f.Type.Kind() == reflect.Interface && f.Type.Implements(credStore) || f.Name == "Store" || f.Name == "Observe" {
			t.Errorf("Settings has the field %s %v, which a Provider would ignore", f.Name, f.Type)
		}
	}
	if _, ok := reflect.TypeFor[Provider]().FieldByName("Store"); ok {
		t.Error("Provider has a field Store")
	}
}

// TestVerifierObserve checks that Middleware calls the Verifier's Observe
// for every request, before the answer, with what Verify found or why it
// refused: a Verifier without Store says so.
func TestVerifierObserve(t *testing.T) {
	var got []seen
	var rec *httptest.ResponseRecorder
	observe := func(_ *http.Request, v *Verification, err error) {
		got = append(got, seen{v, err, rec.Code != 200 || rec.Body.Len() > 0 || len(rec.Header()) > 0})
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })

	v := &Verifier{Observe: observe}
	rec = httptest.NewRecorder()
	v.Middleware(ok).ServeHTTP(rec, signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "o1"))
	if rec.Code != 500 || len(got) != 1 || got[0].v != nil || got[0].err == nil || !strings.Contains(got[0].err.Error(), "Verifier.Store is nil") || got[0].written {
		t.Errorf("Verifier without Store: %d, Observe saw %+v; want 500, and before it an error naming Verifier.Store", rec.Code, got)
	}

	v = xVerifier()
	v.Observe = observe
	got = nil
	rec = httptest.NewRecorder()
	v.Middleware(ok).ServeHTTP(rec, signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "o2"))
	if rec.Code != 200 || len(got) != 1 || got[0].v == nil || got[0].err != nil || got[0].written {
		t.Errorf("accepted request: %d, Observe saw %+v; want 200 and the Verification, before the answer", rec.Code, got)
	}
	got = nil
	rec = httptest.NewRecorder()
	v.Middleware(ok).ServeHTTP(rec, signed(t, xConfig(), "GET", "https://api.example.com/r", "", "", "o2"))
	var pe *ProblemError
	if rec.Code != 401 || len(got) != 1 || !errors.As(got[0].err, &pe) || pe.Problem != oauth1.ProblemNonceUsed || got[0].written {
		t.Errorf("replayed request: %d, Observe saw %+v; want 401 and nonce_used, before the answer", rec.Code, got)
	}
}

// seen is what one call of Observe saw, and whether the answer was
// written by then.
type seen struct {
	v       *Verification
	err     error
	written bool
}

// failsEveryEndpoint checks that each endpoint of p (with withToken, also a
// resource request signed with a token) answers 500 and that Observe,
// which appends to observed, saw one error saying field.
func failsEveryEndpoint(t *testing.T, p *Provider, clock func() time.Time, observed *[]error, name, field string, withToken bool) {
	t.Helper()
	tok := &oauth1.Credentials{Token: "t", Secret: "s"}
	type endpoint struct {
		name string
		h    http.Handler
		r    *http.Request
	}
	eps := []endpoint{
		{"request token", p.RequestTokenHandler(), providerRequest(t, "http://p.example/request", nil, clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"})},
		{"access token", p.AccessTokenHandler(), providerRequest(t, "http://p.example/access", tok, clock(), oauth1.Param{Name: "oauth_verifier", Value: "v"})},
		{"two-legged resource", p.Middleware(http.NotFoundHandler()), providerRequest(t, "http://p.example/api", nil, clock())},
	}
	if withToken {
		eps = append(eps, endpoint{"resource", p.Middleware(http.NotFoundHandler()), providerRequest(t, "http://p.example/api", tok, clock())})
	}
	for _, ep := range eps {
		*observed = nil
		w := httptest.NewRecorder()
		ep.h.ServeHTTP(w, ep.r)
		if w.Code != http.StatusInternalServerError {
			t.Errorf("%s, %s: %d %s, want 500", name, ep.name, w.Code, w.Body)
		}
		if len(*observed) != 1 || (*observed)[0] == nil || !strings.Contains((*observed)[0].Error(), field) {
			t.Errorf("%s, %s: Observe saw %v, want an error saying %q", name, ep.name, *observed, field)
		}
	}
}
