package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// defaultTemporaryTTL is how long temporary credentials live when
// Provider.TemporaryTTL is zero: time for the resource owner to sign in and
// approve.
const defaultTemporaryTTL = 10 * time.Minute

// A Provider issues credentials: it implements the temporary credential
// request (RFC 5849 §2.1) and the token request (§2.3) as HTTP handlers,
// and the steps of the resource owner authorization (§2.2) that the
// provider's own consent page calls, [Provider.Authorize] and
// [Provider.Deny], after [Provider.Pending] has shown the owner who asks.
// Consumers supplies the client registrations, Temporary keeps the
// temporary credentials it issues and Tokens the token credentials:
//
//	p := &server.Provider{
//		Consumers: consumers,
//		Temporary: new(server.MemoryTemporaryStore),
//		Tokens:    new(server.MemoryTokenStore),
//	}
//	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
//	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
//	mux.HandleFunc("/oauth/authorize", consentPage) // calls p.Pending, then p.Authorize or p.Deny
//	mux.Handle("/api/", p.Middleware(api))
//
// The Provider verifies requests itself, with its Settings: consumer
// keys are looked up in Consumers and tokens in Tokens, token credentials
// only, except for the token request, which is signed with temporary
// credentials, looked up in Temporary. So a request to a protected
// resource signed with temporary credentials is refused (token_rejected;
// the error Observe sees says why). The [Verification] of a request
// signed with token credentials names their User and Scope.
// [Provider.Revoke] and [Provider.RevokeGrant] revoke token credentials,
// at once: a request signed with them is then refused with token_revoked,
// for as long as Tokens remembers the revocation, then with
// token_rejected.
//
// A grant has a scope, what the client may do with it, which the Provider
// carries without reading it: Scope, if set, decides it from the
// temporary credential request (from a scope parameter, say, as Google's
// OAuth 1.0 endpoints took one, or from the client); the consent page
// reads it with [Provider.Pending] and may narrow it in the [Approval];
// the token credentials keep it, and the Verification of every request
// signed with them has it.
//
// Temporary credentials are exchanged once. The token request takes them
// from the store before it compares the verification code, so a wrong code
// uses them up too: whoever holds temporary credentials without the code
// (an attacker who started the flow and lured a victim into approving)
// gets a single guess. A second exchange is answered token_used, as is a
// request signed with temporary credentials already exchanged, before its
// signature is checked: that says no more than that the token was used.
// OAuth 1.0 clients, which send no oauth_verifier, are not supported.
//
// A Provider is safe for concurrent use; its fields must not be changed
// after first use, and it must not be copied.
type Provider struct {
	// Consumers looks up client registrations by consumer key.
	// [Consumers] is a map that is one.
	Consumers ConsumerStore

	// Temporary keeps temporary credentials, and Tokens token
	// credentials. Both are required; a service with several instances
	// needs shared stores. The Provider passes every call its clock, Now.
	//
	// A Provider without Consumers, Temporary or Tokens answers every
	// request with 500, and Observe sees an error naming the field.
	Temporary TemporaryStore
	Tokens    TokenStore

	// Settings are how the Provider verifies requests: the clock, window,
	// signature methods, nonce store, realm and the rest; the zero value
	// means the defaults. RequireToken applies to Middleware only. The
	// clock, Now, also dates the temporary credentials, and is passed to
	// the stores. With Nonces nil, the Provider's endpoints use the
	// process's default nonce store, as every Verifier with Nonces nil
	// does: a nonce used at one endpoint is used at all, and at every other
	// Provider and Verifier.
	//
	// The Provider reads its Settings once, at first use, and keeps a
	// copy: like its other fields, they must not be changed afterwards,
	// and a change would have no effect.
	Settings

	// TemporaryTTL is how long temporary credentials live; zero means ten
	// minutes, time for the resource owner to sign in and approve.
	TemporaryTTL time.Duration

	// CheckCallback, if set, vets oauth_callback for the client
	// consumerKey, once the Provider's own policy has accepted it; an
	// error refuses the request with parameter_rejected.
	//
	// The Provider's policy accepts "oob" and absolute URLs of at most
	// 2048 bytes, printable ASCII (an internationalized host goes as
	// punycode), without userinfo, fragment, percent-encoded control
	// characters (CR and LF among them), or oauth_token, oauth_verifier or
	// oauth_problem in the query: http and https URLs with a host, and
	// URLs of the schemes listed in the client's
	// [Registration].CallbackSchemes, as native apps use. Schemes that run
	// what the URL holds (javascript, data, blob, file and the like) are
	// refused even when listed. A client whose [Registration].Callbacks is
	// not empty may use only the callbacks that match one of them.
	CheckCallback func(ctx context.Context, consumerKey, callback string) error

	// Scope, if set, returns the scope of the temporary credential
	// request r, which the Provider has verified (v): what the client asks
	// to do, read from a parameter of r (r.FormValue reads the query and
	// the form body, both signed) or decided from v.ConsumerKey. An error
	// refuses the request with parameter_rejected, or with its own
	// problem if it is a [*ProblemError]; so does a scope longer than
	// 1024 bytes, with a control character or not UTF-8. Nil means every
	// grant has an empty scope. The scope goes to the temporary
	// credentials (see [Provider.Pending]), then, as the owner approved it,
	// to the token credentials and the Verification of the requests they
	// sign.
	Scope func(r *http.Request, v *Verification) (string, error)

	// TokenValues, if set, returns values to send with new token
	// credentials, such as user_id and screen_name. They may not include
	// oauth_token or oauth_token_secret. An error fails the request with
	// 500 and stores nothing.
	TokenValues func(ctx context.Context, t TokenCredentials) (url.Values, error)

	// Observe, if set, is called for every request the handlers and
	// Middleware verify, before the answer is written: v is what Verify
	// found, nil if it refused the request; err is the refusal, if any,
	// also one after verification (a wrong verification code, say), or the
	// misconfiguration that failed it. A [*ProblemError]'s BaseString,
	// KeyMistake and Err, never sent to the client, are worth logging
	// here.
	Observe func(r *http.Request, v *Verification, err error)

	once sync.Once
	// forResources verifies requests to protected resources, forIssue the
	// temporary credential request and forExchange the token request:
	// Verifiers with the Provider's Settings that differ in their Store
	// and RequireToken.
	forResources, forIssue, forExchange Verifier
}

