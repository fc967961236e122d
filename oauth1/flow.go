package oauth1

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/notice"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

// Endpoint holds a provider's URLs for the three-legged flow of RFC 5849
// §2 and the HTTP method of its token requests.
type Endpoint struct {
	RequestTokenURL string // temporary credential request (§2.1)
	AuthorizeURL    string // resource owner authorization (§2.2)
	AccessTokenURL  string // token request (§2.3)

	// TokenMethod is the HTTP method of the requests to RequestTokenURL
	// and AccessTokenURL. Empty means POST, as §2.1 and §2.3 require;
	// E*TRADE wants GET.
	TokenMethod string
}

// maxResponseBytes bounds the token endpoints' answers, which are a few
// hundred bytes of form data.
const maxResponseBytes = 64 << 10

// maxExcerptBytes bounds ResponseError.Body.
const maxExcerptBytes = 1 << 10

// ErrDenied is returned (wrapped) by [ParseCallback] when the provider
// reports that the resource owner refused the authorization.
var ErrDenied = errors.New("oauth1: the resource owner denied access")

// A TokenResponse is a provider's answer to a token request: the
// credentials it issued and the other parameters it sent with them.
type TokenResponse struct {
	// Credentials are the temporary or token credentials issued
	// (oauth_token and oauth_token_secret). They are never nil in a
	// TokenResponse that a Config returns.
	Credentials *Credentials

	// Values holds the other parameters of the response, which carry
	// provider-specific data: X's user_id and screen_name, the
	// oauth_session_handle and oauth_expires_in of the OAuth Session 1.0
	// extension, and the like. It never holds oauth_token or
	// oauth_token_secret, so that it can be logged; it is never nil.
	Values url.Values
}

// RequestToken asks the provider for temporary credentials (RFC 5849
// §2.1), sending c.Callback as oauth_callback ("oob" when it is empty), and
// fails unless the provider confirms the callback with
// oauth_callback_confirmed=true, as OAuth 1.0a requires. An answer with a
// status other than 2xx is a [*ResponseError].
//
// extra holds parameters some providers take here, such as X's
// x_auth_access_type=read. A name starting with "oauth_" is a protocol
// parameter and travels with the others (in the Authorization header by
// default); any other is a request parameter, sent in the form body of the
// POST (in the query when c.Endpoint.TokenMethod is GET). Both are signed.
func (c *Config) RequestToken(ctx context.Context, extra ...Param) (*TokenResponse, error) {
	if c == nil {
		return nil, errors.New("oauth1: nil Config")
	}
	cb := c.Callback
	if cb == "" {
		cb = "oob"
	}
	if err := refuseOwn("temporary credential request", extra, "oauth_callback", "set Config.Callback instead"); err != nil {
		return nil, err
	}
	res, err := c.tokenRequest(ctx, "temporary credential request", c.Endpoint.RequestTokenURL, nil, Param{"oauth_callback", cb}, extra)
	if err != nil {
		return nil, err
	}
	if got := res.Values.Get("oauth_callback_confirmed"); got != "true" {
		return nil, fmt.Errorf("oauth1: temporary credential request: the provider did not answer oauth_callback_confirmed=true (got %q): it may speak OAuth 1.0, not 1.0a", got)
	}
	return res, nil
}

// AuthorizationURL returns the URL to send the resource owner to so that
// they authorize temp (RFC 5849 §2.2): c.Endpoint.AuthorizeURL with
// oauth_token and then extra, in their order, added to its query, which is
// kept. extra holds the parameters some providers want there, such as
// SmugMug's Access and Permissions. temp is the Credentials of the
// [TokenResponse] that [Config.RequestToken] returned; with a nil temp the
// URL carries an empty oauth_token, which no provider accepts.
//
// A provider that names the parameters otherwise is served by writing
// them into AuthorizeURL with the placeholders {oauth_token} and
// {oauth_consumer_key}, which are replaced by temp's token and
// c.ConsumerKey, percent-encoded; oauth_token is then not added. E*TRADE's
// documented "?key={oauth_consumer_key}&token={oauth_token}" is such a URL.
func (c *Config) AuthorizationURL(temp *Credentials, extra ...Param) string {
	u, frag, hasFrag := strings.Cut(c.Endpoint.AuthorizeURL, "#")
	var b []byte
	sep := querySep(u)
	if strings.Contains(u, tokenPlaceholder) {
		b = expandAuthorizeURL(nil, u, temp.token(), c.ConsumerKey)
	} else {
		b = wire.AppendPair(append([]byte(u), sep...), "oauth_token", temp.token())
		sep = "&"
	}
	for _, p := range extra {
		b = wire.AppendPair(append(b, sep...), p.Name, p.Value)
		sep = "&"
	}
	if hasFrag {
		b = append(b, '#')
		b = append(b, frag...)
	}
	return string(b)
}

