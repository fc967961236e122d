//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainEnv makes the test binary run as oauth1 itself: the interrupt tests
// start it as a real process, to send it a real SIGINT.
const mainEnv = "COUNTERSIGN_TEST_RUN_OAUTH1_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// holdServer stands in for X in front of migXServer: it answers the first
// `through` exchanges at once, then holds every request that arrives (it
// reports each on held) until release is closed, and only then lets the
// provider exchange the token, whether or not the client still listens:
// a provider that has begun an exchange finishes it.
type holdServer struct {
	x       *migXServer
	through int
	held    chan string // the token of each request held
	done    chan string // the token of each held request, once answered
	release chan struct{}
	once    sync.Once

	mu      sync.Mutex
	arrived int
}

func (h *holdServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body) // now: a client gone later leaves nothing to read
	r.Body = io.NopCloser(bytes.NewReader(b))
	h.mu.Lock()
	h.arrived++
	hold := h.arrived > h.through
	h.mu.Unlock()
	if !hold {
		h.x.ServeHTTP(w, r)
		return
	}
	tok := ""
	if m := subjectToken.FindSubmatch(b); m != nil {
		tok = string(m[1])
	}
	h.held <- tok
	<-h.release
	h.x.ServeHTTP(w, r)
	h.done <- tok
}

var subjectToken = regexp.MustCompile(`subject_token=([^&]*)`)

func newLoopbackServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func (h *holdServer) letGo() { h.once.Do(func() { close(h.release) }) }

// migProcess is oauth1 migrate running as a process.
type migProcess struct {
	cmd    *exec.Cmd
	lines  chan string // stderr, line by line
	stderr strings.Builder
	exit   chan error
}

func startMigrate(t *testing.T, args ...string) *migProcess {
	t.Helper()
	p := &migProcess{lines: make(chan string, 1000), exit: make(chan error, 1)}
	p.cmd = exec.Command(os.Args[0], append([]string{"migrate"}, args...)...)
	p.cmd.Env = append(os.Environ(), mainEnv+"=1")
	errPipe, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	t.Cleanup(func() { p.cmd.Process.Kill() })
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.exit <- p.cmd.Wait()
	}()
	return p
}

// await returns the first line of stderr that contains want, or fails
// after 10 s.
func (p *migProcess) await(t *testing.T, want string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("oauth1 migrate ended without printing %q; stderr:\n%s", want, p.stderr.String())
			}
			p.stderr.WriteString(l + "\n")
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("oauth1 migrate did not print %q within 10 s; stderr so far:\n%s", want, p.stderr.String())
		}
	}
}

// wait returns the exit status and the whole stderr, or kills the process
// and fails if it has not ended within 10 s.
func (p *migProcess) wait(t *testing.T) (int, string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if ok {
				p.stderr.WriteString(l + "\n")
				continue
			}
			p.lines = nil
		case err := <-p.exit:
			if err != nil && p.cmd.ProcessState == nil {
				t.Fatal(err)
			}
			if p.lines != nil { // closed before exit is sent: this ends
				for l := range p.lines {
					p.stderr.WriteString(l + "\n")
				}
			}
			return p.cmd.ProcessState.ExitCode(), p.stderr.String()
		case <-timeout:
			p.cmd.Process.Kill()
			t.Fatalf("oauth1 migrate still running 10 s after the interrupt; stderr so far:\n%s", p.stderr.String())
		}
	}
}

// receive takes n values from ch, or fails after 10 s.
func receive(t *testing.T, ch chan string, n int, what string) []string {
	t.Helper()
	var got []string
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case v := <-ch:
			got = append(got, v)
		case <-timeout:
			t.Fatalf("%d of %d %s within 10 s", len(got), n, what)
		}
	}
	return got
}

