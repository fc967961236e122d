package server

import (
	"context"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// recordingStore fails nothing and records every key and token it is
// asked for.
type recordingStore struct {
	mu   sync.Mutex
	seen []string
}

func (s *recordingStore) Consumer(_ context.Context, key string, _ time.Time) (Registration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, key)
	return Registration{Secret: "secret"}, nil
}

func (s *recordingStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (TokenCredentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, token)
	return TokenCredentials{Token: token, Secret: "ts", ConsumerKey: key}, nil
}

// TestVerifyRefusesUnlookupableKeys: a consumer key or token that holds a
// control character (a NUL, which a PostgreSQL text parameter refuses, so
// that a store would fail with 500) or is not UTF-8 never reaches the
// store, and is refused as unknown.
func TestVerifyRefusesUnlookupableKeys(t *testing.T) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	for _, tt := range []struct {
		name, key, token string
		want             oauth1.Problem
	}{
		{"NUL in the key", "k%00ey", "", oauth1.ProblemConsumerKeyUnknown},
		{"newline in the key", "k%0Aey", "", oauth1.ProblemConsumerKeyUnknown},
		{"DEL in the key", "k%7Fey", "", oauth1.ProblemConsumerKeyUnknown},
		{"invalid UTF-8 in the key", "k%FFey", "", oauth1.ProblemConsumerKeyUnknown},
		{"NUL in the token", "key", "t%00k", oauth1.ProblemTokenRejected},
		{"invalid UTF-8 in the token", "key", "t%C3", oauth1.ProblemTokenRejected},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := &recordingStore{}
			v := &Verifier{Store: store}
			r := httptest.NewRequest("GET", "https://api.example.com/r", nil)
			h := `OAuth oauth_consumer_key="` + tt.key + `", oauth_nonce="n", oauth_signature="c2ln", oauth_signature_method="HMAC-SHA1", oauth_timestamp="` + ts + `"`
			if tt.token != "" {
				h += `, oauth_token="` + tt.token + `"`
			}
			r.Header.Set("Authorization", h)
			_, err := v.Verify(r)
			pe, ok := err.(*ProblemError)
			if !ok || pe.Problem != tt.want {
				t.Fatalf("Verify: %v, want the problem %s", err, tt.want)
			}
			for _, s := range store.seen {
				if !lookupable(s) {
					t.Errorf("the store was asked for %q", s)
				}
			}
		})
	}
	// Printable keys and UTF-8 ones still reach the store.
	for _, s := range []string{"key with spaces", "clé", "%25"} {
		if !lookupable(s) {
			t.Errorf("lookupable(%q) = false", s)
		}
	}
}