// querySep returns what goes between u and a parameter appended to it:
// "?" when u has no query, nothing when its query is empty or ends with
// "&", else "&". The query is all that follows the first "?", which may
// hold more "?" ("https://p.example/a??" has the query "?").
func querySep(u string) string {
	_, q, ok := strings.Cut(u, "?")
	switch {
	case !ok:
		return "?"
	case q == "" || strings.HasSuffix(q, "&"):
		return ""
	}
	return "&"
}

// The placeholders of an AuthorizeURL that names the token's parameter itself.
const (
	tokenPlaceholder       = "{oauth_token}"
	consumerKeyPlaceholder = "{oauth_consumer_key}"
)

// expandAuthorizeURL appends u to b with each placeholder replaced by its
// value, percent-encoded, so that no value can add a parameter of its own.
func expandAuthorizeURL(b []byte, u, token, consumerKey string) []byte {
	for {
		i := strings.IndexByte(u, '{')
		if i < 0 {
			return append(b, u...)
		}
		b = append(b, u[:i]...)
		u = u[i:]
		switch {
		case strings.HasPrefix(u, tokenPlaceholder):
			b = percent.AppendEncode(b, token)
			u = u[len(tokenPlaceholder):]
		case strings.HasPrefix(u, consumerKeyPlaceholder):
			b = percent.AppendEncode(b, consumerKey)
			u = u[len(consumerKeyPlaceholder):]
		default:
			b = append(b, '{')
			u = u[1:]
		}
	}
}

// ParseCallback reads the oauth_token and the verification code
// (oauth_verifier) with which the provider sends the resource owner back to
// the callback URL (§2.2). When temp is not nil, the token must be temp's.
//
// A web application passes the temporary credentials of the flow that this
// browser started, found through the browser's session (a cookie set when
// the flow began), never those the callback's token names: anyone can open
// a callback URL, and an attacker who approved a flow with their own
// account can send theirs to a victim, whose session would then be signed
// in as the attacker (login CSRF; see examples/three-legged). Pass nil only
// where the flow is bound to its user otherwise, such as an out-of-band
// flow whose code the user types.
//
// A denial (a "denied" parameter, as X sends, or an oauth_problem) is an
// error wrapping [ErrDenied].
func ParseCallback(r *http.Request, temp *Credentials) (token, code string, err error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return "", "", fmt.Errorf("oauth1: callback: malformed query: %w", err)
	}
	if q.Has("denied") {
		return "", "", fmt.Errorf("%w (denied=%s)", ErrDenied, q.Get("denied"))
	}
	if p := q.Get("oauth_problem"); p != "" {
		return "", "", fmt.Errorf("%w (oauth_problem=%s)", ErrDenied, p)
	}
	token, code = q.Get("oauth_token"), q.Get("oauth_verifier")
	switch {
	case token == "":
		return "", "", errors.New("oauth1: callback: no oauth_token")
	case code == "":
		return "", "", errors.New("oauth1: callback: no oauth_verifier")
	case temp != nil && subtle.ConstantTimeCompare([]byte(token), []byte(temp.Token)) != 1:
		return "", "", fmt.Errorf("oauth1: callback: oauth_token %q is not the temporary token %q", token, temp.Token)
	}
	return token, code, nil
}