// outTokens reads --out: every line complete (ending in a newline), a
// JSON object with a Token, no secret and an OAuth 2.0 access token, no
// token twice. It returns the access token of each token.
func outTokens(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	if len(b) > 0 {
		require.Equal(t, byte('\n'), b[len(b)-1], "the last line of --out is torn: %q", b[max(0, len(b)-80):])
	}
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" && len(b) == 0 {
			break
		}
		var v struct {
			Token  string
			Secret *string
			OAuth2 struct {
				AccessToken string `json:"access_token"`
			} `json:"oauth2"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &v), "a torn or invalid line in --out: %q", l)
		require.NotEmpty(t, v.Token, l)
		require.Nil(t, v.Secret, l)
		require.True(t, strings.HasPrefix(v.OAuth2.AccessToken, "at-"+v.Token+"-"), l)
		require.NotContains(t, got, v.Token, "%s written twice", v.Token)
		got[v.Token] = v.OAuth2.AccessToken
	}
	return got
}

// TestMigrateInterrupt presses Ctrl-C (a real SIGINT to a real process) in
// the middle of a migration, at a moment the test controls: the provider
// answers `through` exchanges, then holds the next ones, so that exactly
// --concurrency are in flight when the signal arrives, and lets them go
// only once the process has said it saw the interrupt. Order of events:
//
//  1. through answered; c held (in flight); SIGINT.
//  2. The process says it was interrupted, before any held answer comes.
//  3. "finish": the provider answers the held requests: the process must
//     write those answers (the provider has revoked those 1.0a tokens: the
//     answer is the user's only valid pair), start nothing more, and exit
//     1 promptly, its summary naming the interruption and what is left.
//     "abandon": a second SIGINT while the provider still holds: the
//     process must exit promptly anyway, naming each token it abandoned in
//     flight; the provider then exchanges them all the same, with nobody
//     listening.
//
// The invariants, checked across the interrupted run and a resume (the
// provider no longer holding):
//
//   - every line of --out is a complete JSON line, and holds the answer of
//     its token's first exchange;
//   - after the resume, every token was exchanged and is in --out once;
//   - no token in --out after the first run is exchanged again;
//   - a token is exchanged twice only if the first run printed that it
//     abandoned it in flight (so its answer was sent but never received),
//     and with "finish" no token is exchanged twice;
//   - no exchange starts once the process has said it was interrupted.
func TestMigrateInterrupt(t *testing.T) {
	const n, through, c = 20, 6, 4
	for _, mode := range []string{"finish", "abandon"} {
		t.Run(mode, func(t *testing.T) {
			x, _ := newMigXServer(t)
			h := &holdServer{x: x, through: through, held: make(chan string, n), done: make(chan string, n), release: make(chan struct{})}
			srv := newLoopbackServer(t, h)
			t.Cleanup(h.letGo) // before the server closes: no handler left holding
			tokenURL := srv + "/2/oauth2/token"

			var in strings.Builder
			var tokens, secrets []string
			for i := range n {
				tok, sec := fmt.Sprintf("int-%02d-token", i), fmt.Sprintf("int-SECRET-%02d", i)
				tokens, secrets = append(tokens, tok), append(secrets, sec)
				fmt.Fprintf(&in, `{"Token":%q,"Secret":%q,"user_id":%d}`+"\n", tok, sec, i)
			}
			dir := t.TempDir()
			input := filepath.Join(dir, "tokens.jsonl")
			require.NoError(t, os.WriteFile(input, []byte(in.String()), 0o600))
			out := filepath.Join(dir, "out.jsonl")
			fails := filepath.Join(dir, "failures.jsonl")
			args := []string{"--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL,
				"--out", out, "--failures", fails, "--concurrency", fmt.Sprint(c), "--rate", "1000000/1s", input}

			start := time.Now()
			p := startMigrate(t, args...)
			held := receive(t, h.held, c, "requests held")
			require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
			assert.Equal(t, fmt.Sprintf("oauth1 migrate: interrupted: no exchange starts; waiting for the %d in flight (up to 1m0s), whose answers are written; Ctrl-C again abandons them", c),
				p.await(t, "interrupted"))
			var abandoned []string
			if mode == "finish" {
				h.letGo()
				receive(t, h.done, c, "held requests answered")
			} else {
				require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
			}
			code, stderr := p.wait(t)
			elapsed := time.Since(start)
			if mode == "abandon" {
				for _, m := range regexp.MustCompile(`token (\S+)\): abandoned in flight`).FindAllStringSubmatch(stderr, -1) {
					abandoned = append(abandoned, m[1])
				}
				assert.ElementsMatch(t, held, abandoned, "each token abandoned in flight is named")
				h.letGo() // the provider exchanges them with nobody listening
				receive(t, h.done, c, "held requests answered")
			}
			assert.Equal(t, exitInterrupted, code, "an interrupted run exits with its own status; stderr:\n%s", stderr)
			for _, s := range append(secrets, migClientSecret) {
				assert.NotContains(t, stderr, s)
			}
			first := outTokens(t, out)
			// --failures names each token abandoned in flight, and only those:
			// a token not attempted is resumed by a re-run, not a failure.
			var failed []string
			for _, f := range readFailures(t, fails) {
				assert.Equal(t, "abandoned", f["failure"].(map[string]any)["kind"], f)
				failed = append(failed, f["Token"].(string))
			}
			assert.ElementsMatch(t, abandoned, failed, "--failures holds the tokens abandoned in flight")
			if mode == "finish" {
				assert.Regexp(t, fmt.Sprintf(`(?m)^oauth1 migrate: %d exchanged, 0 failed, %d not attempted \(interrupted; run again to resume\) in \S+$`, through+c, n-through-c), stderr)
				assert.Len(t, first, through+c, "the held answers are written")
				for _, tok := range held {
					assert.Contains(t, first, tok, "%s: its answer, sent after the interrupt, is written", tok)
				}
			} else {
				assert.Regexp(t, fmt.Sprintf(`(?m)^oauth1 migrate: %d exchanged, 0 failed, %d abandoned in flight \(the provider may have exchanged them\), %d not attempted \(interrupted; run again to resume\) in \S+; failures in %s \(--only %[4]s re-runs them\)$`, through, c, n-through-c, regexp.QuoteMeta(fails)), stderr)
				assert.Len(t, first, through)
			}
			h.mu.Lock()
			assert.Equal(t, through+c, h.arrived, "no exchange started after the interrupt")
			h.mu.Unlock()

			// The resume: the provider answers at once.
			p = startMigrate(t, args...)
			code, stderr2 := p.wait(t)
			assert.Equal(t, exitOK, code, stderr2)
			assert.Regexp(t, fmt.Sprintf(`(?m)^oauth1 migrate: %d exchanged, 0 failed, %d skipped \(already in %s\) in \S+$`, n-len(first), len(first), regexp.QuoteMeta(out)), stderr2)
			all := outTokens(t, out)
			assert.Len(t, all, n)
			x.mu.Lock()
			defer x.mu.Unlock()
			twice := 0
			for _, tok := range tokens {
				assert.Contains(t, all, tok, "%s in --out", tok)
				if at, ok := first[tok]; ok {
					assert.Equal(t, "at-"+tok+"-1", at, "the first run wrote the answer of the first exchange")
					assert.Equal(t, at, all[tok], "the resume left the line alone")
				}
				switch x.perToken[tok] {
				case 1:
				case 2:
					twice++
					assert.NotContains(t, first, tok, "%s: written by the first run, exchanged again", tok)
					assert.Contains(t, abandoned, tok, "%s exchanged twice, but the first run did not say it abandoned it", tok)
				default:
					t.Errorf("%s exchanged %d times", tok, x.perToken[tok])
				}
			}
			assert.Len(t, x.problems, 0)
			t.Logf("%s: %d exchanged before Ctrl-C, %d in flight, %d written by the first run, %d exchanged twice (abandoned), interrupted run %s, both %s",
				mode, through, c, len(first), twice, elapsed.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
		})
	}
}
