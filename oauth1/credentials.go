package oauth1

import (
	"context"
	"errors"
	"fmt"
)

// Consumers is a [CredentialStore] of client registrations by consumer
// key, and no tokens: for two-legged providers and LTI 1.1 tools, whose
// requests carry no oauth_token (one that does is refused with
// token_rejected), and for [Provider.Consumers]. It is safe for concurrent
// use as long as it is not modified.
type Consumers map[string]Registration

var _ CredentialStore = Consumers(nil)

// Consumer returns the registration for consumerKey.
func (c Consumers) Consumer(_ context.Context, consumerKey string) (Registration, error) {
	r, ok := c[consumerKey]
	if !ok {
		return Registration{}, fmt.Errorf("%w: consumer key %q", ErrNotFound, consumerKey)
	}
	return r, nil
}

// TokenSecret knows no token: it always returns an error wrapping
// [ErrNotFound].
func (c Consumers) TokenSecret(_ context.Context, _, token string) (string, error) {
	return "", fmt.Errorf("%w: token %q (this store has no tokens)", ErrNotFound, token)
}

// CredentialFuncs is a [CredentialStore] made of two functions, such as
// closures over database queries. A nil TokenSecretFunc knows no token, as
// [Consumers] does. The functions must be safe for concurrent use and
// return errors wrapping [ErrNotFound] for unknown keys and tokens.
type CredentialFuncs struct {
	ConsumerFunc    func(ctx context.Context, consumerKey string) (Registration, error)
	TokenSecretFunc func(ctx context.Context, consumerKey, token string) (string, error)
}

var _ CredentialStore = CredentialFuncs{}

// Consumer calls f.ConsumerFunc.
func (f CredentialFuncs) Consumer(ctx context.Context, consumerKey string) (Registration, error) {
	if f.ConsumerFunc == nil {
		return Registration{}, errors.New("oauth1: CredentialFuncs.ConsumerFunc is nil")
	}
	return f.ConsumerFunc(ctx, consumerKey)
}

// TokenSecret calls f.TokenSecretFunc, if set.
func (f CredentialFuncs) TokenSecret(ctx context.Context, consumerKey, token string) (string, error) {
	if f.TokenSecretFunc == nil {
		return "", fmt.Errorf("%w: token %q (no TokenSecretFunc)", ErrNotFound, token)
	}
	return f.TokenSecretFunc(ctx, consumerKey, token)
}
