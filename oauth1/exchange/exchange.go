package exchange

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
)

// XTokenURL returns X's OAuth 2.0 token endpoint, where its exchange and
// its refreshes go. It is a function, not a constant, for the reason the
// oauth1/providers templates are: the URL is X's, and a v1 release can
// follow X when it moves it, which an exported constant's value, a
// promise, could not.
func XTokenURL() string { return "https://api.x.com/2/oauth2/token" }

// The values of X's exchange request.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	xOAuth1TokenType   = "urn:x:params:oauth:token-type:oauth1_token"
)

// A TokenExchange trades 1.0a credentials for an OAuth 2.0 token in the
// body of an OAuth 2.0 token request, as X does (see the package doc): the
// 1.0a token is the subject_token of an RFC 8693 token exchange, and its
// secret travels as oauth_token_secret. The client authenticates with
// HTTP Basic, or, when ClientSecret is empty, as a public client, with
// client_id in the body.
//
// A TokenExchange is safe for concurrent use; fmt and slog print it with
// the client secret redacted.
type TokenExchange struct {
	// TokenURL is the token endpoint: [XTokenURL] for X, or a sandbox's
	// or a test server's.
	TokenURL string
	// ClientID and ClientSecret are the OAuth 2.0 client's credentials,
	// not the 1.0a consumer's. An empty ClientSecret is a public client.
	ClientID, ClientSecret string
	// Scopes, if any, are sent as scope, space-separated. Without them the
	// provider grants what the user authorized for 1.0a.
	Scopes []string
	// SubjectTokenType is the subject_token_type sent; empty means X's,
	// urn:x:params:oauth:token-type:oauth1_token.
	SubjectTokenType string
	// HTTPClient sends the requests. Nil means the *http.Client that the
	// context of Exchange or TokenSource carries under oauth2.HTTPClient,
	// as x/oauth2 takes it, else http.DefaultClient. Its redirect policy
	// is replaced: no redirect is followed.
	HTTPClient *http.Client
}

// X returns the TokenExchange of X's endpoint, [XTokenURL], for the OAuth
// 2.0 client with this id and secret (an empty secret for a public
// client). X allows an app 10,000 exchanges in 15 minutes.
func X(clientID, clientSecret string) *TokenExchange {
	return &TokenExchange{TokenURL: XTokenURL(), ClientID: clientID, ClientSecret: clientSecret}
}

// Exchange trades tok, a user's 1.0a access token and its secret, for an
// OAuth 2.0 token, with one request; it does not retry. The token's
// Extra holds the answer's other fields, such as scope. A refusal is an
// *Error. For X, the token returned is from then on the only valid pair
// for that user: store it before anything else.
func (e *TokenExchange) Exchange(ctx context.Context, tok oauth1.Credentials) (*oauth2.Token, error) {
	r, err := e.request(ctx, tok)
	if err != nil {
		return nil, err
	}
	return send(e.HTTPClient, r, e.secrets(tok))
}

// request builds the exchange request for tok.
func (e *TokenExchange) request(ctx context.Context, tok oauth1.Credentials) (*http.Request, error) {
	if e.TokenURL == "" {
		return nil, errors.New("exchange: TokenExchange has no TokenURL (exchange.XTokenURL() for X)")
	}
	if e.ClientID == "" {
		return nil, errors.New("exchange: TokenExchange has no ClientID (the OAuth 2.0 client's, not the 1.0a consumer key)")
	}
	if tok.Token == "" || tok.Secret == "" {
		return nil, errors.New("exchange: the 1.0a credentials need both a token and its secret")
	}
	typ := e.SubjectTokenType
	if typ == "" {
		typ = xOAuth1TokenType
	}
	v := url.Values{
		"grant_type":         {grantTokenExchange},
		"subject_token":      {tok.Token},
		"subject_token_type": {typ},
		"oauth_token_secret": {tok.Secret},
	}
	if len(e.Scopes) > 0 {
		v.Set("scope", strings.Join(e.Scopes, " "))
	}
	if e.ClientSecret == "" {
		v.Set("client_id", e.ClientID)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, e.TokenURL, strings.NewReader(v.Encode()))
	if err != nil {
		return nil, errors.New("exchange: bad TokenURL: " + stripQuery(err.Error()))
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Accept", "application/json")
	if e.ClientSecret != "" {
		// RFC 6749 §2.3.1: the id and secret are form-encoded first, as
		// x/oauth2 does for its refreshes.
		r.SetBasicAuth(url.QueryEscape(e.ClientID), url.QueryEscape(e.ClientSecret))
	}
	return r, nil
}

func (e *TokenExchange) secrets(tok oauth1.Credentials) []string {
	return []string{tok.Secret, e.ClientSecret}
}

// TokenSource returns a source of fresh tokens that starts from t, as
// Exchange returned it, and refreshes it at TokenURL with its refresh
// token through x/oauth2's oauth2.Config, authenticating as Exchange does.
// A 429 answer is waited out, as its Retry-After asks, within ctx; a
// refusal is an *Error. Without an HTTPClient, the HTTP client ctx carries
// under oauth2.HTTPClient sends the refreshes.
func (e *TokenExchange) TokenSource(ctx context.Context, t *oauth2.Token) oauth2.TokenSource {
	style := oauth2.AuthStyleInHeader
	if e.ClientSecret == "" {
		style = oauth2.AuthStyleInParams
	}
	cfg := &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: e.TokenURL, AuthStyle: style}}
	return newSource(ctx, cfg, e.HTTPClient, t)
}
