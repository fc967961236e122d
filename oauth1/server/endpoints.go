package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/countersign/countersign/oauth1"
)

// The token endpoints: the temporary credential request (RFC 5849 §2.1)
// and the token request (§2.3).

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
// (oauth_verifier) for a wrong verification code; token_revoked once the
// grant was revoked. A token store that is full or cannot be reached is
// answered 503 with Retry-After, and the temporary credentials and their
// approval stay usable: the client's retry, with the same oauth_verifier,
// gets token credentials.
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

// exchangeToken returns the token of the token credentials that the
// exchange of t issues: 26 characters of base32, as rand.Text's, of a hash
// of t's token and verification code, so that nobody without the code
// can foresee it, and every attempt at the exchange has the same.
func exchangeToken(t TemporaryCredentials) string {
	h := sha256.New()
	h.Write([]byte("countersign exchange\x00"))
	h.Write([]byte(t.Token))
	h.Write([]byte{0})
	h.Write([]byte(t.VerificationCode))
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h.Sum(nil)[:16])
}

// temporaryProblem turns an error of the TemporaryStore into the problem
// that answers it, or wraps it; nil stays nil.
func temporaryProblem(err error) error {
	var pe *ProblemError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return err
	case errors.Is(err, ErrTokenUsed):
		return problem(oauth1.ProblemTokenUsed, err)
	case errors.Is(err, ErrTokenRevoked):
		return problem(oauth1.ProblemTokenRevoked, err)
	case errors.Is(err, ErrNotFound):
		return problem(oauth1.ProblemTokenRejected, err)
	}
	return fmt.Errorf("oauth1: taking temporary credentials: %w", err)
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
	// The temporary credentials are read, the token credentials stored,
	// and only then are the temporary credentials taken: a store that is
	// full or cannot be reached refuses the request (503) with the approval
	// still usable, so that the client's retry succeeds. The token of the
	// credentials is exchangeToken's, the same for every attempt at one
	// exchange: of concurrent attempts the one whose PutToken stores it
	// goes on, and the others, refused as a token stored already, write
	// nothing (so they cannot push the grant's tokens past its bound).
	t, err := p.Temporary.Temporary(ctx, v.Token, now)
	if err := temporaryProblem(err); err != nil {
		return TokenCredentials{}, nil, err
	}
	var refusal error
	switch {
	case t.ConsumerKey != v.ConsumerKey:
		refusal = problem(oauth1.ProblemTokenRejected, errors.New("temporary credentials of another client"))
	case t.VerificationCode == "":
		refusal = problem(oauth1.ProblemPermissionUnknown, errors.New("the resource owner has not approved"))
	case subtle.ConstantTimeCompare([]byte(t.VerificationCode), []byte(code)) != 1:
		refusal = problem(oauth1.ProblemParameterRejected, errors.New("wrong verification code"), "oauth_verifier")
	}
	if refusal != nil {
		// Refused, they are used up all the same, as before: whoever
		// holds them without the code gets a single guess.
		if _, err := p.Temporary.TakeTemporary(ctx, v.Token, now); err != nil {
			if err := temporaryProblem(err); err != nil {
				return TokenCredentials{}, nil, err
			}
		}
		return TokenCredentials{}, nil, refusal
	}
	tok := TokenCredentials{Token: exchangeToken(t), Secret: rand.Text(), ConsumerKey: t.ConsumerKey, User: t.User, Scope: t.Scope}
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
		if !errors.Is(err, ErrStoreFull) && !errors.Is(err, ErrStoreUnavailable) {
			// Stored, or stored and revoked, by another attempt.
			if _, lookErr := p.Tokens.Token(ctx, tok.Token, now); lookErr == nil || errors.Is(lookErr, ErrTokenRevoked) {
				return TokenCredentials{}, nil, problem(oauth1.ProblemTokenUsed, errors.New("a concurrent exchange of the same temporary credentials"))
			}
		}
		return TokenCredentials{}, nil, fmt.Errorf("oauth1: storing token credentials: %w", err)
	}
	taken, err := p.Temporary.TakeTemporary(ctx, v.Token, now)
	if err == nil && (taken.ConsumerKey != t.ConsumerKey || taken.User != t.User || taken.Scope != t.Scope ||
		subtle.ConstantTimeCompare([]byte(taken.VerificationCode), []byte(code)) != 1) {
		err = problem(oauth1.ProblemTokenRejected, errors.New("the temporary credentials changed during the exchange"))
	}
	if err != nil {
		// Lost to a RevokeGrant or the store: the token credentials
		// stored go, and a retry is answered token_used. Should Revoke
		// fail, they stay, their secret unsent, until their grant's bound
		// or RevokeGrant removes them.
		p.Tokens.Revoke(ctx, tok.Token, now)
		if perr := temporaryProblem(err); perr != nil {
			return TokenCredentials{}, nil, perr
		}
		return TokenCredentials{}, nil, err
	}
	return tok, extra, nil
}
