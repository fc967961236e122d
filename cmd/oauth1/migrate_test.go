package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	migClientID     = "mig-client-id"
	migClientSecret = "mig-client-SECRET"
)

// migUsers are a dump of five users' 1.0a credentials.
var migUsers = func() [][2]string {
	var u [][2]string
	for i := 1; i <= 5; i++ {
		u = append(u, [2]string{fmt.Sprintf("%d-token", i), fmt.Sprintf("token-SECRET-%d", i)})
	}
	return u
}()

// migInput is the dump as json.Marshal writes oauth1.Credentials, with a
// field of the application's on each line.
func migInput() string {
	var b strings.Builder
	for i, u := range migUsers {
		fmt.Fprintf(&b, `{"Token":%q,"Secret":%q,"user_id":%d}`+"\n", u[0], u[1], 100+i)
	}
	return b.String()
}

// migXServer stands in for X's token endpoint: it refuses any request
// that differs from X's guide, and counts the exchanges of each token. After
// failAfter exchanges (when set) it answers 500, echoing the secret.
type migXServer struct {
	mu        sync.Mutex
	perToken  map[string]int
	requests  int
	failAfter int
	answer429 int // answer the first n requests with 429, Retry-After: 1
	problems  []string
}

func newMigXServer(t *testing.T) (*migXServer, string) {
	s := &migXServer{perToken: map[string]int{}}
	srv := httptest.NewUnstartedServer(s)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		for _, p := range s.problems {
			t.Errorf("X stand-in: %s", p)
		}
	})
	return s, srv.URL + "/2/oauth2/token"
}

func (s *migXServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	if s.requests <= s.answer429 {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(429)
		io.WriteString(w, `{"errors":[{"code":88,"message":"Rate limit exceeded"}]}`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(b))
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var keys []string
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(migClientID+":"+migClientSecret))
	switch {
	case r.Method != "POST", r.URL.Path != "/2/oauth2/token", mt != "application/x-www-form-urlencoded", r.Header.Get("Authorization") != basic,
		strings.Join(keys, ",") != "grant_type,oauth_token_secret,subject_token,subject_token_type",
		form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange",
		form.Get("subject_token_type") != "urn:x:params:oauth:token-type:oauth1_token":
		s.problems = append(s.problems, fmt.Sprintf("%s %s %s %q", r.Method, r.URL, r.Header, keys))
		w.WriteHeader(400)
		return
	}
	tok := form.Get("subject_token")
	if s.failAfter > 0 && len(s.perToken) >= s.failAfter {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(503)
		fmt.Fprintf(w, `{"error":"temporarily_unavailable","error_description":"down while exchanging %s with secret %s"}`, tok, form.Get("oauth_token_secret"))
		return
	}
	for _, u := range migUsers {
		if u[0] == tok && u[1] != form.Get("oauth_token_secret") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"error":"invalid_grant","error_description":"Value passed for the token was invalid."}`)
			return
		}
	}
	s.perToken[tok]++
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"token_type":"bearer","expires_in":7200,"access_token":"at-%s-%d","scope":"tweet.read offline.access","refresh_token":"rt-%s"}`, tok, s.perToken[tok], tok)
}

func migRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(append([]string{"migrate"}, args...), strings.NewReader(stdin), &o, &e, func(string) string { return "" })
	return code, o.String(), e.String()
}

// noSecrets fails if any 1.0a secret or the client secret is in out.
func noSecrets(t *testing.T, out string) {
	t.Helper()
	for _, u := range migUsers {
		assert.NotContains(t, out, u[1])
	}
	assert.NotContains(t, out, migClientSecret)
	assert.NotContains(t, out, `"Secret":`)
}

