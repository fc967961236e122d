package tokenexchange

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// equalSecret compares two secrets in constant time, their lengths
// included (it compares their SHA-256). A variable, so that a test can
// see it used.
var equalSecret = func(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// signed reports whether r, whose body is body, carries an OAuth 1.0a
// signature: in an Authorization header of the OAuth scheme, its query
// or its form body (RFC 5849 §3.5).
func signed(r *http.Request, body []byte) bool {
	auth := r.Header.Get("Authorization")
	if len(auth) >= 6 && strings.EqualFold(auth[:6], "OAuth ") {
		return true
	}
	if r.URL != nil && strings.Contains(r.URL.RawQuery, "oauth_signature=") {
		return true
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/x-www-form-urlencoded" || !bytes.Contains(body, []byte("oauth_signature=")) {
		return false
	}
	vs, err := url.ParseQuery(string(body))
	return err == nil && vs.Has("oauth_signature")
}

// params reads the parameters of r's body: a form (RFC 6749 §3.2), or,
// for signed requests only, a JSON object of strings. A parameter sent
// twice is refused (RFC 6749 §3.2); one sent empty counts as absent.
func params(r *http.Request, allowJSON bool) (map[string]string, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, refuseCause(codeInvalidRequest, "the request body is unreadable or over 64 KiB", err)
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	out := make(map[string]string)
	switch {
	case ct == "application/json" && allowJSON:
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, refuse(codeInvalidRequest, "the JSON body is not an object")
		}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return nil, refuse(codeInvalidRequest, "a JSON parameter is not a string")
			}
			if s != "" {
				out[k] = s
			}
		}
	case ct == "application/x-www-form-urlencoded" || (ct == "" && len(body) == 0):
		vs, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, refuse(codeInvalidRequest, "the form body is malformed")
		}
		for k, v := range vs {
			if len(v) > 1 {
				return nil, refuse(codeInvalidRequest, "a parameter is repeated")
			}
			if v[0] != "" {
				out[k] = v[0]
			}
		}
	default:
		return nil, refuse(codeInvalidRequest, "the body must be application/x-www-form-urlencoded")
	}
	return out, nil
}

// checkCommon checks the parameters of RFC 8693 §2.1 that both shapes
// share; grant_type is required when required is set.
func checkCommon(p map[string]string, required bool) error {
	switch gt, ok := p["grant_type"]; {
	case !ok && required:
		return refuse(codeInvalidRequest, "grant_type is missing")
	case ok && gt != GrantType:
		return refuse(codeUnsupportedGrantType, "the grant_type must be "+GrantType)
	}
	if _, ok := p["actor_token"]; ok {
		return refuse(codeInvalidRequest, "delegation (actor_token) is not supported")
	}
	if _, ok := p["actor_token_type"]; ok {
		return refuse(codeInvalidRequest, "delegation (actor_token_type) is not supported")
	}
	if _, ok := p["resource"]; ok {
		return refuse(codeInvalidTarget, "this endpoint issues tokens for this provider only")
	}
	if _, ok := p["audience"]; ok {
		return refuse(codeInvalidTarget, "this endpoint issues tokens for this provider only")
	}
	if rt, ok := p["requested_token_type"]; ok && rt != accessType {
		return refuse(codeInvalidRequest, "the requested_token_type must be "+accessType)
	}
	if tt, ok := p["subject_token_type"]; ok && tt != OAuth1TokenType && tt != accessType {
		return refuse(codeInvalidRequest, "the subject_token_type must be "+OAuth1TokenType)
	}
	return nil
}