// verifiers makes the Provider's Verifiers, once.
func (p *Provider) verifiers() {
	p.once.Do(func() {
		p.forResources = Verifier{Settings: p.Settings, Store: providerStore{p: p}}
		p.forIssue = p.forResources
		p.forIssue.RequireToken = false // the temporary credential request has no token
		p.forExchange = p.forIssue
		p.forExchange.Store = providerStore{p: p, temporary: true}
		p.forResources.Store = resourceStore{p.forResources.Store, p}
	})
}

// now is the Provider's clock, Now as it was at first use.
func (p *Provider) now() time.Time {
	p.verifiers()
	return p.forResources.now()
}

// misconfigured names a required field that is not set: a Provider
// without it fails every request, even those that would not need it, so
// that the mistake shows at once.
func (p *Provider) misconfigured() error {
	switch {
	case p.Consumers == nil:
		return errNoConsumers
	case p.Temporary == nil:
		return errNoTemporary
	case p.Tokens == nil:
		return errNoTokens
	}
	return nil
}

var (
	errNoConsumers = errors.New("oauth1: Provider.Consumers is nil")
	errNoTemporary = errors.New("oauth1: Provider.Temporary is nil")
	errNoTokens    = errors.New("oauth1: Provider.Tokens is nil")
)

// Middleware verifies requests to protected resources, signed with token
// credentials the Provider issued or, unless RequireToken is set,
// with client credentials alone (two-legged), and passes them on to next
// with the [Verification] in their context (see [FromContext]).
func (p *Provider) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.verifiers()
		if v := p.verify(&p.forResources, w, r, nil); v != nil {
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verificationKey{}, v)))
		}
	})
}

// RequestTokenHandler returns the handler of the temporary credential
// request (§2.1). It verifies the request, which carries no token,
// requires oauth_callback ("oob" or an absolute URL, vetted by
// CheckCallback), stores new random temporary credentials until
// TemporaryTTL from now, and answers oauth_token, oauth_token_secret and
// oauth_callback_confirmed=true.
func (p *Provider) RequestTokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.verifiers()
		var t TemporaryCredentials
		v := p.verify(&p.forIssue, w, r, func(v *Verification) error {
			var err error
			t, err = p.issueTemporary(r, v)
			return err
		})
		if v != nil {
			writeForm(w, []oauth1.Param{{Name: "oauth_token", Value: t.Token}, {Name: "oauth_token_secret", Value: t.Secret}, {Name: "oauth_callback_confirmed", Value: "true"}})
		}
	})
}

