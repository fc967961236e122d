package tokenexchange

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
)

// TestSeventyThousandUsers exchanges the grants of 70,000 users of one
// client through one Handler, each once: 70,000 Issue calls, a second
// round all repeats within the window, a third after it all refused; the
// MemoryStore drops every answer once the window has passed, and every
// record once its token is revoked (and a minute after). It takes
// several seconds: COUNTERSIGN_LONG_TESTS=1 runs it.
func TestSeventyThousandUsers(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("70,000 exchanges take several seconds: set COUNTERSIGN_LONG_TESTS=1")
	}
	const users = 70_000
	f := newFixture(t)
	f.tokens.MaxTokensPerClient = -1
	f.h.RepeatWindow = time.Hour // the clock moves; no timer fires in the test
	f.h.Observe = nil
	ctx := context.Background()
	for i := range users {
		require.NoError(t, f.tokens.PutToken(ctx, server.TokenCredentials{
			Token: fmt.Sprintf("tok-u%d", i), Secret: fmt.Sprintf("ts-SECRET-u%d", i),
			ConsumerKey: consumerKey, User: fmt.Sprintf("user-%d", i), Scope: "read",
		}, f.clock.now()))
	}
	exchange := func(i int) int {
		w := httptest.NewRecorder()
		f.h.ServeHTTP(w, post(secretForm("subject_token", fmt.Sprintf("tok-u%d", i), "oauth_token_secret", fmt.Sprintf("ts-SECRET-u%d", i)), clientID, clientSecret))
		return w.Code
	}
	start := time.Now()
	for i := range users {
		require.Equal(t, 200, exchange(i), "user %d", i)
	}
	t.Logf("70,000 exchanges in %v", time.Since(start))
	require.EqualValues(t, users, f.issued.Load())
	for i := 0; i < users; i += 97 {
		require.Equal(t, 200, exchange(i), "repeat %d", i)
	}
	require.EqualValues(t, users, f.issued.Load())

	f.clock.add(2 * time.Hour)
	for i := 0; i < users; i += 97 {
		require.Equal(t, 400, exchange(i), "after the window %d", i)
	}
	store := f.h.Store.(*MemoryStore)
	store.mu.Lock()
	kept := 0
	for _, r := range store.grants {
		if r.answer != nil {
			kept++
		}
	}
	n := len(store.grants)
	store.mu.Unlock()
	require.Zero(t, kept, "answers kept past the window")
	require.Equal(t, users, n, "records of the exchanges")

	// Every token revoked (RevokeDue, from a ticker), and a minute
	// after: the store is empty.
	n, err := f.h.RevokeDue(ctx)
	require.NoError(t, err)
	require.Greater(t, n, users-users/97-1-sweepBatch, "revoked by RevokeDue: all but those the third round revoked")
	due, err := store.Due(ctx, f.clock.now(), 1)
	require.NoError(t, err)
	require.Empty(t, due)
	f.clock.add(2 * time.Minute)
	store.Claim(ctx, "sweep", "o", time.Minute, f.clock.now())
	store.mu.Lock()
	n = len(store.grants)
	store.mu.Unlock()
	require.Equal(t, 1, n, "records kept past their revocation")

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("heap after: %d MB", ms.HeapAlloc>>20)
	require.EqualValues(t, users, f.issued.Load())
}