// authenticate authenticates the OAuth 2.0 client of r (RFC 6749 §2.3.1):
// HTTP Basic, or client_id and client_secret in the body. It returns nil
// when r names no client and optional is set. scheme is the challenge of
// an invalid_client answer.
func (h *Handler) authenticate(ctx context.Context, r *http.Request, p map[string]string, optional bool) (c *Client, scheme string, err error) {
	var cr basicCredentials
	id, secret, basic := r.BasicAuth()
	if basic {
		scheme = realmFallback
		cr = formDecoded(id, secret)
		id, secret = cr.id, cr.secret
		if id == "" {
			return nil, scheme, refuse(codeInvalidClient, "the Basic credentials are malformed")
		}
		if _, ok := p["client_secret"]; ok {
			return nil, scheme, refuse(codeInvalidRequest, "client credentials in the header and the body")
		}
		if bid, ok := p["client_id"]; ok && bid != id && bid != cr.rawID {
			return nil, scheme, refuse(codeInvalidRequest, "two client_id values")
		}
	} else if a := r.Header.Get("Authorization"); a != "" && !strings.HasPrefix(strings.ToLower(a), "oauth ") {
		return nil, realmFallback, refuse(codeInvalidClient, "client authentication takes HTTP Basic")
	} else {
		id, secret = p["client_id"], p["client_secret"]
		if id == "" {
			if optional && secret == "" {
				return nil, "", nil
			}
			return nil, "", refuse(codeInvalidClient, "the client did not authenticate")
		}
	}
	if h.Clients == nil {
		return nil, scheme, refuse(codeInvalidClient, "this endpoint takes no OAuth 2.0 client credentials")
	}
	got, err := h.Clients.Client(ctx, id)
	if errors.Is(err, server.ErrNotFound) && basic && cr.rawID != id {
		got, err = h.Clients.Client(ctx, cr.rawID) // an id with '+' or '%' sent as it is
	}
	switch {
	case errors.Is(err, server.ErrNotFound):
		return nil, scheme, refuseCause(codeInvalidClient, clientFailed(basic), err)
	case err != nil:
		return nil, scheme, storeRefusal(err)
	}
	// A public client sends no secret; a confidential one, its own. Every
	// comparison is made, so that the answer takes as long either way.
	var ok bool
	if basic {
		ok = cr.matches(got.Secret)
	} else {
		ok = equalSecret(secret, got.Secret)
	}
	if got.Secret == "" {
		ok = secret == ""
	} else if secret == "" {
		ok = false
	}
	if !ok {
		return nil, scheme, refuseCause(codeInvalidClient, clientFailed(basic), errSecretMismatch)
	}
	return &got, scheme, nil
}

// serveSecret serves X's shape: the 1.0a token and its secret in the
// body, and OAuth 2.0 client authentication.
func (h *Handler) serveSecret(r *http.Request) (*answer, Grant, string, error) {
	ctx := r.Context()
	p, err := params(r, false)
	if err != nil {
		return nil, Grant{}, "", err
	}
	if err := checkCommon(p, true); err != nil {
		return nil, Grant{}, "", err
	}
	token, secret := p["subject_token"], p["oauth_token_secret"]
	switch {
	case token == "":
		return nil, Grant{}, "", refuse(codeInvalidRequest, "subject_token is missing")
	case p["subject_token_type"] == "":
		return nil, Grant{}, "", refuse(codeInvalidRequest, "subject_token_type is missing")
	case secret == "":
		return nil, Grant{}, "", refuse(codeInvalidRequest, "oauth_token_secret is missing")
	}
	if h.Clients == nil {
		return nil, Grant{}, "", refuse(codeInvalidRequest, "this endpoint takes OAuth-1-signed exchanges only")
	}
	c, scheme, err := h.authenticate(ctx, r, p, false)
	if err != nil {
		return nil, Grant{}, scheme, err
	}
	g := Grant{ConsumerKey: c.ConsumerKey, ClientID: c.ID, Token: token}
	rec, err := h.Tokens.Token(ctx, token, h.now())
	if err != nil && !errors.Is(err, server.ErrNotFound) {
		return nil, g, "", storeRefusal(err)
	}
	// One answer, and a comparison, whether the token is unknown, revoked,
	// another client's or its secret wrong: a client learns nothing of
	// the tokens it does not hold.
	secretOK := equalSecret(secret, rec.Secret) && rec.Secret != ""
	if err != nil || !secretOK || rec.ConsumerKey != c.ConsumerKey {
		return nil, g, "", refuseSubject(badGrant, err)
	}
	if err := h.checkConsumer(ctx, rec.ConsumerKey); err != nil {
		return nil, g, "", err
	}
	g.User = rec.User
	if g.Scope, err = narrow(p["scope"], rec.Scope); err != nil {
		return nil, g, "", err
	}
	a, err := h.exchange(ctx, &g, secret)
	return a, g, "", err
}

// badGrant is the description of every refused token of X's shape.
const badGrant = "the token is unknown or revoked, its secret wrong, or it was issued to another client"

// checkConsumer refuses the grant of a 1.0a client that is no longer
// registered, when the Handler knows the clients.
func (h *Handler) checkConsumer(ctx context.Context, consumerKey string) error {
	if h.Consumers == nil {
		return nil
	}
	_, err := h.Consumers.Consumer(ctx, consumerKey, h.now())
	switch {
	case errors.Is(err, server.ErrNotFound):
		return refuseSubject("the grant's client is no longer registered", err)
	case err != nil:
		return storeRefusal(err)
	}
	return nil
}

// credentials is the CredentialStore of the Handler's Verifier: its
// Consumers, and token credentials from its Tokens.
type credentials struct {
	server.ConsumerStore
	tokens server.TokenStore
}

func (c credentials) TokenCredentials(ctx context.Context, _, token string, now time.Time) (server.TokenCredentials, error) {
	return c.tokens.Token(ctx, token, now)
}

