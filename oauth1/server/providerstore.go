package server

import (
	"context"
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

func (s providerStore) Consumer(ctx context.Context, consumerKey string) (Registration, error) {
	if s.p.Consumers == nil {
		return Registration{}, errNoConsumers
	}
	return s.p.Consumers.Consumer(ctx, consumerKey)
}

// TokenCredentials returns the record of token if it was issued to
// consumerKey. The Verifier calls tokenAt instead, with the time it read.
func (s providerStore) TokenCredentials(ctx context.Context, consumerKey, token string) (TokenCredentials, error) {
	t, err := s.tokenAt(ctx, token, s.p.now())
	if err == nil && t.ConsumerKey != consumerKey {
		return TokenCredentials{}, fmt.Errorf("%w: token %q was issued to another client", ErrNotFound, token)
	}
	return t, err
}

// tokenAt returns the record of token at now: of token credentials, or
// of temporary credentials, with the user who approved them, if any.
func (s providerStore) tokenAt(ctx context.Context, token string, now time.Time) (TokenCredentials, error) {
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
	return TokenCredentials{Token: t.Token, Secret: t.Secret, ConsumerKey: t.ConsumerKey, User: t.User}, nil
}

// now is the Provider's clock, its Verifier's Now.
func (p *Provider) now() time.Time {
	p.verifiers()
	return p.forResources.now()
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
