package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fillTokens puts n temporary credentials for client into m, expiring
// one a millisecond from start on.
func fillTokens(t testing.TB, m *MemoryTokenStore, client string, n int, start time.Time) {
	t.Helper()
	for i := range n {
		tc := TemporaryCredentials{Token: fmt.Sprint(client, "-", i), ConsumerKey: client, Callback: "oob",
			Expires: start.Add(time.Duration(i+1) * time.Millisecond)}
		if err := m.PutTemporary(context.Background(), tc); err != nil {
			t.Fatalf("PutTemporary %d: %v", i, err)
		}
	}
}

// TestMemoryTokenStoreFullExpiryCost checks that a full store drops what
// expired without looking at everything it keeps: a client that keeps the
// store full must not make every PutTemporary walk it under the lock.
func TestMemoryTokenStoreFullExpiryCost(t *testing.T) {
	const limit = 1 << 12
	now := time.Unix(1700000000, 0)
	m := &MemoryTokenStore{Now: func() time.Time { return now }, MaxTemporary: limit, MaxTemporaryPerClient: -1}
	fillTokens(t, m, "hog", limit, now)
	m.expiryWork = 0
	// From here on, one entry expires before each PutTemporary.
	for i := range 100 {
		now = now.Add(time.Millisecond)
		tc := TemporaryCredentials{Token: fmt.Sprint("next-", i), ConsumerKey: "hog", Callback: "oob", Expires: now.Add(time.Hour)}
		if err := m.PutTemporary(context.Background(), tc); err != nil {
			t.Fatalf("PutTemporary %d into a full store after an expiry: %v", i, err)
		}
	}
	if per := m.expiryWork / 100; per > 8 {
		t.Errorf("expiry looked at %d entries per PutTemporary into a full store of %d; want a few", per, limit)
	}
}

// TestMemoryTokenStoreTokenNotBehindTemporary checks that looking up token
// credentials, which every request to a protected resource does, never
// waits for the lock that storing temporary credentials takes.
func TestMemoryTokenStoreTokenNotBehindTemporary(t *testing.T) {
	m := new(MemoryTokenStore)
	if err := m.PutToken(context.Background(), TokenCredentials{Token: "t", ConsumerKey: "c"}); err != nil {
		t.Fatal(err)
	}
	m.tempMu.Lock() // as a PutTemporary that takes long would
	defer m.tempMu.Unlock()
	done := make(chan error, 1)
	go func() {
		_, err := m.Token(context.Background(), "t")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second): // a deadlock, not a timing
		t.Fatal("Token waited for the temporary credentials' lock")
	}
}

// TestMemoryTokenStorePerClientQuota checks that one client cannot take
// every temporary credential: past its quota it is refused, with an error
// that names it, while another client still gets credentials.
func TestMemoryTokenStorePerClientQuota(t *testing.T) {
	now := time.Unix(1700000000, 0)
	m := &MemoryTokenStore{Now: func() time.Time { return now }}
	fillTokens(t, m, "hog", defaultMaxTemporaryPerClient, now.Add(time.Hour))
	err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "one-more", ConsumerKey: "hog", Expires: now.Add(time.Hour)})
	if !errors.Is(err, ErrTokenStoreFull) || !strings.Contains(fmt.Sprint(err), `"hog"`) {
		t.Errorf("PutTemporary over the client's quota: %v, want ErrTokenStoreFull naming the client", err)
	}
	if err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "other", ConsumerKey: "polite", Expires: now.Add(time.Hour)}); err != nil {
		t.Errorf("PutTemporary for another client: %v", err)
	}
	// Once some of the client's credentials expire, it gets new ones.
	now = now.Add(time.Hour + time.Millisecond)
	if err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "later", ConsumerKey: "hog", Expires: now.Add(time.Hour)}); err != nil {
		t.Errorf("PutTemporary once the client's first credentials expired: %v", err)
	}
	// Exchanged credentials count until they expire; their owner still
	// gets its quota back then.
	small := &MemoryTokenStore{Now: func() time.Time { return now }, MaxTemporaryPerClient: 2}
	fillTokens(t, small, "c", 2, now)
	if _, err := small.TakeTemporary(context.Background(), "c-0"); err != nil {
		t.Fatal(err)
	}
	if err := small.PutTemporary(context.Background(), TemporaryCredentials{Token: "x", ConsumerKey: "c", Expires: now.Add(time.Hour)}); !errors.Is(err, ErrTokenStoreFull) {
		t.Errorf("PutTemporary with exchanged credentials unexpired: %v, want ErrTokenStoreFull", err)
	}
	now = now.Add(2 * time.Millisecond)
	if _, err := small.Temporary(context.Background(), "c-0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Temporary after expiry: %v", err)
	}
	if err := small.PutTemporary(context.Background(), TemporaryCredentials{Token: "y", ConsumerKey: "c", Expires: now.Add(time.Hour)}); err != nil {
		t.Errorf("PutTemporary once the client's credentials expired: %v", err)
	}
}

// BenchmarkMemoryTokenStoreFull measures PutTemporary into a store kept
// full at the default capacity, one entry expiring before each call, and
// Token meanwhile.
func BenchmarkMemoryTokenStoreFull(b *testing.B) {
	now := time.Unix(1700000000, 0)
	m := &MemoryTokenStore{Now: func() time.Time { return now }, MaxTemporaryPerClient: -1}
	fillTokens(b, m, "hog", defaultMaxTemporary, now)
	m.PutToken(context.Background(), TokenCredentials{Token: "t", ConsumerKey: "c"})
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now = now.Add(time.Millisecond)
		// The same lifetime as the first: one expires before each call.
		tc := TemporaryCredentials{Token: fmt.Sprint("b-", i), ConsumerKey: "hog", Expires: now.Add(defaultMaxTemporary * time.Millisecond)}
		if err := m.PutTemporary(context.Background(), tc); err != nil {
			b.Fatal(err)
		}
		if _, err := m.Token(context.Background(), "t"); err != nil {
			b.Fatal(err)
		}
	}
}