// serveSigned serves an OAuth-1-signed exchange: the 1.0a signature of
// the consumer and the token is the proof of the grant, verified with the
// Verifier's every check (timestamp, nonce, token credentials live).
func (h *Handler) serveSigned(r *http.Request) (*answer, Grant, string, error) {
	if h.Consumers == nil {
		return nil, Grant{}, "", refuse(codeInvalidRequest, "this endpoint takes no OAuth-1-signed exchanges")
	}
	ctx := r.Context()
	set := h.Settings
	set.RequireToken = true
	v := server.Verifier{Store: credentials{h.Consumers, h.Tokens}, Settings: set}
	ver, err := v.Verify(r)
	if err != nil {
		return nil, Grant{}, oauthChallenge(h.Settings.Realm), verifyRefusal(err)
	}
	g := Grant{ConsumerKey: ver.ConsumerKey, User: ver.User, Token: ver.Token}
	p, err := params(r, true)
	if err != nil {
		return nil, g, "", err
	}
	for k := range p {
		if strings.HasPrefix(k, "oauth_") && k != "oauth_token_secret" {
			delete(p, k) // protocol parameters of a signed form body
		}
	}
	if _, ok := p["oauth_token_secret"]; ok {
		return nil, g, "", refuse(codeInvalidRequest, "a signed exchange sends no token secret")
	}
	if err := checkCommon(p, false); err != nil {
		return nil, g, "", err
	}
	if st, ok := p["subject_token"]; ok && st != ver.Token {
		return nil, g, "", refuse(codeInvalidRequest, "the subject_token is not the token that signed the request")
	}
	c, scheme, err := h.authenticate(ctx, r, p, true)
	if err != nil {
		return nil, g, scheme, err
	}
	if c != nil {
		if c.ConsumerKey != ver.ConsumerKey {
			return nil, g, "", refuseSubject("the grant was issued to another client", nil)
		}
		g.ClientID = c.ID
	}
	if g.Scope, err = narrow(p["scope"], ver.Scope); err != nil {
		return nil, g, "", err
	}
	rec, err := h.Tokens.Token(ctx, ver.Token, h.now()) // its secret keys the sealed answer
	switch {
	case errors.Is(err, server.ErrNotFound):
		return nil, g, "", refuseSubject("the token is unknown or revoked", err)
	case err != nil:
		return nil, g, "", storeRefusal(err)
	}
	a, err := h.exchange(ctx, &g, rec.Secret)
	return a, g, "", err
}

// oauthChallenge is the WWW-Authenticate of a refused signature.
func oauthChallenge(realm string) string {
	return `OAuth realm="` + printable(realm) + `"`
}

// verifyRefusal is the RFC 6749 answer to a Verifier's refusal: the token
// (the subject_token) refused and a malformed request are invalid_request
// (RFC 8693 §2.2.2), and a signature, consumer, timestamp or nonce refused
// is a client that failed to authenticate, invalid_client, with 401.
func verifyRefusal(err error) *Error {
	var pe *server.ProblemError
	switch {
	case errors.As(err, &pe):
		d := "OAuth 1.0a: " + string(pe.Problem)
		switch pe.Problem {
		case oauth1.ProblemTokenRejected, oauth1.ProblemTokenRevoked, oauth1.ProblemTokenUsed,
			oauth1.ProblemPermissionUnknown, oauth1.ProblemPermissionDenied:
			return refuseSubject(d, err)
		case oauth1.ProblemParameterAbsent, oauth1.ProblemParameterRejected, oauth1.ProblemVersionRejected,
			oauth1.ProblemBodyHashInvalid:
			return refuseCause(codeInvalidRequest, d, err)
		case oauth1.ProblemInternalError:
			return refuseCause(codeServerError, "", err)
		}
		return refuseCause(codeInvalidClient, d, err)
	case errors.Is(err, oauth1.ErrBodyTooLarge):
		return refuseCause(codeInvalidRequest, "the request body is over its limit", err)
	}
	return storeRefusal(err)
}

// narrow returns the scope asked for, which may only narrow the grant's
// (RFC 6749 §3.3): every value of asked must be one of granted's, or the
// answer is invalid_scope. An empty asked is granted.
func narrow(asked, granted string) (string, error) {
	if asked == "" {
		return granted, nil
	}
	have := make(map[string]bool)
	for _, s := range strings.Split(granted, " ") {
		if s != "" {
			have[s] = true
		}
	}
	var out []string
	seen := make(map[string]bool)
	for _, s := range strings.Split(asked, " ") {
		switch {
		case s == "" || seen[s]:
			continue
		case !scopeToken(s):
			return "", refuse(codeInvalidScope, "the scope is malformed")
		case !have[s]:
			return "", refuse(codeInvalidScope, "the scope asked for is wider than the grant's")
		}
		seen[s] = true
		out = append(out, s)
	}
	if len(out) == 0 {
		return granted, nil
	}
	return strings.Join(out, " "), nil
}

// scopeToken reports whether s is a scope-token of RFC 6749 §3.3:
// 1*( %x21 / %x23-5B / %x5D-7E ).
func scopeToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