func TestMigrateX(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	in := migInput() + "\n" + `{"Token":"1-token","Secret":"token-SECRET-1"}` + "\n" // a blank line, a repeat
	code, stdout, stderr := migRun(t, in, "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL)
	assert.Equal(t, exitOK, code, stderr)
	noSecrets(t, stdout+stderr)
	assert.Regexp(t, `^oauth1 migrate: 5 exchanged, 0 failed, 1 repeated in the input \(exchanged once\) in \S+\n$`, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, 5)
	byUser := map[float64]map[string]any{}
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		byUser[m["user_id"].(float64)] = m
	}
	for i, u := range migUsers {
		m := byUser[float64(100+i)]
		require.NotNil(t, m)
		assert.Equal(t, u[0], m["Token"])
		assert.NotContains(t, m, "Secret")
		o2 := m["oauth2"].(map[string]any)
		assert.Equal(t, "at-"+u[0]+"-1", o2["access_token"])
		assert.Equal(t, "rt-"+u[0], o2["refresh_token"])
		assert.Equal(t, "bearer", o2["token_type"])
		assert.EqualValues(t, 7200, o2["expires_in"])
		expiry, err := time.Parse(time.RFC3339Nano, o2["expiry"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now().Add(2*time.Hour), expiry, time.Minute)
		assert.Equal(t, map[string]any{"scope": "tweet.read offline.access"}, m["oauth2_extra"])
		assert.Equal(t, 1, s.perToken[u[0]])
	}
}

// An interrupted run resumes: the server goes down after three exchanges;
// the second run skips what the file holds and exchanges each token once.
func TestMigrateResume(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	s.failAfter = 3
	out := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL, "--out", out, "--concurrency", "2"}
	code, stdout, stderr := migRun(t, migInput(), args...)
	assert.Equal(t, exitFailure, code)
	assert.Empty(t, stdout)
	noSecrets(t, stderr)
	assert.Contains(t, stderr, "oauth1 migrate: 3 exchanged, 2 failed in ")
	assert.Contains(t, stderr, `: exchange: the provider answered 503 Service Unavailable: "temporarily_unavailable" ("down while exchanging `)
	assert.Contains(t, stderr, "with secret REDACTED")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(b), "\n"))
	noSecrets(t, string(b))
	fi, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// A crash in the middle of a line: the partial line is cut off.
	f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	f.WriteString(`{"Token":"9-tok`)
	f.Close()

	s.mu.Lock()
	s.failAfter = 0
	s.mu.Unlock()
	code, stdout, stderr = migRun(t, migInput(), args...)
	assert.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "ended in a partial line")
	assert.Contains(t, stderr, "oauth1 migrate: 2 exchanged, 0 failed, 3 skipped (already in "+out+")")
	for _, u := range migUsers {
		assert.Equal(t, 1, s.perToken[u[0]], "%s exchanged once", u[0])
	}
	b, err = os.ReadFile(out)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	assert.Len(t, lines, 5)
	for _, l := range lines {
		assert.True(t, json.Valid([]byte(l)), l)
	}

	// Nothing left: a third run exchanges nothing.
	before := s.requests
	code, _, stderr = migRun(t, migInput(), args...)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "0 exchanged, 0 failed, 5 skipped")
	assert.Equal(t, before, s.requests)
}

func TestMigrate429(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	s.answer429 = 1
	start := time.Now()
	code, stdout, stderr := migRun(t, migInput(), "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL, "--concurrency", "1")
	assert.Equal(t, exitOK, code, stderr)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "Retry-After: 1 waited out")
	assert.Equal(t, 5, strings.Count(stdout, "\n"))
	for _, u := range migUsers {
		assert.Equal(t, 1, s.perToken[u[0]])
	}
}