// AccessToken exchanges the temporary credentials temp and the verification
// code from the callback (or the PIN the user typed) for token credentials
// (RFC 5849 §2.3); both are required. The code is sent as the protocol
// parameter oauth_verifier, in the Authorization header by default, where
// providers such as Garmin require it. An answer with a status other than
// 2xx is a [*ResponseError].
//
// Token requests follow a redirect only to the scheme, host and port they
// were sent to; a redirect elsewhere is an error, since the request carries
// a signature (and with PLAINTEXT the secrets).
//
// extra holds further parameters, sent as [Config.RequestToken] sends its
// own: oauth_* names as protocol parameters, others in the form body. The
// other exchanges at the access token URL have methods of their own:
// [Config.XAuthToken] and [Config.RenewToken].
func (c *Config) AccessToken(ctx context.Context, temp *Credentials, code string, extra ...Param) (*TokenResponse, error) {
	const what = "token request"
	switch {
	case temp == nil:
		return nil, errors.New("oauth1: token request: nil temporary credentials (Config.XAuthToken exchanges a password, Config.RenewToken renews token credentials)")
	case temp.Token == "":
		return nil, errors.New("oauth1: token request: the temporary credentials have no token")
	case code == "":
		return nil, errors.New("oauth1: token request: empty verification code (the oauth_verifier of the callback, or the PIN the user typed)")
	}
	if err := refuseOwn(what, extra, "oauth_verifier", "pass it as the code argument"); err != nil {
		return nil, err
	}
	return c.tokenRequest(ctx, what, c.Endpoint.AccessTokenURL, temp, Param{"oauth_verifier", code}, extra)
}

// XAuthToken exchanges a user's name and password for token credentials
// with xAuth, the extension of X (and of Instapaper, among others) that
// skips the temporary credentials and the authorization page: a request to
// c.Endpoint.AccessTokenURL signed with the client credentials alone, with
// x_auth_mode=client_auth, x_auth_username and x_auth_password in its form
// body (in its query when c.Endpoint.TokenMethod is GET), where they are
// signed like any form parameter. username and password are required; extra
// is sent as [Config.AccessToken] sends it. An error never holds the
// password.
func (c *Config) XAuthToken(ctx context.Context, username, password string, extra ...Param) (*TokenResponse, error) {
	const what = "xAuth token request"
	switch {
	case username == "":
		return nil, errors.New("oauth1: xAuth token request: empty username")
	case password == "":
		return nil, errors.New("oauth1: xAuth token request: empty password")
	}
	for _, own := range []string{"x_auth_mode", "x_auth_username", "x_auth_password"} {
		if err := refuseOwn(what, extra, own, "XAuthToken sends it from its arguments"); err != nil {
			return nil, err
		}
	}
	params := append([]Param{
		{"x_auth_mode", "client_auth"},
		{"x_auth_username", username},
		{"x_auth_password", password},
	}, extra...)
	return c.tokenRequest(ctx, what, c.Endpoint.AccessTokenURL, nil, Param{}, params)
}

// RenewToken renews token credentials under the OAuth Session 1.0
// extension (Yahoo's, among others): a request to
// c.Endpoint.AccessTokenURL signed with the expired credentials tok and
// carrying, as the protocol parameter oauth_session_handle, the handle of
// the response that issued them (its Values). Both are required; extra is
// sent as [Config.AccessToken] sends it. The new credentials usually come
// with a new handle and oauth_expires_in.
func (c *Config) RenewToken(ctx context.Context, tok *Credentials, sessionHandle string, extra ...Param) (*TokenResponse, error) {
	const what = "token renewal"
	switch {
	case tok == nil:
		return nil, errors.New("oauth1: token renewal: nil token credentials")
	case tok.Token == "":
		return nil, errors.New("oauth1: token renewal: the token credentials have no token")
	case sessionHandle == "":
		return nil, errors.New("oauth1: token renewal: empty session handle (the oauth_session_handle of the response that issued the token)")
	}
	if err := refuseOwn(what, extra, "oauth_session_handle", "pass it as the sessionHandle argument"); err != nil {
		return nil, err
	}
	return c.tokenRequest(ctx, what, c.Endpoint.AccessTokenURL, tok, Param{"oauth_session_handle", sessionHandle}, extra)
}

// refuseOwn refuses an extra parameter named name, which the method sends
// itself; hint says how to set it.
func refuseOwn(what string, extra []Param, name, hint string) error {
	for _, p := range extra {
		if p.Name == name {
			return fmt.Errorf("oauth1: %s: extra parameter %s: %s", what, name, hint)
		}
	}
	return nil
}

