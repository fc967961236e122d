package server

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// hostileStrings are what a consent page's query or a request's header
// may hold and no store should be handed: a NUL (which a PostgreSQL text
// parameter refuses), CR/LF, DEL, invalid UTF-8, and a megabyte.
var hostileStrings = map[string]string{
	"NUL":             "tok\x00en",
	"CR LF":           "tok\r\nSet-Cookie: a=b",
	"DEL":             "tok\x7fen",
	"invalid UTF-8":   "tok\xffen",
	"truncated UTF-8": "tok\xc3",
	"1 MiB":           strings.Repeat("t", 1<<20),
	"257 bytes":       strings.Repeat("t", 257),
}

// recordingTemporary is a MemoryTemporaryStore that records every token
// it is asked about.
type recordingTemporary struct {
	MemoryTemporaryStore
	mu   sync.Mutex
	seen []string
}

func (s *recordingTemporary) see(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, token)
}

func (s *recordingTemporary) Temporary(ctx context.Context, token string, now time.Time) (TemporaryCredentials, error) {
	s.see(token)
	return s.MemoryTemporaryStore.Temporary(ctx, token, now)
}

func (s *recordingTemporary) Authorize(ctx context.Context, a TemporaryCredentials, now time.Time) error {
	s.see(a.Token)
	return s.MemoryTemporaryStore.Authorize(ctx, a, now)
}

func (s *recordingTemporary) TakeTemporary(ctx context.Context, token string, now time.Time) (TemporaryCredentials, error) {
	s.see(token)
	return s.MemoryTemporaryStore.TakeTemporary(ctx, token, now)
}

// recordingTokens is a MemoryTokenStore that records the tokens Revoke is
// asked to revoke.
type recordingTokens struct {
	MemoryTokenStore
	seen []string
}

func (s *recordingTokens) Revoke(ctx context.Context, token string, now time.Time) error {
	s.seen = append(s.seen, token)
	return s.MemoryTokenStore.Revoke(ctx, token, now)
}

// TestConsentRefusesHostileTokens: the token the consent page passes to
// Pending, Authorize and Deny, and the operator to Revoke, is refused as
// unknown (ErrNotFound) before a store is asked when it holds a control
// character, is not UTF-8 or is longer than 256 bytes; the error does not
// quote it. A token of 256 printable bytes still reaches the store.
func TestConsentRefusesHostileTokens(t *testing.T) {
	ctx := context.Background()
	temp := &recordingTemporary{}
	tokens := &recordingTokens{}
	p := &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Temporary: temp, Tokens: tokens}
	for name, token := range hostileStrings {
		calls := map[string]func() error{
			"Pending":   func() error { _, err := p.Pending(ctx, token); return err },
			"Authorize": func() error { _, _, err := p.Authorize(ctx, Approval{Token: token, User: "alice"}); return err },
			"Deny":      func() error { _, err := p.Deny(ctx, token); return err },
			"Revoke":    func() error { return p.Revoke(ctx, token) },
		}
		for call, f := range calls {
			err := f()
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("%s(%s) = %v, want ErrNotFound", call, name, err)
			}
			if err != nil && (strings.Contains(err.Error(), token) || !lookupable(err.Error()) || len(err.Error()) > 200) {
				t.Errorf("%s(%s): the error %.80q quotes the token", call, name, err)
			}
		}
	}
	if len(temp.seen) > 0 || len(tokens.seen) > 0 {
		t.Errorf("the stores were asked for %d and %d hostile tokens, the first %.40q", len(temp.seen), len(tokens.seen), append(temp.seen, tokens.seen...)[0])
	}
	long := strings.Repeat("t", 256)
	if _, err := p.Pending(ctx, long); !errors.Is(err, ErrNotFound) || len(temp.seen) != 1 {
		t.Errorf("Pending(256 bytes) = %v, store asked %d times; want ErrNotFound from the store", err, len(temp.seen))
	}
}

// recordingNonces records every nonce it is handed, and finds each fresh.
type recordingNonces struct {
	mu   sync.Mutex
	seen []string
}

func (s *recordingNonces) Use(_ context.Context, n Nonce, _, _ time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, n.Value)
	return true, nil
}

// TestVerifyRefusesHostileNonces: an oauth_nonce with a control
// character, not UTF-8 or longer than 256 bytes is refused with
// parameter_rejected (oauth_nonce) and never reaches the NonceStore; one
// of 256 printable bytes does.
func TestVerifyRefusesHostileNonces(t *testing.T) {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonces := &recordingNonces{}
	v := &Verifier{Store: Consumers{"key": {Secret: "secret"}}, Settings: Settings{Nonces: nonces}}
	verify := func(nonce string) error {
		r := httptest.NewRequest("GET", "https://api.example.com/r", nil)
		cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret"}
		if err := cfg.SignAt(r, nil, time.Now(), nonce); err != nil {
			t.Fatal(err)
		}
		_, err := v.Verify(r)
		return err
	}
	for name, nonce := range hostileStrings {
		// Signed with a harmless nonce, then the nonce swapped in the
		// header: the refusal must come before the signature is checked.
		r := httptest.NewRequest("GET", "https://api.example.com/r", nil)
		h := `OAuth oauth_consumer_key="key", oauth_nonce="` + url.PathEscape(nonce) + `", oauth_signature="c2ln", oauth_signature_method="HMAC-SHA1", oauth_timestamp="` + ts + `"`
		r.Header.Set("Authorization", h)
		_, err := v.Verify(r)
		pe, ok := err.(*ProblemError)
		if !ok || pe.Problem != oauth1.ProblemParameterRejected || len(pe.ParamsRejected) != 1 || pe.ParamsRejected[0] != "oauth_nonce" {
			t.Errorf("nonce %s: Verify = %.200v, want parameter_rejected oauth_nonce", name, err)
		}
	}
	if len(nonces.seen) > 0 {
		t.Errorf("the NonceStore was handed %d hostile nonces, the first %.40q", len(nonces.seen), nonces.seen[0])
	}
	if err := verify(strings.Repeat("n", 256)); err != nil || len(nonces.seen) != 1 {
		t.Errorf("a nonce of 256 bytes: %v, NonceStore handed %d; want verified", err, len(nonces.seen))
	}
}