func TestMigrateRate(t *testing.T) {
	_, tokenURL := newMigXServer(t)
	start := time.Now()
	code, _, stderr := migRun(t, migInput(), "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL, "--rate", "10/1s", "--concurrency", "5")
	assert.Equal(t, exitOK, code, stderr)
	assert.GreaterOrEqual(t, time.Since(start), 400*time.Millisecond, "5 requests spaced 100ms apart")
}

func TestMigrateFailures(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	in := migInput() + `{"Token":"1-token","Secret":"wrong-SECRET-x"}` + "\n" + "not json token-SECRET-9\n" + `{"Secret":"lonely-SECRET"}` + "\n"
	// The wrong secret is on its own line, after the right one: a repeat, not exchanged.
	code, stdout, stderr := migRun(t, in, "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "line 7 is not a JSON object")
	assert.Contains(t, stderr, "line 8 has no Token")
	assert.NotContains(t, stderr, "token-SECRET-9")
	assert.NotContains(t, stderr, "lonely-SECRET")
	assert.Contains(t, stderr, "5 exchanged, 2 failed, 1 repeated")
	noSecrets(t, stdout+stderr)

	code, _, stderr = migRun(t, `{"Token":"2-token","Secret":"wrong-SECRET-y"}`, "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `oauth1 migrate: line 1 (token 2-token): exchange: the provider answered 400 Bad Request: "invalid_grant" ("Value passed for the token was invalid.")`)
	assert.NotContains(t, stderr, "wrong-SECRET-y")
	assert.Equal(t, 1, s.perToken["2-token"])
}

func TestMigrateDryRun(t *testing.T) {
	s, tokenURL := newMigXServer(t)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	code, stdout, stderr := migRun(t, migInput(), "--provider", "x", "--client-id", migClientID, "--client-secret", migClientSecret, "--token-url", tokenURL, "--dry-run", "--out", out, "--scope", "tweet.read offline.access")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "POST "+tokenURL+"\nAuthorization: Basic REDACTED\nContent-Type: application/x-www-form-urlencoded\nAccept: application/json\n\n"+
		"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&oauth_token_secret=REDACTED&scope=tweet.read+offline.access&subject_token=1-token&subject_token_type=urn%3Ax%3Aparams%3Aoauth%3Atoken-type%3Aoauth1_token\n", stdout)
	assert.Equal(t, "oauth1 migrate: dry run: 5 credentials read, nothing exchanged\n", stderr)
	assert.Equal(t, 0, s.requests)
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "a dry run writes no --out")
	noSecrets(t, stdout+stderr)
}

func TestMigrateSigned(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"realmId":"4620816365","refresh_token":"AB11-r","x_refresh_token_expires_in":8726400,"access_token":"eyJ-a","token_type":"bearer","expires_in":3600}`)
	}))
	defer srv.Close()
	env := map[string]string{"OAUTH1_CONSUMER_KEY": "qyprd-key", "OAUTH1_CONSUMER_SECRET": "consumer-SECRET", "OAUTH2_CLIENT_SECRET": migClientSecret}
	args := []string{"migrate", "--provider", "signed", "--client-id", migClientID, "--token-url", srv.URL + "/v2/oauth2/tokens/migrate",
		"--scope", "com.intuit.quickbooks.accounting", "--field", "redirect_uri=https://developer.intuit.com/v2/OAuth2Playground/RedirectUrl"}
	var o, e bytes.Buffer
	code := run(append(args, "--dry-run"), strings.NewReader(migInput()), &o, &e, func(k string) string { return env[k] })
	assert.Equal(t, exitOK, code, e.String())
	assert.Empty(t, got)
	assert.Regexp(t, `^POST http://127.0.0.1:\d+/v2/oauth2/tokens/migrate\nAuthorization: OAuth oauth_consumer_key="qyprd-key", oauth_nonce="[^"]+", oauth_signature="REDACTED", oauth_signature_method="HMAC-SHA1", oauth_timestamp="\d+", oauth_token="1-token", oauth_version="1.0"\nContent-Type: application/json\nAccept: application/json\n\n`+
		`\{"client_id":"mig-client-id","client_secret":"REDACTED","redirect_uri":"https://developer.intuit.com/v2/OAuth2Playground/RedirectUrl","scope":"com.intuit.quickbooks.accounting"\}\n$`, o.String())
	noSecrets(t, o.String()+e.String())
	assert.NotContains(t, o.String()+e.String(), "consumer-SECRET")

	o.Reset()
	e.Reset()
	code = run(args, strings.NewReader(migInput()), &o, &e, func(k string) string { return env[k] })
	assert.Equal(t, exitOK, code, e.String())
	require.Len(t, got, 5)
	assert.True(t, strings.HasPrefix(got[0].Header.Get("Authorization"), "OAuth "))
	var body map[string]string
	require.NoError(t, json.Unmarshal([]byte(bodies[0]), &body))
	assert.Equal(t, migClientSecret, body["client_secret"])
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	require.Len(t, lines, 5)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &m))
	assert.Equal(t, map[string]any{"realmId": "4620816365", "x_refresh_token_expires_in": float64(8726400)}, m["oauth2_extra"])
	noSecrets(t, o.String()+e.String())
}

func TestMigrateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no --provider"},
		{[]string{"--provider", "garmin", "--client-id", "a"}, `unknown --provider "garmin"`},
		{[]string{"--provider", "x"}, "no --client-id"},
		{[]string{"--provider", "x", "--client-id", "a", "--rate", "fast"}, `--rate "fast"`},
		{[]string{"--provider", "x", "--client-id", "a", "--concurrency", "0"}, "--concurrency 0"},
		{[]string{"--provider", "signed", "--client-id", "a"}, "needs --token-url"},
		{[]string{"--provider", "signed", "--client-id", "a", "--token-url", "http://127.0.0.1:1/", "--consumer-key", "k", "--body", "xml"}, `--body "xml"`},
		{[]string{"--provider", "signed", "--client-id", "a", "--token-url", "http://127.0.0.1:1/", "--consumer-key", "k", "--field", "novalue"}, `--field "novalue"`},
		{[]string{"--provider", "x", "--client-id", "a", "f1", "f2"}, "one FILE at most"},
	} {
		code, _, stderr := migRun(t, "", tc.args...)
		assert.Equal(t, exitUsage, code, "%q", tc.args)
		assert.Contains(t, stderr, tc.want)
	}
}