// tokenRequest sends a token request signed with tok and the protocol
// parameter p (none when p.Name is empty) plus extra, split as
// RequestToken documents.
func (c *Config) tokenRequest(ctx context.Context, what, rawURL string, tok *Credentials, p Param, extra []Param) (*TokenResponse, error) {
	if c == nil {
		return nil, errors.New("oauth1: nil Config")
	}
	if rawURL == "" {
		return nil, fmt.Errorf("oauth1: %s: the Endpoint has no URL for it", what)
	}
	method := c.Endpoint.TokenMethod
	if method == "" {
		method = http.MethodPost
	}
	proto, req, err := newTokenRequest(ctx, method, rawURL, p, extra)
	if err != nil {
		return nil, fmt.Errorf("oauth1: %s: %w", what, err)
	}
	var signed string
	if err := c.signAt(req, tok, c.now(), c.nonce(), proto, &signed); err != nil {
		return nil, fmt.Errorf("oauth1: %s: %w", what, err)
	}
	client := tokenClient(c.HTTPClient)
	// An error page may echo the request: the signature, and with
	// PLAINTEXT the secrets, are scrubbed from it, and so is an xAuth
	// password.
	secrets := []string{c.ConsumerSecret, tok.secret(), signatureOf(req)}
	for _, p := range extra {
		if sensitiveName(p.Name) {
			secrets = append(secrets, p.Value)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth1: %s: %w", what, stripURLError(err, rawURL))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("oauth1: %s: reading the response: %w", what, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := newResponseError(resp.StatusCode, body, secrets...).from(what, rawURL, c, tok)
		e.retiring = notice.Read(resp.Header).String()
		if len(body) <= maxResponseBytes {
			e.setBaseString(body, signed, secrets...)
		}
		return nil, e
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("oauth1: %s: response larger than %d bytes", what, maxResponseBytes)
	}
	// The answer is form-encoded (§2.1, §2.3). Its text is never quoted in an
	// error: it holds the token secret.
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("oauth1: %s: malformed response (%d bytes, Content-Type %q): %w",
			what, len(body), resp.Header.Get("Content-Type"), err)
	}
	t := &Credentials{Token: v.Get("oauth_token"), Secret: v.Get("oauth_token_secret")}
	if t.Token == "" || !v.Has("oauth_token_secret") {
		return nil, fmt.Errorf("oauth1: %s: the response lacks oauth_token or oauth_token_secret (it has %s)", what, keyList(v))
	}
	// The values are handed on, logged and stored with less care than
	// Credentials, which print redacted: they keep no copy of the token.
	v.Del("oauth_token")
	v.Del("oauth_token_secret")
	return &TokenResponse{Credentials: t, Values: v}, nil
}

// tokenClient returns a copy of hc (http.DefaultClient when nil) that
// follows a redirect only to the scheme, host and port of the token
// endpoint. A token request carries a signature, and with PLAINTEXT the
// secrets themselves, in its header, query or body, and net/http would
// pass on the header to another port or a subdomain, the body on a 307,
// and the header from https to http.
func tokenClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	cl := *hc
	check := hc.CheckRedirect
	cl.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) > 0 && !sameOrigin(via[0].URL, r.URL) {
			return fmt.Errorf("oauth1: the token endpoint redirected to %s, another scheme, host or port; set the Endpoint to the URL that answers",
				stripProtocolQuery(r.URL.String(), ""))
		}
		if check != nil {
			return check(r, via)
		}
		if len(via) >= 10 { // http.Client's default policy
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cl
}

// newResponseError parses body, which may be anything from form data to an
// HTML page.
func newResponseError(status int, body []byte, secrets ...string) *ResponseError {
	e := &ResponseError{StatusCode: status}
	// ParseQuery keeps the pairs it could parse: an HTML page around a
	// problem report still yields it.
	v, _ := url.ParseQuery(string(body))
	e.setProblem(v, cutParam(body), secrets...)
	// A token secret the provider issued is unknown here and may be
	// written in any format: a body that names one is dropped whole.
	if ascii.IndexFold(body, "oauth_token_secret") < 0 {
		// Scrub the whole body, then cut: a cut secret would escape.
		b := scrubEcho(body, secrets...)
		e.Body = b[:min(len(b), maxExcerptBytes):min(len(b), maxExcerptBytes)]
	}
	return e
}

func keyList(v url.Values) string {
	if len(v) == 0 {
		return "no parameters"
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, strconv.Quote(k))
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}
