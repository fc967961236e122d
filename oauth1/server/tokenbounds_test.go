package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestMemoryTokenStorePopularClient: a zero MemoryTokenStore takes 70,000
// users of one client, each authorized once, and then every tenth again: the
// bound is per grant, and a client with more users than the old share of
// 65,536 is never refused. Before the fix, the 65,537th PutToken failed
// with ErrStoreFull, for good.
func TestMemoryTokenStorePopularClient(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	var m MemoryTokenStore
	const users = 70_000
	for round := range 2 {
		for i := 0; i < users; i += 1 + 9*round { // then every tenth user again
			tok := TokenCredentials{Token: "t" + strconv.Itoa(round) + "-" + strconv.Itoa(i), Secret: "s", ConsumerKey: "popular", User: "u" + strconv.Itoa(i)}
			if err := m.PutToken(ctx, tok, now); err != nil {
				t.Fatalf("round %d, PutToken for user %d of one client: %v", round, i, err)
			}
		}
	}
	if want := users + users/10; len(m.tokens) != want || m.perClient["popular"] != want || len(m.grants) != users {
		t.Errorf("%d tokens, %d counted for the client, %d grants; want %d, %d, %d", len(m.tokens), m.perClient["popular"], len(m.grants), want, want, users)
	}
	for _, tok := range []string{"t0-0", "t0-69999", "t1-69990"} {
		if _, err := m.Token(ctx, tok, now); err != nil {
			t.Errorf("Token(%s): %v", tok, err)
		}
	}
}

// TestMemoryTokenStoreReauthorize: one user who authorizes one client
// 70,000 times is never refused; the grant keeps its 16 newest tokens, and
// each older one is refused as revoked (ErrTokenRevoked), as any
// revocation. Before the fix, the 65,537th PutToken failed with
// ErrStoreFull and every old token stayed valid.
func TestMemoryTokenStoreReauthorize(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	var m MemoryTokenStore
	const n = 70_000
	for i := range n {
		tok := TokenCredentials{Token: "t" + strconv.Itoa(i), Secret: "s", ConsumerKey: "app", User: "alice"}
		if err := m.PutToken(ctx, tok, now); err != nil {
			t.Fatalf("authorization %d of one user: %v", i+1, err)
		}
	}
	if len(m.tokens) != 16 || m.perClient["app"] != 16 || len(m.grants[grant{"app", "alice"}]) != 16 {
		t.Errorf("%d tokens kept, %d counted, %d in the grant; want 16 each", len(m.tokens), m.perClient["app"], len(m.grants[grant{"app", "alice"}]))
	}
	for i := n - 16; i < n; i++ {
		if _, err := m.Token(ctx, "t"+strconv.Itoa(i), now); err != nil {
			t.Errorf("Token of the %dth newest: %v", n-i, err)
		}
	}
	// The oldest past the bound is revoked; the revocations remembered
	// are the newest 65,536, so the one just past the bound is.
	_, err := m.Token(ctx, "t"+strconv.Itoa(n-17), now)
	if !errors.Is(err, ErrTokenRevoked) || !errors.Is(err, ErrNotFound) {
		t.Errorf("Token of the 17th newest: %v, want ErrTokenRevoked and ErrNotFound", err)
	}
	if c, err := m.RevokeGrant(ctx, "app", "alice", now); c != 16 || err != nil {
		t.Errorf("RevokeGrant = %d, %v; want 16, nil", c, err)
	}
	if len(m.tokens) != 0 || len(m.perClient) != 0 || len(m.grants) != 0 {
		t.Errorf("after RevokeGrant: %d tokens, %d clients, %d grants; want none", len(m.tokens), len(m.perClient), len(m.grants))
	}
}

