package oauth1test_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

// mapStore is a CredentialStore over two maps, in place of a database.
type mapStore struct {
	consumers map[string]server.Registration
	tokens    map[string]server.TokenCredentials
	revoked   map[string]bool
}

// newMapStore seeds a mapStore with the data TestCredentialStore hands it.
// A store over a database would insert the rows (and delete them in
// t.Cleanup); one that cannot hold revoked tokens would call t.Skip when
// revoked is not empty.
func newMapStore(t *testing.T, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) server.CredentialStore {
	s := &mapStore{consumers: consumers, tokens: map[string]server.TokenCredentials{}, revoked: map[string]bool{}}
	for _, tok := range tokens {
		s.tokens[tok.Token] = tok
	}
	for _, tok := range revoked {
		s.revoked[tok.Token] = true
	}
	return s
}

func (s *mapStore) Consumer(ctx context.Context, consumerKey string, _ time.Time) (server.Registration, error) {
	if err := ctx.Err(); err != nil {
		return server.Registration{}, err
	}
	r, ok := s.consumers[consumerKey]
	if !ok {
		return server.Registration{}, fmt.Errorf("%w: consumer key %q", server.ErrNotFound, consumerKey)
	}
	return r, nil
}

func (s *mapStore) TokenCredentials(ctx context.Context, consumerKey, token string, _ time.Time) (server.TokenCredentials, error) {
	if err := ctx.Err(); err != nil {
		return server.TokenCredentials{}, err
	}
	if s.revoked[token] {
		return server.TokenCredentials{}, fmt.Errorf("%w: %w: token %q", server.ErrNotFound, server.ErrTokenRevoked, token)
	}
	t, ok := s.tokens[token]
	if !ok || t.ConsumerKey != consumerKey {
		return server.TokenCredentials{}, fmt.Errorf("%w: token %q of consumer key %q", server.ErrNotFound, token, consumerKey)
	}
	return t, nil
}

// ExampleTestCredentialStore checks a CredentialStore against the
// contract: here mapStore, over maps, which newMapStore fills with the
// data of each check.
func ExampleTestCredentialStore() {
	// In a _test.go file of the package that has the store:
	testMapStore := func(t *testing.T) {
		oauth1test.TestCredentialStore(t, newMapStore)
	}
	_ = testMapStore
}
