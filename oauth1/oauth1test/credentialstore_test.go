package oauth1test_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

func TestMapStoreConformance(t *testing.T) {
	oauth1test.TestCredentialStore(t, newMapStore)
}

func TestConsumersConformance(t *testing.T) {
	oauth1test.TestConsumerStore(t, func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore {
		return server.Consumers(consumers)
	})
	oauth1test.TestCredentialStore(t, func(t *testing.T, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) server.CredentialStore {
		if len(tokens) > 0 || len(revoked) > 0 {
			t.Skip("Consumers holds no tokens")
		}
		return server.Consumers(consumers)
	})
}

// funcStore is a CredentialStore made of two functions.
type funcStore struct {
	consumer func(ctx context.Context, key string) (server.Registration, error)
	token    func(ctx context.Context, key, token string, now time.Time) (server.TokenCredentials, error)
}

func (f funcStore) Consumer(ctx context.Context, key string, _ time.Time) (server.Registration, error) {
	return f.consumer(ctx, key)
}

func (f funcStore) TokenCredentials(ctx context.Context, key, token string, now time.Time) (server.TokenCredentials, error) {
	return f.token(ctx, key, token, now)
}

// likeMatch reports whether s matches the SQL LIKE pattern.
func likeMatch(pattern, s string) bool {
	var re strings.Builder
	for _, r := range pattern {
		switch r {
		case '%':
			re.WriteString(".*")
		case '_':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.MustCompile("^(?s:" + re.String() + ")$").MatchString(s)
}

// brokenStores each break one rule of the contract, and the subtests of
// TestCredentialStore (or, for those named ConsumerStore/…, of
// TestConsumerStore) that must fail for each.
var brokenStores = []struct {
	name string
	// seed is newMapStore, or a variant of it.
	seed func(consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) *mapStore
	// wrap breaks the store; nil leaves it alone.
	consumer func(m *mapStore, ctx context.Context, key string) (server.Registration, error)
	token    func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error)
	fail     []string
}{
	{
		name: "NotFoundNotWrapped",
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			if _, ok := m.consumers[key]; !ok {
				return server.Registration{}, errors.New("no such consumer")
			}
			return m.Consumer(ctx, key, time.Time{})
		},
		fail: []string{"Consumer/Unknown", "Consumer/Exact", "Consumer/Concurrent"},
	},
	{
		name: "CaseInsensitive", // a MySQL _ci collation
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			for k, r := range m.consumers {
				if strings.EqualFold(k, key) {
					return r, nil
				}
			}
			return m.Consumer(ctx, key, time.Time{})
		},
		fail: []string{"Consumer/Exact"},
	},
	{
		name: "ConsumerStore/CaseInsensitive",
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			for k, r := range m.consumers {
				if strings.EqualFold(k, key) {
					return r, nil
				}
			}
			return m.Consumer(ctx, key, time.Time{})
		},
		fail: []string{"Exact"},
	},
	{
		name: "PadSpace", // a PAD SPACE collation: trailing spaces ignored
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			return m.Consumer(ctx, strings.TrimRight(key, " "), time.Time{})
		},
		fail: []string{"Consumer/Exact"},
	},
	{
		name: "LikePattern", // WHERE consumer_key LIKE ?
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			for k, r := range m.consumers {
				if likeMatch(key, k) {
					return r, nil
				}
			}
			return m.Consumer(ctx, key, time.Time{})
		},
		fail: []string{"Consumer/Unknown", "Consumer/Exact"},
	},
	{
		name: "InvalidUTF8Error", // a database that cannot hold the key
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			if !utf8.ValidString(key) {
				return server.Registration{}, errors.New("invalid byte sequence for encoding UTF8")
			}
			return m.Consumer(ctx, key, time.Time{})
		},
		fail: []string{"Consumer/Unknown"},
	},
	{
		name: "DropsPublicKey",
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			r, err := m.Consumer(ctx, key, time.Time{})
			r.PublicKey = nil
			return r, err
		},
		fail: []string{"Consumer/RoundTrip", "Consumer/Concurrent"},
	},
	{
		name: "DecodesSecret", // a secret read back through form decoding
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			r, err := m.Consumer(ctx, key, time.Time{})
			r.Secret = strings.ReplaceAll(r.Secret, "+", " ")
			return r, err
		},
		fail: []string{"Consumer/RoundTrip", "Consumer/Concurrent"},
	},
	{
		name: "DropsCallbackSchemes",
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			r, err := m.Consumer(ctx, key, time.Time{})
			r.CallbackSchemes = nil
			return r, err
		},
		fail: []string{"Consumer/RoundTrip", "Consumer/Concurrent"},
	},
	{
		name: "CancelledIsNotFound", // every failed query reported as no row
		consumer: func(m *mapStore, ctx context.Context, key string) (server.Registration, error) {
			r, err := m.Consumer(ctx, key, time.Time{})
			if err != nil {
				return r, fmt.Errorf("%w: %q", server.ErrNotFound, key)
			}
			return r, nil
		},
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			t, err := m.TokenCredentials(ctx, key, token, time.Time{})
			if err != nil && !errors.Is(err, server.ErrNotFound) {
				return t, fmt.Errorf("%w: %q", server.ErrNotFound, token)
			}
			return t, err
		},
		fail: []string{"Consumer/Context", "TokenCredentials/Context"},
	},
	{
		name: "Racy", // one lookup at a time, kept in a field: see racy
		fail: []string{"Consumer/Concurrent", "TokenCredentials/Concurrent"},
	},
	{
		name: "ConsumerKeyFromRequest",
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			t, ok := m.tokens[token]
			if !ok {
				return m.TokenCredentials(ctx, key, token, time.Time{})
			}
			t.ConsumerKey = key
			return t, nil
		},
		fail: []string{"TokenCredentials/OtherClient"},
	},
	{
		name: "DropsUser",
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			t, err := m.TokenCredentials(ctx, key, token, time.Time{})
			t.User = ""
			return t, err
		},
		fail: []string{"TokenCredentials/RoundTrip", "TokenCredentials/Revoked", "TokenCredentials/Concurrent"},
	},
	{
		name: "TokenCaseInsensitive",
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			return m.TokenCredentials(ctx, key, strings.ToLower(token), time.Time{})
		},
		seed: func(consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) *mapStore {
			m := newMapStore(nil, consumers, nil, nil).(*mapStore)
			for _, t := range tokens {
				m.tokens[strings.ToLower(t.Token)] = t
			}
			for _, t := range revoked {
				m.revoked[strings.ToLower(t.Token)] = true
			}
			return m
		},
		fail: []string{"TokenCredentials/Exact"},
	},
	{
		name: "ServesRevoked", // a revoked flag the lookup forgets
		seed: func(consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) *mapStore {
			return newMapStore(nil, consumers, append(tokens, revoked...), nil).(*mapStore)
		},
		fail: []string{"TokenCredentials/Revoked"},
	},
	{
		name: "RevokedOnly",
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			if m.revoked[token] {
				return server.TokenCredentials{}, server.ErrTokenRevoked
			}
			return m.TokenCredentials(ctx, key, token, time.Time{})
		},
		fail: []string{"TokenCredentials/Revoked"},
	},
	{
		name: "UnknownIsRevoked",
		token: func(m *mapStore, ctx context.Context, key, token string) (server.TokenCredentials, error) {
			t, err := m.TokenCredentials(ctx, key, token, time.Time{})
			if errors.Is(err, server.ErrNotFound) {
				err = fmt.Errorf("%w: %w", err, server.ErrTokenRevoked)
			}
			return t, err
		},
		fail: []string{"TokenCredentials/Unknown", "TokenCredentials/Exact"},
	},
}

