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

// TestRevokeGrantApprovedTemporary: a user who approves a flow, then
// disconnects the client (Provider.RevokeGrant) before the client
// exchanged the temporary credentials, has disconnected it: the exchange
// is refused with token_revoked and issues no token. Flows of other users
// and other clients, and flows approved after, are untouched.
func TestRevokeGrantApprovedTemporary(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { now = now.Add(time.Second); return now }
	tokens := new(MemoryTokenStore)
	p := &Provider{
		Consumers: Consumers{"key": {Secret: "secret"}, "other": {Secret: "secret"}},
		Temporary: new(MemoryTemporaryStore),
		Tokens:    tokens,
		Settings:  Settings{Now: clock},
	}
	// approve runs a flow up to the user's approval, and returns the
	// temporary credentials and the verification code.
	approve := func(user string) (*oauth1.Credentials, string) {
		t.Helper()
		w := httptest.NewRecorder()
		p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, clock(), oauth1.Param{Name: "oauth_callback", Value: "oob"}))
		if w.Code != http.StatusOK {
			t.Fatalf("temporary credential request: %d %s", w.Code, w.Body)
		}
		temp := parseCredentials(t, w.Body.String())
		_, code, err := p.Authorize(ctx, Approval{Token: temp.Token, User: user})
		if err != nil {
			t.Fatal(err)
		}
		return temp, code
	}
	exchange := func(temp *oauth1.Credentials, code string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		p.AccessTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/access", temp, clock(), oauth1.Param{Name: "oauth_verifier", Value: code}))
		return w
	}

	aliceTemp, aliceCode := approve("alice")
	bobTemp, bobCode := approve("bob")
	n, err := p.RevokeGrant(ctx, "key", "alice")
	if err != nil || n != 1 {
		t.Errorf("RevokeGrant(key, alice) = %d, %v; want 1 (the approved temporary credentials), nil", n, err)
	}
	if w := exchange(aliceTemp, aliceCode); w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "oauth_problem=token_revoked") {
		t.Errorf("exchange after RevokeGrant = %d %q; want 401 token_revoked", w.Code, w.Body)
	}
	if _, err := p.Pending(ctx, aliceTemp.Token); !errors.Is(err, ErrTokenRevoked) {
		t.Errorf("Pending after RevokeGrant: %v, want ErrTokenRevoked", err)
	}
	if n := len(tokens.tokens); n != 0 {
		t.Errorf("%d token credentials stored; want none yet", n)
	}
	// Bob's flow, and one alice approves again, go through.
	if w := exchange(bobTemp, bobCode); w.Code != http.StatusOK {
		t.Errorf("bob's exchange = %d %q; want 200", w.Code, w.Body)
	}
	aliceTemp, aliceCode = approve("alice")
	if w := exchange(aliceTemp, aliceCode); w.Code != http.StatusOK {
		t.Errorf("alice's new exchange = %d %q; want 200", w.Code, w.Body)
	}
	// Nothing approved is left to revoke, and the token is.
	if n, err := p.RevokeGrant(ctx, "key", "alice"); err != nil || n != 1 {
		t.Errorf("second RevokeGrant = %d, %v; want 1 (the token), nil", n, err)
	}
}

// TestMemoryTemporaryRevokeGrant checks MemoryTemporaryStore.RevokeGrant
// alone: only approved, unexchanged credentials of the grant are revoked;
// exchanged and pending ones and those of other grants are not.
func TestMemoryTemporaryRevokeGrant(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1700000000, 0)
	m := new(MemoryTemporaryStore)
	put := func(token, client string) {
		if err := m.PutTemporary(ctx, TemporaryCredentials{Token: token, Secret: "s", ConsumerKey: client, Callback: "oob", Expires: now.Add(time.Minute)}, now); err != nil {
			t.Fatal(err)
		}
	}
	for _, tok := range []string{"approved", "approved2", "pending", "taken", "bob", "otherclient"} {
		client := "key"
		if tok == "otherclient" {
			client = "other"
		}
		put(tok, client)
	}
	for tok, user := range map[string]string{"approved": "alice", "approved2": "alice", "taken": "alice", "bob": "bob", "otherclient": "alice"} {
		if err := m.Authorize(ctx, TemporaryCredentials{Token: tok, User: user, VerificationCode: "code"}, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.TakeTemporary(ctx, "taken", now); err != nil {
		t.Fatal(err)
	}
	if n, err := m.RevokeGrant(ctx, "key", "alice", now); n != 2 || err != nil {
		t.Errorf("RevokeGrant = %d, %v; want 2, nil", n, err)
	}
	for _, tok := range []string{"approved", "approved2"} {
		_, err := m.TakeTemporary(ctx, tok, now)
		if !errors.Is(err, ErrTokenRevoked) || !errors.Is(err, ErrNotFound) {
			t.Errorf("TakeTemporary(%s) after RevokeGrant: %v; want ErrTokenRevoked and ErrNotFound", tok, err)
		}
	}
	if _, err := m.TakeTemporary(ctx, "taken", now); !errors.Is(err, ErrTokenUsed) {
		t.Errorf("TakeTemporary(taken): %v, want ErrTokenUsed", err)
	}
	for _, tok := range []string{"pending", "bob", "otherclient"} {
		if _, err := m.Temporary(ctx, tok, now); err != nil {
			t.Errorf("Temporary(%s) after RevokeGrant: %v; want it untouched", tok, err)
		}
	}
	if n, err := m.RevokeGrant(ctx, "key", "alice", now); n != 0 || !errors.Is(err, ErrNotFound) {
		t.Errorf("second RevokeGrant = %d, %v; want 0, ErrNotFound", n, err)
	}
	// Revoked entries expire with the rest, and leave no index behind.
	m.PutTemporary(ctx, TemporaryCredentials{Token: "later", Expires: now.Add(2 * time.Hour)}, now.Add(time.Hour))
	if len(m.approved) != 0 || len(m.temp) != 1 {
		t.Errorf("after expiry: %d grants listed, %d entries; want 0, 1", len(m.approved), len(m.temp))
	}
}
