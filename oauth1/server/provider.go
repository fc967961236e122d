package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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
// The Provider verifies requests itself, with the settings of Verifier:
// consumer keys are looked up in Consumers and tokens in Tokens, token
// credentials only, except for the token request, which is signed with
// temporary credentials, looked up in Temporary. So a request to a
// protected resource signed with temporary credentials is refused
// (token_rejected; the error Observe sees says why). The
// [Verification] of a request signed with token credentials names their
// User. [Provider.Revoke] and [Provider.RevokeGrant] revoke token
// credentials, at once: a request signed with them is then refused with
// token_revoked, for as long as Tokens remembers the revocation, then with
// token_rejected.
//
// Each setting has one place: the Provider's own fields, and the
// verification settings in Verifier. A Verifier field that the Provider
// would ignore (Store, Observe) is an error: a Provider whose Verifier sets
// one answers every request with 500, and Observe sees an error naming the
// field, as it does for a missing Consumers, Temporary or Tokens.
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
	// needs shared stores. The Provider passes every call its clock, its
	// Verifier's Now.
	//
	// A Provider without Consumers, Temporary or Tokens answers every
	// request with 500, and Observe sees an error naming the field.
	Temporary TemporaryStore
	Tokens    TokenStore

	// Verifier holds the settings the Provider verifies requests with:
	// the clock, window, signature methods, nonce store, realm and the
	// rest; nil means a Verifier with the defaults. Its Store and Observe
	// must be nil: the Provider looks credentials up in Consumers,
	// Temporary and Tokens, and calls its own Observe. Either set is an
	// error at first use (see above). Its RequireToken applies to
	// Middleware only. Its clock, Now, also dates the temporary
	// credentials, and is passed to the stores. With Nonces nil, the
	// Provider's endpoints use the process's default nonce store, as
	// every Verifier with Nonces nil does: a nonce used at one endpoint
	// is used at all, and at every other Provider and Verifier.
	//
	// The Provider copies *Verifier on first use, as it reads its other
	// fields then: like them, it must not be changed afterwards.
	Verifier *Verifier

	// TemporaryTTL is how long temporary credentials live; zero means ten
	// minutes, time for the resource owner to sign in and approve.
	TemporaryTTL time.Duration

	// CheckCallback, if set, vets oauth_callback for the client
	// consumerKey, once the Provider's own policy has accepted it; an
	// error refuses the request with parameter_rejected. Use it, with
	// [MatchCallback], to allow only the callbacks the client registered.
	//
	// The Provider's policy accepts "oob" and absolute URLs of at most
	// 2048 bytes, printable ASCII (an internationalized host goes as
	// punycode), without userinfo, fragment, percent-encoded control
	// characters (CR and LF among them), or oauth_token, oauth_verifier or
	// oauth_problem in the query: http and https URLs with a host, and
	// URLs of the schemes listed in the client's
	// [Registration].CallbackSchemes, as native apps use. Schemes that run
	// what the URL holds (javascript, data, blob, file and the like) are
	// refused even when listed.
	CheckCallback func(ctx context.Context, consumerKey, callback string) error

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
	// here. It is the Provider's only observer: Verifier.Observe must be
	// nil.
	Observe func(r *http.Request, v *Verification, err error)

	once       sync.Once
	missetting error // a setting the Provider would ignore, found on first use
	// forResources verifies requests to protected resources, forIssue the
	// temporary credential request and forExchange the token request:
	// copies of Verifier that differ in their Store and RequireToken.
	forResources, forIssue, forExchange Verifier
}

// verifiers makes the Provider's Verifiers, once.
func (p *Provider) verifiers() {
	p.once.Do(func() {
		p.missetting = p.ignoredSetting()
		if p.Verifier != nil {
			p.forResources = *p.Verifier
		}
		p.forResources.Store = providerStore{p: p}
		p.forIssue = p.forResources
		p.forIssue.RequireToken = false // the temporary credential request has no token
		p.forExchange = p.forIssue
		p.forExchange.Store = providerStore{p: p, temporary: true}
		p.forResources.Store = resourceStore{p.forResources.Store, p}
	})
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
// credentials the Provider issued or, unless Verifier.RequireToken is set,
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
			t, err = p.issueTemporary(r.Context(), v)
			return err
		})
		if v != nil {
			writeForm(w, []oauth1.Param{{Name: "oauth_token", Value: t.Token}, {Name: "oauth_token_secret", Value: t.Secret}, {Name: "oauth_callback_confirmed", Value: "true"}})
		}
	})
}

// issueTemporary checks the verified temporary credential request v and
// stores new temporary credentials for it.
func (p *Provider) issueTemporary(ctx context.Context, v *Verification) (TemporaryCredentials, error) {
	if v.Token != "" {
		return TemporaryCredentials{}, problem(oauth1.ProblemParameterRejected, errors.New("a temporary credential request carries no token"), "oauth_token")
	}
	if err := p.checkCallback(ctx, v); err != nil {
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
		Callback: v.Get("oauth_callback"), Expires: now.Add(ttl),
	}
	if err := p.Temporary.PutTemporary(ctx, t, now); err != nil {
		return TemporaryCredentials{}, fmt.Errorf("oauth1: storing temporary credentials: %w", err)
	}
	return t, nil
}

func (p *Provider) checkCallback(ctx context.Context, v *Verification) error {
	cb := v.Get("oauth_callback")
	if cb == "" {
		return problem(oauth1.ProblemParameterAbsent, nil, "oauth_callback")
	}
	var schemes []string
	if scheme, _, _ := strings.Cut(cb, ":"); cb != "oob" && !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		// Only a callback of another scheme needs the registration.
		reg, err := p.Consumers.Consumer(ctx, v.ConsumerKey)
		if err != nil {
			return fmt.Errorf("oauth1: looking up the consumer key: %w", err)
		}
		schemes = reg.CallbackSchemes
	}
	if err := validCallback(cb, schemes); err != nil {
		return problem(oauth1.ProblemParameterRejected, err, "oauth_callback")
	}
	if p.CheckCallback != nil {
		if err := p.CheckCallback(ctx, v.ConsumerKey, cb); err != nil {
			return problem(oauth1.ProblemParameterRejected, err, "oauth_callback")
		}
	}
	return nil
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
	code := v.Get("oauth_verifier")
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
	tok := TokenCredentials{Token: rand.Text(), Secret: rand.Text(), ConsumerKey: t.ConsumerKey, User: t.User}
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