// issueTemporary checks the temporary credential request r, verified as
// v, and stores new temporary credentials for it.
func (p *Provider) issueTemporary(r *http.Request, v *Verification) (TemporaryCredentials, error) {
	ctx := r.Context()
	if v.Token != "" {
		return TemporaryCredentials{}, problem(oauth1.ProblemParameterRejected, errors.New("a temporary credential request carries no token"), "oauth_token")
	}
	if err := p.checkCallback(ctx, v); err != nil {
		return TemporaryCredentials{}, err
	}
	scope, err := p.scope(r, v)
	if err != nil {
		return TemporaryCredentials{}, err
	}
	if p.Temporary == nil {
		return TemporaryCredentials{}, errNoTemporary
	}
	ttl := p.TemporaryTTL
	if ttl <= 0 {
		ttl = defaultTemporaryTTL
	}
	now := p.forIssue.now()
	t := TemporaryCredentials{
		Token: rand.Text(), Secret: rand.Text(), ConsumerKey: v.ConsumerKey,
		Callback: param(v.Params, "oauth_callback"), Expires: now.Add(ttl), Scope: scope,
	}
	if err := p.Temporary.PutTemporary(ctx, t, now); err != nil {
		return TemporaryCredentials{}, fmt.Errorf("oauth1: storing temporary credentials: %w", err)
	}
	return t, nil
}

// checkCallback checks the oauth_callback of v against the Provider's
// policy, the client's registration and CheckCallback.
func (p *Provider) checkCallback(ctx context.Context, v *Verification) error {
	cb := param(v.Params, "oauth_callback")
	if cb == "" {
		return problem(oauth1.ProblemParameterAbsent, nil, "oauth_callback")
	}
	reg, err := p.Consumers.Consumer(ctx, v.ConsumerKey, p.now())
	if err != nil {
		return fmt.Errorf("oauth1: looking up the consumer key: %w", err)
	}
	if err := validCallback(cb, reg.CallbackSchemes); err != nil {
		return problem(oauth1.ProblemParameterRejected, err, "oauth_callback")
	}
	if len(reg.Callbacks) > 0 {
		if err := matchCallback(reg.Callbacks, cb); err != nil {
			return problem(oauth1.ProblemParameterRejected, err, "oauth_callback")
		}
	}
	if p.CheckCallback != nil {
		if err := p.CheckCallback(ctx, v.ConsumerKey, cb); err != nil {
			return problem(oauth1.ProblemParameterRejected, err, "oauth_callback")
		}
	}
	return nil
}

// maxScopeLen bounds the scope a Provider hands to its stores.
const maxScopeLen = 1024

// scope returns what Provider.Scope decides for r, checked.
func (p *Provider) scope(r *http.Request, v *Verification) (string, error) {
	if p.Scope == nil {
		return "", nil
	}
	scope, err := p.Scope(r, v)
	var pe *ProblemError
	switch {
	case errors.As(err, &pe):
		return "", err
	case err != nil:
		return "", problem(oauth1.ProblemParameterRejected, fmt.Errorf("Provider.Scope: %w", err))
	case len(scope) > maxScopeLen || !lookupable(scope):
		return "", problem(oauth1.ProblemParameterRejected, fmt.Errorf("Provider.Scope returned a scope longer than %d bytes, with a control character or not UTF-8", maxScopeLen))
	}
	return scope, nil
}

// AccessTokenHandler returns the handler of the token request (§2.3). It
// verifies the request, signed with temporary credentials, takes them from
// the store (once: of concurrent requests one gets token credentials, the
// others token_used), compares oauth_verifier in constant time, stores new
// random token credentials for the approving user, and answers
// oauth_token, oauth_token_secret and the TokenValues.
//
// Refusals: parameter_absent without oauth_token or oauth_verifier;
// token_rejected for unknown or expired temporary credentials or those of
// another client; token_used once exchanged (or denied);
// permission_unknown before the owner approved; parameter_rejected
// (oauth_verifier) for a wrong verification code.
func (p *Provider) AccessTokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.verifiers()
		ctx := r.Context()
		var tok TokenCredentials
		var extra url.Values
		v := p.verify(&p.forExchange, w, r, func(v *Verification) error {
			var err error
			tok, extra, err = p.exchange(ctx, v)
			return err
		})
		if v == nil {
			return
		}
		ps := []oauth1.Param{{Name: "oauth_token", Value: tok.Token}, {Name: "oauth_token_secret", Value: tok.Secret}}
		keys := make([]string, 0, len(extra))
		for k := range extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			for _, val := range extra[k] {
				ps = append(ps, oauth1.Param{Name: k, Value: val})
			}
		}
		writeForm(w, ps)
	})
}

