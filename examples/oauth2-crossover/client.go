package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-oauth2/oauth2/v4"
	xoauth2 "golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	cserver "github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
)

// ExchangeWithSecret exchanges tok at base in X's shape, with
// golang.org/x/oauth2: its Exchange sends the token request, authenticated
// with HTTP Basic, and the parameters replace the code grant's.
func ExchangeWithSecret(ctx context.Context, base, clientID, clientSecret string, tok oauth1.Credentials, scope string) (*xoauth2.Token, error) {
	conf := ClientConfig(base, clientID, clientSecret)
	opts := []xoauth2.AuthCodeOption{
		xoauth2.SetAuthURLParam("grant_type", tokenexchange.GrantType),
		xoauth2.SetAuthURLParam("subject_token", tok.Token),
		xoauth2.SetAuthURLParam("subject_token_type", tokenexchange.OAuth1TokenType),
		xoauth2.SetAuthURLParam("oauth_token_secret", tok.Secret),
	}
	if scope != "" {
		opts = append(opts, xoauth2.SetAuthURLParam("scope", scope))
	}
	return conf.Exchange(ctx, "", opts...)
}

// ClientConfig is the x/oauth2 configuration of an OAuth 2.0 client of
// the provider at base. Its TokenSource refreshes an exchanged token once
// it expires, with the refresh token the exchange answered.
func ClientConfig(base, clientID, clientSecret string) *xoauth2.Config {
	return &xoauth2.Config{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		Endpoint:     xoauth2.Endpoint{TokenURL: base + "/oauth2/token", AuthStyle: xoauth2.AuthStyleInHeader},
	}
}

// ExchangeSigned exchanges tok at base with a request signed by cfg and
// tok, and reads the answer as x/oauth2 would.
func ExchangeSigned(ctx context.Context, base string, cfg *oauth1.Config, tok oauth1.Credentials, scope string) (*xoauth2.Token, error) {
	form := url.Values{"grant_type": {tokenexchange.GrantType}}
	if scope != "" {
		form.Set("scope", scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := cfg.Client(&tok).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var r struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		TokenType       string `json:"token_type"`
		RefreshToken    string `json:"refresh_token"`
		ExpiresIn       int64  `json:"expires_in"`
		Scope           string `json:"scope"`
		Error           string `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("exchange: %s: %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK || r.AccessToken == "" {
		return nil, fmt.Errorf("exchange: %s: %s", resp.Status, r.Error)
	}
	t := &xoauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, ExpiresIn: r.ExpiresIn}
	if r.ExpiresIn > 0 {
		t.Expiry = time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)
	}
	return t.WithExtra(map[string]any{"scope": r.Scope, "issued_token_type": r.IssuedTokenType}), nil
}

// CallAPI calls the OAuth 2.0 API at base with the tokens of ts.
func CallAPI(ctx context.Context, base string, ts xoauth2.TokenSource) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/2/me", nil)
	if err != nil {
		return "", err
	}
	resp, err := xoauth2.NewClient(ctx, ts).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /2/me: %s", resp.Status)
	}
	return strings.TrimSpace(string(b)), nil
}

// clientStore is the provider's mapping of OAuth 2.0 clients to 1.0a
// consumers, for the Handler.
type clientStore map[string]tokenexchange.Client

func (c clientStore) Client(_ context.Context, id string) (tokenexchange.Client, error) {
	cl, ok := c[id]
	if !ok {
		return tokenexchange.Client{}, fmt.Errorf("%w: client %q", cserver.ErrNotFound, id)
	}
	return cl, nil
}

// forConsumer is the OAuth 2.0 client that succeeds consumerKey.
func (c clientStore) forConsumer(consumerKey string) string {
	for id, cl := range c {
		if cl.ConsumerKey == consumerKey {
			return id
		}
	}
	return ""
}

// credentialStore is the Verifier's view of the provider's 1.0a stores.
type credentialStore struct {
	cserver.Consumers
	tokens cserver.TokenStore
}

func (s credentialStore) TokenCredentials(ctx context.Context, _, token string, now time.Time) (cserver.TokenCredentials, error) {
	return s.tokens.Token(ctx, token, now)
}

// manageRequest is go-oauth2's token request for a grant.
type manageRequest struct {
	ClientID, ClientSecret, UserID, Scope string
}

func (m manageRequest) request() *oauth2.TokenGenerateRequest {
	return &oauth2.TokenGenerateRequest{ClientID: m.ClientID, ClientSecret: m.ClientSecret, UserID: m.UserID, Scope: m.Scope, AccessTokenExp: accessLife}
}