// TestMemoryTokenStoreBounds: past MaxTokens, or past the opt-in
// MaxTokensPerClient, PutToken for a new grant fails with ErrStoreFull
// (naming the client for its share), while a grant that holds a token
// gives up its own oldest and is served; the tokens of other grants go on
// working, and a revocation frees a place.
func TestMemoryTokenStoreBounds(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	m := &MemoryTokenStore{MaxTokens: 5, MaxTokensPerClient: 3}
	put := func(token, client, user string) error {
		return m.PutToken(ctx, TokenCredentials{Token: token, Secret: "s", ConsumerKey: client, User: user}, now)
	}
	for _, tok := range []string{"h1", "h2", "h3"} {
		if err := put(tok, "hog", "u-"+tok); err != nil {
			t.Fatal(err)
		}
	}
	err := put("h4", "hog", "u-h4")
	if !errors.Is(err, ErrStoreFull) || !strings.Contains(err.Error(), `"hog"`) {
		t.Errorf("PutToken of a new grant past the client's share: %v, want ErrStoreFull naming the client", err)
	}
	// u-h1 authorizes again: h1 goes, h5 comes.
	if err := put("h5", "hog", "u-h1"); err != nil {
		t.Errorf("PutToken of a grant that holds a token, the client's share full: %v", err)
	}
	if _, err := m.Token(ctx, "h1", now); !errors.Is(err, ErrTokenRevoked) {
		t.Errorf("Token(h1), the oldest of its grant, after it made room: %v, want ErrTokenRevoked", err)
	}
	for _, tok := range []string{"h2", "h3", "h5"} {
		if _, err := m.Token(ctx, tok, now); err != nil {
			t.Errorf("Token(%s) with the client's share full: %v", tok, err)
		}
	}
	if err := put("a1", "alice-app", "alice"); err != nil {
		t.Errorf("another client's PutToken with one client's share full: %v", err)
	}
	if err := put("b1", "bob-app", "bob"); err != nil {
		t.Errorf("another client's PutToken: %v", err)
	}
	if err := put("c1", "carol-app", "carol"); !errors.Is(err, ErrStoreFull) {
		t.Errorf("PutToken of a new grant past MaxTokens: %v, want ErrStoreFull", err)
	}
	if err := put("a2", "alice-app", "alice"); err != nil {
		t.Errorf("PutToken of a grant that holds a token, the store full: %v", err)
	}
	if _, err := m.Token(ctx, "a1", now); !errors.Is(err, ErrTokenRevoked) {
		t.Errorf("Token(a1) after its grant made room: %v, want ErrTokenRevoked", err)
	}
	// A revocation, or a grant's, frees places.
	if err := m.Revoke(ctx, "h2", now); err != nil {
		t.Fatal(err)
	}
	if err := put("c1", "carol-app", "carol"); err != nil {
		t.Errorf("PutToken after a revocation: %v", err)
	}
	if n, err := m.RevokeGrant(ctx, "hog", "u-h3", now); n != 1 || err != nil {
		t.Fatalf("RevokeGrant = %d, %v", n, err)
	}
	if err := put("h6", "hog", "u-h6"); err != nil {
		t.Errorf("PutToken after RevokeGrant: %v", err)
	}
	if len(m.perClient) != 4 || m.perClient["hog"] != 2 || len(m.tokens) != 5 {
		t.Errorf("counts %v, %d tokens; want hog 2 of 4 clients, 5 tokens", m.perClient, len(m.tokens))
	}
	// Without MaxTokensPerClient, one client may take the whole store.
	var d MemoryTokenStore
	d.MaxTokens = 100
	for i := range 100 {
		if err := d.PutToken(ctx, TokenCredentials{Token: "x" + strconv.Itoa(i), ConsumerKey: "big", User: strconv.Itoa(i)}, now); err != nil {
			t.Fatalf("PutToken %d with no share: %v", i, err)
		}
	}
}

