package server

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// providerStore is the CredentialStore of a Provider's Verifiers. It looks
// consumer keys up in Consumers, and tokens in Tokens or, for the token
// request, temporary credentials in Temporary.
type providerStore struct {
	p         *Provider
	temporary bool
}

// tenant is the Provider: its three Verifiers charge a consumer key's
// nonces to one share (see tenantOf, in verify.go).
func (s providerStore) tenant() any { return s.p }

func (s providerStore) Consumer(ctx context.Context, consumerKey string, now time.Time) (Registration, error) {
	if s.p.Consumers == nil {
		return Registration{}, errNoConsumers
	}
	return s.p.Consumers.Consumer(ctx, consumerKey, now)
}

// TokenCredentials returns the record of token at now: of token
// credentials, or of temporary credentials, with the user who approved
// them, if any. The Verifier checks that it was issued to consumerKey.
func (s providerStore) TokenCredentials(ctx context.Context, consumerKey, token string, now time.Time) (TokenCredentials, error) {
	if !s.temporary {
		if s.p.Tokens == nil {
			return TokenCredentials{}, errNoTokens
		}
		return s.p.Tokens.Token(ctx, token, now)
	}
	if s.p.Temporary == nil {
		return TokenCredentials{}, errNoTemporary
	}
	t, err := s.p.Temporary.Temporary(ctx, token, now)
	if err != nil {
		return TokenCredentials{}, err
	}
	return TokenCredentials{Token: t.Token, Secret: t.Secret, ConsumerKey: t.ConsumerKey, User: t.User, Scope: t.Scope}, nil
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

func (s resourceStore) tenant() any { return s.p }

func (s resourceStore) TokenCredentials(ctx context.Context, consumerKey, token string, now time.Time) (TokenCredentials, error) {
	t, err := s.CredentialStore.TokenCredentials(ctx, consumerKey, token, now)
	if errors.Is(err, ErrNotFound) && !errors.Is(err, ErrTokenRevoked) && s.p.Temporary != nil {
		if _, terr := s.p.Temporary.Temporary(ctx, token, now); terr == nil {
			return TokenCredentials{}, errTemporaryOnResource
		}
	}
	return t, err
}
