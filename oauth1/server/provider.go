package server

import (
	"context"
	"errors"
	"net/http"
	"net/url"
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
// Temporary credentials are exchanged once: the token request reads them,
// stores the token credentials and then takes them from the store, and of
// concurrent exchanges only the one that took them answers. A refusal
// takes them too, so a wrong code uses them up: whoever holds temporary
// credentials without the code (an attacker who started the flow and
// lured a victim into approving) gets a single guess. A refusal because
// Tokens is full or cannot be reached (503) does not: the client's retry
// after Retry-After succeeds without a new approval. A second exchange is answered token_used, as is a
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
