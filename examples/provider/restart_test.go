//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// COUNTERSIGN_RESTART=1 runs TestRestart, which .ci/run does: it builds
// the provider and drives it with Python's requests-oauthlib (Debian:
// python3-requests-oauthlib); without it the test skips, unless
// COUNTERSIGN_REQUIRE_INTEROP=1 makes that a failure. Its PostgreSQL half
// runs sqlstore's test server (go run ./internal/pgtest/pgserve in
// ../../sqlstore) and skips without PostgreSQL, unless
// COUNTERSIGN_REQUIRE_POSTGRES=1.
const restartEnv = "COUNTERSIGN_RESTART"

// restartUsers sign in to the consent page; each approves two flows it
// exchanges and one it leaves for after the restart.
var restartUsers = [][2]string{
	{"alice", "pw-alice"}, {"bob", "pw-bob"}, {"chandra", "pw-chandra"},
	{"dmitri", "pw-dmitri"}, {"eun-ji", "pw-eun-ji"},
}

// TestRestart kills the provider with SIGKILL in the middle of a real
// client's traffic and starts it again on the same database and port:
// every token issued before must still work, every request accepted before
// must be refused as a replay (nonce_used) when sent again byte for byte,
// and every approval not yet exchanged must still be exchangeable. Then
// SIGTERM must stop it cleanly.
func TestRestart(t *testing.T) {
	if os.Getenv(restartEnv) != "1" {
		t.Skipf("set %s=1 to run the provider's restart test (a build, a Python client, about a minute)", restartEnv)
	}
	python := requestsOAuthlib(t)
	bin := filepath.Join(t.TempDir(), "provider")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Run("SQLite", func(t *testing.T) { restart(t, python, bin, filepath.Join(t.TempDir(), "provider.db")) })
	t.Run("PostgreSQL", func(t *testing.T) { restart(t, python, bin, postgresDSN(t)) })
}

func restart(t *testing.T, python, bin, dsn string) {
	dir := t.TempDir()
	state, out := filepath.Join(dir, "state.json"), filepath.Join(dir, "traffic.jsonl")
	client, err := filepath.Abs("testdata/client.py")
	require.NoError(t, err)
	writeJSON(t, state, map[string]string{"key": "restart-client", "secret": "restart-secret"})
	users, _ := json.Marshal(restartUsers)

	p1 := startProvider(t, bin, dsn, "127.0.0.1:0")
	runPython(t, python, client, "setup", p1.base, state, string(users))

	// Traffic, then the kill in its middle: once 200 requests were
	// accepted and three flows exchanged during it.
	traffic := exec.Command(python, client, "traffic", p1.base, state, out)
	var trafficOut, trafficErr bytes.Buffer
	traffic.Stdout, traffic.Stderr = &trafficOut, &trafficErr
	require.NoError(t, traffic.Start())
	deadline := time.Now().Add(60 * time.Second)
	for {
		lines := countKinds(t, out)
		if lines["accepted"] >= 200 && lines["token"] >= 3 {
			break
		}
		if time.Now().After(deadline) {
			traffic.Process.Kill()
			traffic.Wait()
			t.Fatalf("the traffic did not reach 200 requests and 3 tokens in 60 s: %v\n%s\nprovider:\n%s", lines, &trafficErr, p1.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	p1.kill()
	if err := traffic.Wait(); err != nil {
		t.Fatalf("traffic: %v\n%s", err, &trafficErr)
	}
	t.Logf("traffic before the kill: %s", strings.TrimSpace(trafficOut.String()))

	p2 := startProvider(t, bin, dsn, strings.TrimPrefix(p1.base, "http://"))
	require.NotContains(t, p2.log(), "schema: applied", "the schema the first start made was not kept")
	var fig struct {
		Replayed           int `json:"replayed"`
		RefusedNonceUsed   int `json:"refused_nonce_used"`
		Tokens             int `json:"tokens"`
		TokensOK           int `json:"tokens_ok"`
		Approvals          int `json:"approvals"`
		ApprovalsExchanged int `json:"approvals_exchanged"`
		Failures           []string
	}
	require.NoError(t, json.Unmarshal(runPython(t, python, client, "check", p2.base, state, out), &fig))
	t.Logf("after the restart: %d requests replayed, %d refused nonce_used; %d tokens, %d work; %d approvals, %d exchanged",
		fig.Replayed, fig.RefusedNonceUsed, fig.Tokens, fig.TokensOK, fig.Approvals, fig.ApprovalsExchanged)
	for i, f := range fig.Failures {
		if i == 10 {
			t.Errorf("… and %d more", len(fig.Failures)-10)
			break
		}
		t.Error(f)
	}
	require.GreaterOrEqual(t, fig.Replayed, 200)
	require.Equal(t, fig.Replayed, fig.RefusedNonceUsed, "every request accepted before the kill is refused when replayed")
	require.GreaterOrEqual(t, fig.Tokens, 2*len(restartUsers)+3)
	require.Equal(t, fig.Tokens, fig.TokensOK, "every token issued before the kill works")
	require.GreaterOrEqual(t, fig.Approvals, len(restartUsers))
	require.Equal(t, fig.Approvals, fig.ApprovalsExchanged, "every approval not exchanged before the kill is exchanged")

	p2.stop(t)
}

// requestsOAuthlib returns a python3 that imports requests_oauthlib, or
// skips (fails, with COUNTERSIGN_REQUIRE_INTEROP=1).
func requestsOAuthlib(t *testing.T) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import requests_oauthlib").Run() == nil {
			return py
		}
	}
	msg := "no python3 imports requests_oauthlib (Debian: apt-get install python3-requests-oauthlib)"
	if os.Getenv("COUNTERSIGN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg + " (COUNTERSIGN_REQUIRE_INTEROP=1)")
	}
	t.Skip(msg)
	return ""
}

