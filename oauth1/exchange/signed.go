package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
)

// A Format is how a Signed exchange writes its body.
type Format int

const (
	// JSON is a JSON object of strings, as Intuit and Xero take.
	JSON Format = iota
	// Form is application/x-www-form-urlencoded. Its fields are signed
	// with the protocol parameters (RFC 5849 §3.4.1.3.1); a JSON body is
	// not.
	Form
)

// Names are the names of a Signed exchange's body fields. An empty name is
// the default (client_id, client_secret, scope); "-" leaves the field out.
type Names struct {
	ClientID, ClientSecret, Scope string
}

// A Signed exchange trades 1.0a credentials for an OAuth 2.0 token with a
// request that is itself signed with OAuth 1.0a by Config, with the
// consumer's and the token's credentials, and whose body holds the OAuth
// 2.0 client's id, secret and scope, as Intuit and Xero take it (see the
// package doc and the Examples).
//
// A Signed is safe for concurrent use; fmt and slog print it with the
// secrets redacted.
type Signed struct {
	// Config holds the 1.0a consumer credentials and the signature
	// method, and sends the request with its HTTPClient; when that is
	// nil, the *http.Client that the context carries under
	// oauth2.HTTPClient, as x/oauth2 takes it, sends it, else
	// http.DefaultClient. The client's redirect policy is replaced: no
	// redirect is followed.
	Config *oauth1.Config
	// URL is the migration endpoint, with any query the provider wants
	// (Xero's tenantType); the query is signed.
	URL string
	// Method is the HTTP method; empty means POST.
	Method string
	// Body is the body's format; the zero value is JSON.
	Body Format
	// ClientID and ClientSecret are the OAuth 2.0 client's credentials.
	ClientID, ClientSecret string
	// Scopes are sent space-separated in the scope field.
	Scopes []string
	// Names renames the body's fields.
	Names Names
	// Extra holds more body fields, such as Intuit's redirect_uri. A name
	// must not be one of the three fields Names gives.
	Extra map[string]string
	// RefreshURL is the OAuth 2.0 token endpoint the TokenSource
	// refreshes at, which is not the migration endpoint (Intuit's
	// https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer, Xero's
	// https://identity.xero.com/connect/token).
	RefreshURL string
}

func name(n, def string) string {
	if n == "" {
		return def
	}
	return n
}

// Exchange trades tok, a user's 1.0a access token and its secret, for an
// OAuth 2.0 token, with one request; it does not retry. The token's
// Extra holds the answer's other fields (Intuit's realmId, Xero's
// xero_tenant_id, x_refresh_token_expires_in, ...). A refusal is an
// *Error.
func (s *Signed) Exchange(ctx context.Context, tok oauth1.Credentials) (*oauth2.Token, error) {
	r, err := s.request(ctx, tok)
	if err != nil {
		return nil, err
	}
	return send(s.Config.HTTPClient, r, s.secrets(tok))
}

// request builds and signs the exchange request for tok.
func (s *Signed) request(ctx context.Context, tok oauth1.Credentials) (*http.Request, error) {
	if s.Config == nil {
		return nil, errors.New("exchange: Signed has no Config (the 1.0a consumer's)")
	}
	if s.URL == "" {
		return nil, errors.New("exchange: Signed has no URL")
	}
	if tok.Token == "" {
		return nil, errors.New("exchange: the 1.0a credentials have no token")
	}
	fields := map[string]string{}
	set := func(n, def, v string) {
		if n = name(n, def); n != "-" && v != "" {
			fields[n] = v
		}
	}
	set(s.Names.ClientID, "client_id", s.ClientID)
	set(s.Names.ClientSecret, "client_secret", s.ClientSecret)
	set(s.Names.Scope, "scope", strings.Join(s.Scopes, " "))
	for k, v := range s.Extra {
		if _, dup := fields[k]; dup || k == name(s.Names.ClientSecret, "client_secret") {
			return nil, fmt.Errorf("exchange: Extra field %q is one Signed sets itself", k)
		}
		fields[k] = v
	}
	var body []byte
	ct := "application/json"
	switch s.Body {
	case JSON:
		body, _ = json.Marshal(fields) // a map of strings always marshals
	case Form:
		v := url.Values{}
		for k, x := range fields {
			v.Set(k, x)
		}
		body, ct = []byte(v.Encode()), "application/x-www-form-urlencoded"
	default:
		return nil, fmt.Errorf("exchange: unknown body Format %d", s.Body)
	}
	method := s.Method
	if method == "" {
		method = http.MethodPost
	}
	r, err := http.NewRequestWithContext(ctx, method, s.URL, bytes.NewReader(body))
	if err != nil {
		return nil, errors.New("exchange: bad URL or Method: " + stripQuery(err.Error()))
	}
	r.Header.Set("Content-Type", ct)
	r.Header.Set("Accept", "application/json")
	if err := s.Config.Sign(r, &tok); err != nil {
		return nil, fmt.Errorf("exchange: signing the exchange request: %w", err)
	}
	return r, nil
}

func (s *Signed) secrets(tok oauth1.Credentials) []string {
	return []string{tok.Secret, s.Config.ConsumerSecret, s.ClientSecret}
}

// TokenSource returns a source of fresh tokens that starts from t, as
// Exchange returned it, and refreshes it at RefreshURL with its refresh
// token through x/oauth2's oauth2.Config, the client authenticating with
// HTTP Basic (RFC 6749 §2.3.1). A 429 answer is waited out, as its
// Retry-After asks, within ctx; a refusal is an *Error.
func (s *Signed) TokenSource(ctx context.Context, t *oauth2.Token) oauth2.TokenSource {
	cfg := &oauth2.Config{ClientID: s.ClientID, ClientSecret: s.ClientSecret, Endpoint: oauth2.Endpoint{TokenURL: s.RefreshURL, AuthStyle: oauth2.AuthStyleInHeader}}
	var hc *http.Client
	if s.Config != nil {
		hc = s.Config.HTTPClient
	}
	return newSource(ctx, cfg, hc, t)
}
