package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 70,000 users of one client: the server goes down halfway, the re-run
// resumes, and every token is exchanged exactly once. Long: behind
// COUNTERSIGN_LONG_TESTS=1, which .ci/run sets.
func TestMigrateScale(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("70,000 exchanges; set COUNTERSIGN_LONG_TESTS=1 to run")
	}
	const n = 70000
	saved := migUsers
	t.Cleanup(func() { migUsers = saved })
	migUsers = nil
	var in strings.Builder
	for i := range n {
		u := [2]string{fmt.Sprintf("%d-token", i), fmt.Sprintf("token-SECRET-%d", i)}
		migUsers = append(migUsers, u)
		fmt.Fprintf(&in, `{"Token":%q,"Secret":%q,"user_id":%d}`+"\n", u[0], u[1], i)
	}
	s, tokenURL := newMigXServer(t)
	s.failAfter = n / 2
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL,
		"--out", out, "--concurrency", "16", "--rate", "1000000/1s"}
	start := time.Now()
	code, _, stderr := migRun(t, in.String(), args...)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, fmt.Sprintf("oauth1 migrate: %d exchanged, %d failed", n/2, n/2))
	first := time.Since(start)
	s.mu.Lock()
	s.failAfter = 0
	s.mu.Unlock()
	code, _, stderr = migRun(t, in.String(), args...)
	require.Equal(t, exitOK, code, stderr[max(0, len(stderr)-500):])
	assert.Contains(t, stderr, fmt.Sprintf("oauth1 migrate: %d exchanged, 0 failed, %d skipped", n/2, n/2))
	for _, u := range migUsers {
		if s.perToken[u[0]] != 1 {
			t.Fatalf("%s exchanged %d times", u[0], s.perToken[u[0]])
		}
	}
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, n, strings.Count(string(b), "\n"))
	t.Logf("first run (half fails) %s, resume %s, output %d bytes", first, time.Since(start)-first, len(b))
}