// racy wraps the lookups of m so that they share one field: concurrent
// lookups answer for each other's keys. It uses atomics, so that the race
// detector, which would fail the test that reports the failure, keeps
// quiet.
func racy(m *mapStore) funcStore {
	var key, token atomic.Pointer[string]
	return funcStore{
		consumer: func(ctx context.Context, k string) (server.Registration, error) {
			key.Store(&k)
			time.Sleep(100 * time.Microsecond)
			return m.Consumer(ctx, *key.Load(), time.Time{})
		},
		token: func(ctx context.Context, k, tok string, _ time.Time) (server.TokenCredentials, error) {
			token.Store(&tok)
			time.Sleep(100 * time.Microsecond)
			return m.TokenCredentials(ctx, k, *token.Load(), time.Time{})
		},
	}
}

func brokenStore(i int, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) funcStore {
	b := brokenStores[i]
	var m *mapStore
	if b.seed != nil {
		m = b.seed(consumers, tokens, revoked)
	} else {
		m = newMapStore(nil, consumers, tokens, revoked).(*mapStore)
	}
	if b.name == "Racy" {
		return racy(m)
	}
	f := funcStore{consumer: func(ctx context.Context, key string) (server.Registration, error) {
		return m.Consumer(ctx, key, time.Time{})
	}, token: m.TokenCredentials}
	if b.consumer != nil {
		f.consumer = func(ctx context.Context, key string) (server.Registration, error) { return b.consumer(m, ctx, key) }
	}
	if b.token != nil {
		f.token = func(ctx context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
			return b.token(m, ctx, key, token)
		}
	}
	return f
}

// TestBrokenStores checks that the suites fail each broken store in the
// subtests of the rule it breaks, and in no other. The suites fail the
// test they are given, so the broken stores run in a child process, this
// test binary run again with OAUTH1TEST_BROKEN=1, whose verbose output
// names the subtests that failed.
func TestBrokenStores(t *testing.T) {
	if os.Getenv("OAUTH1TEST_BROKEN") == "1" {
		for i, b := range brokenStores {
			if name, ok := strings.CutPrefix(b.name, "ConsumerStore/"); ok {
				t.Run("ConsumerStore", func(t *testing.T) {
					t.Run(name, func(t *testing.T) {
						oauth1test.TestConsumerStore(t, func(t *testing.T, consumers map[string]server.Registration) server.ConsumerStore {
							return brokenStore(i, consumers, nil, nil)
						})
					})
				})
				continue
			}
			t.Run(b.name, func(t *testing.T) {
				oauth1test.TestCredentialStore(t, func(t *testing.T, consumers map[string]server.Registration, tokens, revoked []server.TokenCredentials) server.CredentialStore {
					return brokenStore(i, consumers, tokens, revoked)
				})
			})
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenStores$", "-test.v")
	cmd.Env = append(os.Environ(), "OAUTH1TEST_BROKEN=1")
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); !ok {
		t.Fatalf("running the broken stores: %v\n%s", err, out)
	}
	var failed []string
	for _, m := range regexp.MustCompile(`--- FAIL: TestBrokenStores/(\S+)`).FindAllStringSubmatch(string(out), -1) {
		failed = append(failed, m[1])
	}
	for _, b := range brokenStores {
		// The leaves: failed subtests none of whose subtests failed.
		var got []string
		for _, f := range failed {
			rest, ok := strings.CutPrefix(f, b.name+"/")
			if ok && !slices.ContainsFunc(failed, func(g string) bool { return strings.HasPrefix(g, f+"/") }) {
				got = append(got, rest)
			}
		}
		want := slices.Clone(b.fail)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: failed subtests %q, want %q", b.name, got, want)
		}
	}
	if t.Failed() {
		t.Logf("output of the broken stores:\n%s", out)
	}
}