// exchange turns the verified token request v into token credentials.
func (p *Provider) exchange(ctx context.Context, v *Verification) (TokenCredentials, url.Values, error) {
	var absent []string
	if v.Token == "" {
		absent = append(absent, "oauth_token")
	}
	code := param(v.Params, "oauth_verifier")
	if code == "" {
		absent = append(absent, "oauth_verifier")
	}
	if len(absent) > 0 {
		return TokenCredentials{}, nil, problem(oauth1.ProblemParameterAbsent, nil, absent...)
	}
	if p.Temporary == nil || p.Tokens == nil {
		return TokenCredentials{}, nil, p.misconfigured()
	}
	now := p.now()
	t, err := p.Temporary.TakeTemporary(ctx, v.Token, now)
	switch {
	case errors.Is(err, ErrTokenUsed):
		return TokenCredentials{}, nil, problem(oauth1.ProblemTokenUsed, err)
	case errors.Is(err, ErrNotFound):
		return TokenCredentials{}, nil, problem(oauth1.ProblemTokenRejected, err)
	case err != nil:
		return TokenCredentials{}, nil, fmt.Errorf("oauth1: taking temporary credentials: %w", err)
	case t.ConsumerKey != v.ConsumerKey:
		return TokenCredentials{}, nil, problem(oauth1.ProblemTokenRejected, errors.New("temporary credentials of another client"))
	case t.VerificationCode == "":
		return TokenCredentials{}, nil, problem(oauth1.ProblemPermissionUnknown, errors.New("the resource owner has not approved"))
	case subtle.ConstantTimeCompare([]byte(t.VerificationCode), []byte(code)) != 1:
		return TokenCredentials{}, nil, problem(oauth1.ProblemParameterRejected, errors.New("wrong verification code"), "oauth_verifier")
	}
	tok := TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: t.ConsumerKey, User: t.User, Scope: t.Scope}
	var extra url.Values
	if p.TokenValues != nil {
		if extra, err = p.TokenValues(ctx, tok); err != nil {
			return TokenCredentials{}, nil, fmt.Errorf("oauth1: Provider.TokenValues: %w", err)
		}
		if extra.Has("oauth_token") || extra.Has("oauth_token_secret") {
			return TokenCredentials{}, nil, errors.New("oauth1: Provider.TokenValues returned oauth_token or oauth_token_secret")
		}
	}
	if err := p.Tokens.PutToken(ctx, tok, now); err != nil {
		return TokenCredentials{}, nil, fmt.Errorf("oauth1: storing token credentials: %w", err)
	}
	return tok, extra, nil
}