// runPython runs client.py and returns its standard output.
func runPython(t *testing.T, python string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client.py %s: %v\n%s", args[1], err, &stderr)
	}
	return out
}

// postgresDSN runs sqlstore's PostgreSQL for tests until t ends and
// returns the URL of an empty database on it.
func postgresDSN(t *testing.T) string {
	cmd := exec.Command("go", "run", "./internal/pgtest/pgserve")
	cmd.Dir = "../../sqlstore"
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		err = cmd.Wait()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 3 {
			if os.Getenv("COUNTERSIGN_REQUIRE_POSTGRES") == "1" {
				t.Fatalf("%s(COUNTERSIGN_REQUIRE_POSTGRES=1)", &stderr)
			}
			t.Skipf("%s(set COUNTERSIGN_REQUIRE_POSTGRES=1 to fail instead)", &stderr)
		}
		t.Fatalf("pgserve: %v\n%s", err, &stderr)
	}
	return strings.TrimSpace(line)
}

// A running provider.
type provider struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:port
	exit chan struct{}
	err  error // once exit is closed

	mu     sync.Mutex
	stderr bytes.Buffer
}

func (p *provider) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// startProvider starts bin on dsn and addr, and waits until it listens.
// A port just freed by a killed provider may take a moment to bind again:
// it tries five times.
func startProvider(t *testing.T, bin, dsn, addr string) *provider {
	t.Helper()
	var p *provider
	for try := 0; ; try++ {
		p = &provider{exit: make(chan struct{})}
		args := []string{"-db", dsn, "-addr", addr, "-consumer", "restart-client:restart-secret"}
		for _, u := range restartUsers {
			args = append(args, "-user", u[0]+":"+u[1])
		}
		p.cmd = exec.Command(bin, args...)
		stderr, err := p.cmd.StderrPipe()
		require.NoError(t, err)
		require.NoError(t, p.cmd.Start())
		listening := make(chan string, 1)
		go func() {
			s := bufio.NewScanner(stderr)
			for s.Scan() {
				p.mu.Lock()
				fmt.Fprintln(&p.stderr, s.Text())
				p.mu.Unlock()
				if _, url, ok := strings.Cut(s.Text(), "listening on "); ok {
					listening <- url
				}
			}
			p.err = p.cmd.Wait()
			close(p.exit)
		}()
		select {
		case p.base = <-listening:
			t.Cleanup(func() { p.cmd.Process.Kill(); <-p.exit })
			return p
		case <-p.exit:
			if try < 4 && strings.Contains(p.log(), "address already in use") {
				time.Sleep(500 * time.Millisecond)
				continue
			}
			t.Fatalf("the provider exited: %v\n%s", p.err, p.log())
		case <-time.After(60 * time.Second):
			p.cmd.Process.Kill()
			<-p.exit
			t.Fatalf("the provider did not listen within 60 s:\n%s", p.log())
		}
	}
}

// kill sends SIGKILL: no shutdown, no closing of the database.
func (p *provider) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exit
}

// stop sends SIGTERM, and fails t unless the provider shuts down cleanly.
func (p *provider) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exit:
	case <-time.After(15 * time.Second):
		t.Fatalf("the provider did not stop within 15 s of SIGTERM:\n%s", p.log())
	}
	require.NoError(t, p.err, p.log())
	require.Contains(t, p.log(), "stopped")
}

// countKinds counts the lines of the traffic file by kind.
func countKinds(t *testing.T, file string) map[string]int {
	n := map[string]int{}
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return n
	}
	require.NoError(t, err)
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			return n
		}
		require.NoError(t, err)
		var e struct{ Kind string }
		if json.Unmarshal([]byte(line), &e) == nil {
			n[e.Kind]++
		}
	}
}

func writeJSON(t *testing.T, file string, v any) {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, b, 0o600))
}