// TestMemoryTokenStoreRevokeGrantNone: RevokeGrant of a grant with no
// tokens, or revoked already, returns 0 and an error wrapping ErrNotFound.
// Before the fix it returned 0 and nil.
func TestMemoryTokenStoreRevokeGrantNone(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	var m MemoryTokenStore
	if n, err := m.RevokeGrant(ctx, "app", "nobody", now); n != 0 || !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeGrant of no grant = %d, %v; want 0, ErrNotFound", n, err)
	}
	if err := m.PutToken(ctx, TokenCredentials{Token: "t", Secret: "s", ConsumerKey: "app", User: "alice"}, now); err != nil {
		t.Fatal(err)
	}
	if n, err := m.RevokeGrant(ctx, "app", "alice", now); n != 1 || err != nil {
		t.Errorf("RevokeGrant = %d, %v; want 1, nil", n, err)
	}
	if n, err := m.RevokeGrant(ctx, "app", "alice", now); n != 0 || !errors.Is(err, ErrNotFound) {
		t.Errorf("second RevokeGrant = %d, %v; want 0, ErrNotFound", n, err)
	}
}

// testFlow is a Provider on a test clock, and its three-legged flow.
type testFlow struct {
	t    *testing.T
	p    *Provider
	now  time.Time
	pass http.Handler
}

func newTestFlow(t *testing.T, tokens TokenStore) *testFlow {
	f := &testFlow{t: t, now: time.Unix(1700000000, 0), pass: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})}
	f.p = &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  Settings{Now: f.clock},
	}
	return f
}

func (f *testFlow) clock() time.Time { f.now = f.now.Add(time.Second); return f.now }

