package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readFailures parses a --failures file: one JSON object per line.
func readFailures(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		got = append(got, m)
	}
	return got
}

// A refused token and a line that is not credentials are written to
// --failures, one JSON line each and no secret, and --only re-runs just
// the refused token, taking its credentials from the (corrected) input.
func TestMigrateFailuresFile(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	dir := t.TempDir()
	fails := filepath.Join(dir, "failures.jsonl")
	in := strings.Replace(migInput(), `"token-SECRET-2"`, `"wrong-SECRET-2"`, 1) + "not json token-SECRET-9\n"
	args := []string{"--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL}
	code, stdout, stderr := migRun(t, in, append(args, "--failures", fails)...)
	assert.Equal(t, exitFailure, code, stderr)
	assert.Equal(t, 4, strings.Count(stdout, "\n"))
	assert.Contains(t, stderr, "oauth1 migrate: 4 exchanged, 2 failed in ")
	assert.Contains(t, stderr, "; failures in "+fails+" (--only "+fails+" re-runs them)\n")

	b, err := os.ReadFile(fails)
	require.NoError(t, err)
	noSecrets(t, string(b))
	assert.NotContains(t, string(b), "wrong-SECRET-2")
	fi, err := os.Stat(fails)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	got := readFailures(t, fails)
	require.Len(t, got, 2)
	// The input's failure is found as the input is read, before any exchange.
	assert.Equal(t, map[string]any{"failure": map[string]any{"line": float64(6), "kind": "input", "message": "line 6 is not a JSON object"}}, got[0])
	assert.Equal(t, map[string]any{"Token": "2-token", "user_id": float64(101), "failure": map[string]any{
		"line": float64(2), "kind": "provider", "status": float64(400), "error": "invalid_grant",
		"message": `exchange: the provider answered 400 Bad Request: "invalid_grant" ("Value passed for the token was invalid.")`,
	}}, got[1])

	// The re-run of just those, into the same file: only 2-token is sent.
	before := s.requests
	code, stdout, stderr = migRun(t, migInput(), append(args, "--only", fails, "--failures", fails)...)
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, 1, s.requests-before)
	assert.Equal(t, 1, strings.Count(stdout, "\n"))
	assert.Contains(t, stdout, `"Token":"2-token"`)
	assert.Regexp(t, `^oauth1 migrate: 1 exchanged, 0 failed in \S+\n$`, stderr)
	for _, u := range migUsers {
		assert.Equal(t, 1, s.perToken[u[0]], u[0])
	}
	assert.Empty(t, readFailures(t, fails), "the file holds this run's failures: none")
}

// A provider that cannot be reached is a failure of kind "request"; with
// the signed shape each failure names the consumer key.
func TestMigrateFailuresRequest(t *testing.T) {
	fails := filepath.Join(t.TempDir(), "failures.jsonl")
	env := map[string]string{"OAUTH1_CONSUMER_SECRET": "consumer-SECRET"}
	var o, e strings.Builder
	code := run([]string{"migrate", "--provider", "signed", "--client-id", migClientID, "--consumer-key", "ck-1",
		"--token-url", "http://127.0.0.1:1/migrate", "--failures", fails, "--retries", "0"},
		strings.NewReader(`{"Token":"t-1","Secret":"token-SECRET-1","user_id":7}`), &o, &e, func(k string) string { return env[k] })
	assert.Equal(t, exitFailure, code, e.String())
	got := readFailures(t, fails)
	require.Len(t, got, 1)
	f := got[0]["failure"].(map[string]any)
	assert.Equal(t, "t-1", got[0]["Token"])
	assert.Equal(t, "request", f["kind"])
	assert.Equal(t, "ck-1", f["consumer_key"])
	assert.NotContains(t, f, "status")
	b, _ := os.ReadFile(fails)
	assert.NotContains(t, string(b), "SECRET")
}

// Each outcome has its own exit status: 0 all exchanged, 1 some failed, 2
// nothing exchanged because the command or its files are wrong, and
// exitInterrupted (TestMigrateInterrupt) when Ctrl-C left tokens undone.
func TestMigrateExitStatus(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	dir := t.TempDir()
	args := []string{"--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL}
	for _, tc := range []struct {
		name  string
		in    string
		extra []string
		want  int
	}{
		{"all exchanged", `{"Token":"1-token","Secret":"token-SECRET-1"}`, nil, exitOK},
		{"one refused", `{"Token":"2-token","Secret":"wrong-SECRET-2"}`, nil, exitFailure},
		{"--out cannot be opened", `{"Token":"3-token","Secret":"token-SECRET-3"}`, []string{"--out", filepath.Join(dir, "no", "such", "dir")}, exitUsage},
		{"--failures cannot be opened", `{"Token":"3-token","Secret":"token-SECRET-3"}`, []string{"--failures", filepath.Join(dir, "no", "such", "dir")}, exitUsage},
		{"--failures is --out", `{"Token":"3-token","Secret":"token-SECRET-3"}`, []string{"--out", filepath.Join(dir, "o"), "--failures", filepath.Join(dir, "o")}, exitUsage},
		{"--only cannot be read", `{"Token":"3-token","Secret":"token-SECRET-3"}`, []string{"--only", filepath.Join(dir, "none")}, exitUsage},
		{"dry run of nothing", "", []string{"--dry-run"}, exitUsage},
	} {
		code, _, stderr := migRun(t, tc.in, append(args, tc.extra...)...)
		assert.Equal(t, tc.want, code, "%s: %s", tc.name, stderr)
	}
	assert.Zero(t, s.perToken["3-token"], "nothing is exchanged when an output cannot be opened")
}
