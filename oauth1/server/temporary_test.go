package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fillTemporary puts n temporary credentials for client into m, expiring
// one a millisecond from start on.
func fillTemporary(t testing.TB, m *MemoryTemporaryStore, client string, n int, start time.Time) {
	t.Helper()
	for i := range n {
		tc := TemporaryCredentials{Token: fmt.Sprint(client, "-", i), ConsumerKey: client, Callback: "oob",
			Expires: start.Add(time.Duration(i+1) * time.Millisecond)}
		if err := m.PutTemporary(context.Background(), tc, start); err != nil {
			t.Fatalf("PutTemporary %d: %v", i, err)
		}
	}
}

// TestMemoryTemporaryStoreFullExpiryCost checks that a full store drops what
// expired without looking at everything it keeps: a client that keeps the
// store full must not make every PutTemporary walk it under the lock.
func TestMemoryTemporaryStoreFullExpiryCost(t *testing.T) {
	const limit = 1 << 12
	now := time.Unix(1700000000, 0)
	m := &MemoryTemporaryStore{MaxTemporary: limit, MaxTemporaryPerClient: -1}
	fillTemporary(t, m, "hog", limit, now)
	m.expiryWork = 0
	// From here on, one entry expires before each PutTemporary.
	for i := range 100 {
		now = now.Add(time.Millisecond)
		tc := TemporaryCredentials{Token: fmt.Sprint("next-", i), ConsumerKey: "hog", Callback: "oob", Expires: now.Add(time.Hour)}
		if err := m.PutTemporary(context.Background(), tc, now); err != nil {
			t.Fatalf("PutTemporary %d into a full store after an expiry: %v", i, err)
		}
	}
	if per := m.expiryWork / 100; per > 8 {
		t.Errorf("expiry looked at %d entries per PutTemporary into a full store of %d; want a few", per, limit)
	}
}

// TestMemoryTemporaryStorePerClientQuota checks that one client cannot take
// every temporary credential: past its quota it is refused, with an error
// that names it, while another client still gets credentials.
func TestMemoryTemporaryStorePerClientQuota(t *testing.T) {
	now := time.Unix(1700000000, 0)
	m := new(MemoryTemporaryStore)
	fillTemporary(t, m, "hog", defaultMaxTemporaryPerClient, now.Add(time.Hour))
	err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "one-more", ConsumerKey: "hog", Expires: now.Add(time.Hour)}, now)
	if !errors.Is(err, ErrStoreFull) || !strings.Contains(fmt.Sprint(err), `"hog"`) {
		t.Errorf("PutTemporary over the client's quota: %v, want ErrStoreFull naming the client", err)
	}
	if err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "other", ConsumerKey: "polite", Expires: now.Add(time.Hour)}, now); err != nil {
		t.Errorf("PutTemporary for another client: %v", err)
	}
	// Once some of the client's credentials expire, it gets new ones.
	now = now.Add(time.Hour + time.Millisecond)
	if err := m.PutTemporary(context.Background(), TemporaryCredentials{Token: "later", ConsumerKey: "hog", Expires: now.Add(time.Hour)}, now); err != nil {
		t.Errorf("PutTemporary once the client's first credentials expired: %v", err)
	}
	// Exchanged credentials count until they expire; their owner still
	// gets its quota back then.
	small := &MemoryTemporaryStore{MaxTemporaryPerClient: 2}
	fillTemporary(t, small, "c", 2, now)
	if _, err := small.TakeTemporary(context.Background(), "c-0", now); err != nil {
		t.Fatal(err)
	}
	if err := small.PutTemporary(context.Background(), TemporaryCredentials{Token: "x", ConsumerKey: "c", Expires: now.Add(time.Hour)}, now); !errors.Is(err, ErrStoreFull) {
		t.Errorf("PutTemporary with exchanged credentials unexpired: %v, want ErrStoreFull", err)
	}
	now = now.Add(2 * time.Millisecond)
	if _, err := small.Temporary(context.Background(), "c-0", now); !errors.Is(err, ErrNotFound) {
		t.Errorf("Temporary after expiry: %v", err)
	}
	if err := small.PutTemporary(context.Background(), TemporaryCredentials{Token: "y", ConsumerKey: "c", Expires: now.Add(time.Hour)}, now); err != nil {
		t.Errorf("PutTemporary once the client's credentials expired: %v", err)
	}
}

// BenchmarkMemoryTemporaryStoreFull measures PutTemporary into a store kept
// full at the default capacity, one entry expiring before each call.
func BenchmarkMemoryTemporaryStoreFull(b *testing.B) {
	now := time.Unix(1700000000, 0)
	m := &MemoryTemporaryStore{MaxTemporaryPerClient: -1}
	fillTemporary(b, m, "hog", defaultMaxTemporary, now)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now = now.Add(time.Millisecond)
		// The same lifetime as the first: one expires before each call.
		tc := TemporaryCredentials{Token: fmt.Sprint("b-", i), ConsumerKey: "hog", Expires: now.Add(defaultMaxTemporary * time.Millisecond)}
		if err := m.PutTemporary(context.Background(), tc, now); err != nil {
			b.Fatal(err)
		}
	}
}