// approve runs the flow for user up to the approval, and returns the
// temporary credentials and the verification code.
func (f *testFlow) approve(user string) (*oauth1.Credentials, string) {
	f.t.Helper()
	w := httptest.NewRecorder()
	f.p.RequestTokenHandler().ServeHTTP(w, providerRequest(f.t, "http://p.example/request", nil, f.clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"}))
	temp := parseCredentials(f.t, w.Body.String())
	_, code, err := f.p.Authorize(context.Background(), Approval{Token: temp.Token, User: user})
	if err != nil {
		f.t.Fatal(err)
	}
	return temp, code
}

// exchange sends the token request.
func (f *testFlow) exchange(temp *oauth1.Credentials, code string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.p.AccessTokenHandler().ServeHTTP(w, providerRequest(f.t, "http://p.example/access", temp, f.clock(), oauth1.Param{Name: "oauth_verifier", Value: code}))
	return w
}

// api sends a request to a protected resource.
func (f *testFlow) api(tok *oauth1.Credentials) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.p.Middleware(f.pass).ServeHTTP(w, providerRequest(f.t, "http://p.example/api", tok, f.clock()))
	return w
}

// TestProviderTokenStoreFull: with the token store full, a Provider
// answers a new grant's exchange 503 with Retry-After: 10 and stores
// nothing; the users who hold tokens go on using them; and once a
// revocation made room, the client's retry with the same verification
// code gets token credentials. Before the fix the retry got token_used:
// the approval was used up by the refused exchange.
func TestProviderTokenStoreFull(t *testing.T) {
	tokens := &MemoryTokenStore{MaxTokens: 1}
	f := newTestFlow(t, tokens)
	temp, code := f.approve("alice")
	w := f.exchange(temp, code)
	if w.Code != http.StatusOK {
		t.Fatalf("alice's exchange: %d %s", w.Code, w.Body)
	}
	alice := parseCredentials(t, w.Body.String())
	temp, code = f.approve("bob")
	if w := f.exchange(temp, code); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "10" {
		t.Errorf("bob's exchange with the store full = %d %q, Retry-After %q; want 503 with Retry-After 10", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	if len(tokens.tokens) != 1 {
		t.Errorf("%d tokens stored, want alice's alone", len(tokens.tokens))
	}
	if w := f.api(alice); w.Code != http.StatusOK {
		t.Errorf("alice's request with the store full: %d %s", w.Code, w.Body)
	}
	if err := f.p.Revoke(context.Background(), alice.Token); err != nil {
		t.Fatal(err)
	}
	w = f.exchange(temp, code)
	if w.Code != http.StatusOK {
		t.Fatalf("bob's retry with the same verifier after room was made: %d %s, want 200", w.Code, w.Body)
	}
	if w := f.api(parseCredentials(t, w.Body.String())); w.Code != http.StatusOK {
		t.Errorf("bob's request: %d %s", w.Code, w.Body)
	}
	// The retry used them up: one more is token_used.
	if w := f.exchange(temp, code); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "token_used") {
		t.Errorf("a second exchange after the retry: %d %s, want 401 token_used", w.Code, w.Body)
	}
}

// downTokens is a TokenStore that cannot be reached while down is set.
type downTokens struct {
	MemoryTokenStore
	down bool
}

func (d *downTokens) PutToken(ctx context.Context, t TokenCredentials, now time.Time) error {
	if d.down {
		return ErrStoreUnavailable
	}
	return d.MemoryTokenStore.PutToken(ctx, t, now)
}

// TestProviderTokenStoreUnavailable: a token store that cannot be reached
// refuses the exchange 503 with Retry-After: 10, and the retry once it is
// back gets token credentials with the same verification code. Before the
// fix the retry got token_used.
func TestProviderTokenStoreUnavailable(t *testing.T) {
	tokens := &downTokens{down: true}
	f := newTestFlow(t, tokens)
	temp, code := f.approve("alice")
	if w := f.exchange(temp, code); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "10" {
		t.Errorf("exchange with the store down = %d %q, Retry-After %q; want 503, 10", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	tokens.down = false
	w := f.exchange(temp, code)
	if w.Code != http.StatusOK {
		t.Fatalf("retry once the store is back: %d %s, want 200", w.Code, w.Body)
	}
	if w := f.api(parseCredentials(t, w.Body.String())); w.Code != http.StatusOK {
		t.Errorf("API with the token of the retry: %d %s", w.Code, w.Body)
	}
}

// TestProviderReauthorize: one user authorizes one client 1,100 times
// through the Provider: never refused; the 16 newest tokens work, and an
// older one is refused with token_revoked. Before the fix every old token
// kept working, without bound but the client's share.
func TestProviderReauthorize(t *testing.T) {
	f := newTestFlow(t, new(MemoryTokenStore))
	var toks []*oauth1.Credentials
	for i := range 1100 {
		temp, code := f.approve("alice")
		w := f.exchange(temp, code)
		if w.Code != http.StatusOK {
			t.Fatalf("authorization %d: %d %s", i+1, w.Code, w.Body)
		}
		toks = append(toks, parseCredentials(t, w.Body.String()))
	}
	for i, tok := range toks[len(toks)-16:] {
		if w := f.api(tok); w.Code != http.StatusOK {
			t.Errorf("API with the %dth newest token: %d %s", 16-i, w.Code, w.Body)
		}
	}
	for _, tok := range []*oauth1.Credentials{toks[0], toks[len(toks)-17]} {
		if w := f.api(tok); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "oauth_problem=token_revoked") {
			t.Errorf("API with a token past the grant's bound: %d %s, want 401 token_revoked", w.Code, w.Body)
		}
	}
}

// TestProviderRevokeGrantNone: RevokeGrant that matches nothing returns
// 0 and an error wrapping ErrNotFound, as Revoke of an unknown token
// does. Before the fix it returned 0 and nil.
func TestProviderRevokeGrantNone(t *testing.T) {
	f := newTestFlow(t, new(MemoryTokenStore))
	ctx := context.Background()
	if n, err := f.p.RevokeGrant(ctx, "key", "nobody"); n != 0 || !errors.Is(err, ErrNotFound) {
		t.Errorf("RevokeGrant of no grant = %d, %v; want 0, ErrNotFound", n, err)
	}
	temp, code := f.approve("alice")
	if w := f.exchange(temp, code); w.Code != http.StatusOK {
		t.Fatal(w.Body)
	}
	if n, err := f.p.RevokeGrant(ctx, "key", "alice"); n != 1 || err != nil {
		t.Errorf("RevokeGrant = %d, %v; want 1, nil", n, err)
	}
	if n, err := f.p.RevokeGrant(ctx, "key", "alice"); n != 0 || !errors.Is(err, ErrNotFound) {
		t.Errorf("second RevokeGrant = %d, %v; want 0, ErrNotFound", n, err)
	}
}

// TestWriteErrorRetryAfter: every store refusal answered 503 gets the
// same Retry-After, 10 seconds, whichever store and cause. Before the
// fix: 5 for an unavailable store and the memory nonce store, 60 for
// other full stores.
func TestWriteErrorRetryAfter(t *testing.T) {
	for _, err := range []error{ErrStoreUnavailable, ErrStoreFull, errNonceStoreFull, errors.Join(errors.New("storing token credentials"), ErrStoreFull)} {
		w := httptest.NewRecorder()
		new(Verifier).WriteError(w, err)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "10" {
			t.Errorf("WriteError(%v) = %d, Retry-After %q; want 503, 10", err, w.Code, w.Header().Get("Retry-After"))
		}
	}
}

// slowTokens is a MemoryTokenStore whose PutToken takes 20 ms, long enough
// for concurrent exchanges to all read the temporary credentials before
// the first takes them.
type slowTokens struct{ MemoryTokenStore }

func (s *slowTokens) PutToken(ctx context.Context, t TokenCredentials, now time.Time) error {
	time.Sleep(20 * time.Millisecond)
	return s.MemoryTokenStore.PutToken(ctx, t, now)
}

// TestProviderConcurrentExchangeAtBound: 32 concurrent attempts at one
// exchange, for a user whose grant holds its 16 tokens already: one gets
// token credentials, which work, and only the grant's oldest token is
// revoked to make room. (Had every attempt stored a token of its own, the
// attempts that lost would have pushed the grant past its bound and could
// revoke the winner's token, as the Cluster run of redisstore's
// TestExchangeAcrossProviders once did.)
func TestProviderConcurrentExchangeAtBound(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	tokens := new(slowTokens)
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  Settings{Now: func() time.Time { return now }},
	}
	for i := range 16 {
		if err := tokens.MemoryTokenStore.PutToken(ctx, TokenCredentials{Token: "old-" + strconv.Itoa(i), Secret: "s", ConsumerKey: "key", User: "alice"}, now); err != nil {
			t.Fatal(err)
		}
	}
	w := httptest.NewRecorder()
	p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, now, oauth1.Param{Name: "oauth_callback", Value: "oob"}))
	temp := parseCredentials(t, w.Body.String())
	_, code, err := p.Authorize(ctx, Approval{Token: temp.Token, User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]*http.Request, 32)
	for i := range reqs {
		reqs[i] = providerRequest(t, "http://p.example/access", temp, now, oauth1.Param{Name: "oauth_verifier", Value: code})
	}
	recs := make([]*httptest.ResponseRecorder, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		recs[i] = httptest.NewRecorder()
		wg.Go(func() { p.AccessTokenHandler().ServeHTTP(recs[i], r) })
	}
	wg.Wait()
	var won *oauth1.Credentials
	for _, rec := range recs {
		switch {
		case rec.Code == http.StatusOK && won == nil:
			won = parseCredentials(t, rec.Body.String())
		case rec.Code == http.StatusUnauthorized && strings.Contains(rec.Body.String(), "token_used"):
		default:
			t.Errorf("an attempt: %d %s, want one 200 and token_used for the others", rec.Code, rec.Body)
		}
	}
	if won == nil {
		t.Fatal("no attempt got token credentials")
	}
	w = httptest.NewRecorder()
	p.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, providerRequest(t, "http://p.example/api", won, now))
	if w.Code != http.StatusOK {
		t.Errorf("API with the token of the exchange: %d %s", w.Code, w.Body)
	}
	if _, err := tokens.Token(ctx, "old-0", now); !errors.Is(err, ErrTokenRevoked) {
		t.Errorf("the grant's oldest token: %v, want ErrTokenRevoked", err)
	}
	for i := 1; i < 16; i++ {
		if _, err := tokens.Token(ctx, "old-"+strconv.Itoa(i), now); err != nil {
			t.Errorf("the grant's token %d: %v, want it kept", i, err)
		}
	}
}
