package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/countersign/countersign/oauth1"
)

// The Provider's settings that it checks on first use, and how its
// handlers report what they refuse.

// ignoredSetting names a field of the Provider's Verifier that the
// Provider would ignore: a Provider that silently dropped it would not do
// what its configuration says.
func (p *Provider) ignoredSetting() error {
	switch v := p.Verifier; {
	case v == nil:
		return nil
	case v.Store != nil:
		return errors.New("oauth1: Provider.Verifier.Store is set, but a Provider looks credentials up in its Consumers and Tokens: leave it nil")
	case v.Observe != nil:
		return errors.New("oauth1: Provider.Verifier.Observe is set, but a Provider calls its own Observe: set Provider.Observe instead")
	}
	return nil
}

// verify verifies r with v, turns ErrTokenUsed from the store into the
// token_used problem, and checks the result with check. It calls Observe
// and writes any refusal; it returns nil then. A Provider missing a
// required field, or with a setting it would ignore, refuses every request
// with 500.
func (p *Provider) verify(v *Verifier, w http.ResponseWriter, r *http.Request, check func(*Verification) error) *Verification {
	var ver *Verification
	err := p.misconfigured()
	if err == nil {
		err = p.missetting
	}
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

// errTemporaryOnResource is why a request to a protected resource signed
// with temporary credentials is refused.
var errTemporaryOnResource = fmt.Errorf("%w: temporary credentials cannot access protected resources; exchange them for token credentials (RFC 5849 §2.3)", ErrNotFound)

// resourceStore is the CredentialStore of the Provider's Middleware: that
// of its CredentialStore, whose error, for a token that is not token
// credentials but temporary credentials, says so. Only refusals pay for
// the second lookup.
type resourceStore struct {
	CredentialStore
	p *Provider
}

func (s resourceStore) TokenCredentials(ctx context.Context, consumerKey, token string) (TokenCredentials, error) {
	t, err := s.CredentialStore.TokenCredentials(ctx, consumerKey, token)
	if errors.Is(err, ErrNotFound) && !errors.Is(err, ErrTokenRevoked) && s.p.Temporary != nil {
		if _, terr := s.p.Temporary.Temporary(ctx, token, s.p.now()); terr == nil {
			return TokenCredentials{}, errTemporaryOnResource
		}
	}
	return t, err
}