// writeForm answers 200 with ps, application/x-www-form-urlencoded. The
// answer holds a secret: no cache may keep it.
func writeForm(w http.ResponseWriter, ps []oauth1.Param) {
	var b []byte
	for i, p := range ps {
		if i > 0 {
			b = append(b, '&')
		}
		b = wire.AppendPair(b, p.Name, p.Value)
	}
	w.Header().Set("Content-Type", wire.FormType)
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

// verify verifies r with v, turns ErrTokenUsed from the store into the
// token_used problem, and checks the result with check. It calls Observe
// and writes any refusal; it returns nil then. A Provider missing a
// required field refuses every request with 500.
func (p *Provider) verify(v *Verifier, w http.ResponseWriter, r *http.Request, check func(*Verification) error) *Verification {
	var ver *Verification
	err := p.misconfigured()
	if err == nil {
		ver, err = v.Verify(r)
	}
	if errors.Is(err, ErrTokenUsed) {
		err = problem(oauth1.ProblemTokenUsed, err)
	}
	if err == nil && check != nil {
		err = check(ver)
	}
	if p.Observe != nil {
		p.Observe(r, ver, err)
	}
	if err != nil {
		v.WriteError(w, err)
		return nil
	}
	return ver
}

// Bounds of the strings the consent page and an operator pass on to the
// stores: a Provider issues tokens of 26 characters, and clients send
// nonces of a few dozen.
const (
	maxTokenLen = 256
	maxNonceLen = 256
)

// checkToken refuses, as unknown, a token no Provider issues: longer than
// maxTokenLen, with a control character or not UTF-8 (the Verifier's rule
// for the keys and tokens it looks up), so that a store over SQL never
// gets one. The error does not quote it.
func checkToken(token string) error {
	if len(token) > maxTokenLen || !lookupable(token) {
		return fmt.Errorf("%w: a token longer than %d bytes, with a control character or not UTF-8", ErrNotFound, maxTokenLen)
	}
	return nil
}

// Pending returns the temporary credentials token, issued and awaiting the
// resource owner's approval (§2.2), on the Provider's clock: what the
// consent page shows before the owner approves or denies, the client
// asking (ConsumerKey, to look up in Consumers) and where the owner goes
// next (Callback). Their Secret is empty: it is the client's, and no page
// may show it. Unknown or expired temporary credentials are an error
// wrapping [ErrNotFound]; those already approved, denied or exchanged,
// [ErrTokenUsed], and the page should not offer to approve them. A token
// no Provider issues, longer than 256 bytes, with a control character or
// not UTF-8, is refused as unknown by Pending, Authorize, Deny and Revoke
// before Temporary or Tokens is asked: the consent page may pass on what
// the query held.
func (p *Provider) Pending(ctx context.Context, token string) (TemporaryCredentials, error) {
	if err := checkToken(token); err != nil {
		return TemporaryCredentials{}, err
	}
	if p.Temporary == nil {
		return TemporaryCredentials{}, errNoTemporary
	}
	t, err := p.Temporary.Temporary(ctx, token, p.now())
	if err != nil {
		return TemporaryCredentials{}, err
	}
	if t.VerificationCode != "" {
		return TemporaryCredentials{}, fmt.Errorf("%w: temporary token %q is already authorized", ErrTokenUsed, token)
	}
	t.Secret = ""
	return t, nil
}

// An Approval is the resource owner's consent to a client's request for
// access (RFC 5849 §2.2), which the provider's consent page passes to
// [Provider.Authorize]. Token and User are required.
type Approval struct {
	// Token is the temporary credentials' oauth_token, as the
	// authorization request carried it.
	Token string

	// User is the resource owner who approved: the signed-in user of the
	// consent page, whom the token credentials will act for.
	User string

	// Scope is what the owner approved; empty means what the client asked
	// for, the Scope [Provider.Pending] returned. The consent page sets it
	// when the owner approves less than that.
	Scope string
}

// Authorize records that a.User approved the temporary credentials
// a.Token (§2.2), for a.Scope, once, and makes their verification code.
// The provider's consent page calls it when the resource owner approves,
// and sends them to redirect: the callback URL with oauth_token and
// oauth_verifier added to its query. When the callback is "oob", redirect
// is empty and the page shows the code, then eight digits, for the user
// to type into the client.
//
// The consent page finds who is asking with [Provider.Pending], and must
// make sure that the approval comes from the signed-in user: a form
// protected against cross-site request forgery, never a plain link, or any
// site could approve in their name. An unknown or expired token is an
// error wrapping [ErrNotFound]; one already approved or exchanged,
// [ErrTokenUsed]. An Approval without User, or with a Scope longer than
// 1024 bytes, with a control character or not UTF-8, is an error, and
// records nothing.
func (p *Provider) Authorize(ctx context.Context, a Approval) (redirect, code string, err error) {
	if err := checkToken(a.Token); err != nil {
		return "", "", err
	}
	if a.User == "" {
		return "", "", errors.New("oauth1: Provider.Authorize: the Approval names no User")
	}
	if len(a.Scope) > maxScopeLen || !lookupable(a.Scope) {
		return "", "", fmt.Errorf("oauth1: Provider.Authorize: a Scope longer than %d bytes, with a control character or not UTF-8", maxScopeLen)
	}
	if p.Temporary == nil {
		return "", "", errNoTemporary
	}
	now := p.now()
	t, err := p.Temporary.Temporary(ctx, a.Token, now)
	if err != nil {
		return "", "", err
	}
	if t.Callback == "oob" {
		code = pin()
	} else {
		code = rand.Text()
	}
	scope := t.Scope
	if a.Scope != "" {
		scope = a.Scope
	}
	if err := p.Temporary.Authorize(ctx, TemporaryCredentials{Token: a.Token, User: a.User, VerificationCode: code, Scope: scope}, now); err != nil {
		return "", "", err
	}
	if t.Callback == "oob" {
		return "", code, nil
	}
	return appendQuery(t.Callback, oauth1.Param{Name: "oauth_token", Value: a.Token}, oauth1.Param{Name: "oauth_verifier", Value: code}), code, nil
}

// Deny records that the resource owner refused the temporary credentials
// token: they are used up. The consent page sends the owner to redirect,
// the callback URL with oauth_token and oauth_problem=permission_denied
// added, which [oauth1.ParseCallback] reports as [oauth1.ErrDenied]; for
// "oob", redirect is empty. Errors are those of Authorize: temporary
// credentials already approved are refused with [ErrTokenUsed] and stay
// the client's, so that whoever reaches the consent page's deny action
// with the token cannot cancel a flow the owner approved.
func (p *Provider) Deny(ctx context.Context, token string) (redirect string, err error) {
	if err := checkToken(token); err != nil {
		return "", err
	}
	if p.Temporary == nil {
		return "", errNoTemporary
	}
	// Approving with a code nobody holds takes the one approval the store
	// allows, atomically, in every TemporaryStore: it fails with ErrTokenUsed
	// on credentials already approved, and no exchange can succeed after it.
	now := p.now()
	if err := p.Temporary.Authorize(ctx, TemporaryCredentials{Token: token, VerificationCode: rand.Text()}, now); err != nil {
		return "", err
	}
	t, err := p.Temporary.TakeTemporary(ctx, token, now)
	if err != nil {
		return "", err
	}
	if t.Callback == "oob" {
		return "", nil
	}
	return appendQuery(t.Callback, oauth1.Param{Name: "oauth_token", Value: token}, oauth1.Param{Name: "oauth_problem", Value: string(oauth1.ProblemPermissionDenied)}), nil
}

// Revoke revokes the token credentials token, at once: a request signed
// with them is refused with token_revoked from the moment Revoke returns,
// by every instance that shares the Provider's Tokens. An operator calls it
// for a token that leaked; an unknown or already revoked token is an error
// wrapping [ErrNotFound].
func (p *Provider) Revoke(ctx context.Context, token string) error {
	if err := checkToken(token); err != nil {
		return err
	}
	if p.Tokens == nil {
		return errNoTokens
	}
	return p.Tokens.Revoke(ctx, token, p.now())
}

// RevokeGrant revokes every token credential issued to the client
// consumerKey on behalf of user, and the temporary credentials user
// approved for it that are not yet exchanged, and returns how many
// credentials it revoked: what a resource owner does who withdraws an
// approval ("disconnect this app"), or an operator for a client that must
// lose a user's access. It takes effect at once, as Revoke does, for the
// credentials issued and approved before it was called: an exchange of
// temporary credentials approved earlier is refused with token_revoked.
func (p *Provider) RevokeGrant(ctx context.Context, consumerKey, user string) (int, error) {
	if p.Temporary == nil {
		return 0, errNoTemporary
	}
	if p.Tokens == nil {
		return 0, errNoTokens
	}
	now := p.now()
	// Temporary credentials first: an exchange that took them before
	// stores its token before Tokens.RevokeGrant runs, or while it runs.
	temp, err := p.Temporary.RevokeGrant(ctx, consumerKey, user, now)
	if err != nil {
		return 0, fmt.Errorf("oauth1: revoking approved temporary credentials: %w", err)
	}
	n, err := p.Tokens.RevokeGrant(ctx, consumerKey, user, now)
	return temp + n, err
}

// pin returns eight random decimal digits. The modulo bias, below 10^-11,
// does not matter.
func pin() string {
	var b [8]byte
	rand.Read(b[:]) // never fails since Go 1.24: it crashes the program instead
	n := binary.LittleEndian.Uint64(b[:]) % 1e8
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", 8-len(s)) + s
}

// appendQuery adds ps to the query of rawURL, before any fragment.
func appendQuery(rawURL string, ps ...oauth1.Param) string {
	u, frag, hasFrag := strings.Cut(rawURL, "#")
	b := []byte(u)
	switch {
	case !strings.Contains(u, "?"):
		b = append(b, '?')
	case !strings.HasSuffix(u, "?") && !strings.HasSuffix(u, "&"):
		b = append(b, '&')
	}
	for i, p := range ps {
		if i > 0 {
			b = append(b, '&')
		}
		b = wire.AppendPair(b, p.Name, p.Value)
	}
	if hasFrag {
		b = append(b, '#')
		b = append(b, frag...)
	}
	return string(b)
}
