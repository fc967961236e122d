package main

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/countersign/countersign/percent"
)

// transcript renders runs of the command as a terminal shows them, stderr
// and the exit status included, for the golden files of the messages.
func transcript(t *testing.T, env map[string]string, stdin string, runs ...[]string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range runs {
		r := runCmd(t, env, stdin, args...)
		fmt.Fprintf(&b, "$ oauth1 %s\n", strings.Join(args, " "))
		if r.stdout != "" {
			fmt.Fprintf(&b, "%s", r.stdout)
		}
		if r.stderr != "" {
			fmt.Fprintf(&b, "[stderr]\n%s", r.stderr)
		}
		fmt.Fprintf(&b, "[exit %d]\n", r.code)
	}
	return b.String()
}

// TestUsageErrorsOneLine checks that each mistake on the command line is
// reported in one line on stderr that names it and points to -h.
func TestUsageErrorsOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string // the one line on stderr
	}{
		{[]string{"frobnicate"}, `oauth1: unknown command "frobnicate"; see "oauth1 -h"`},
		{[]string{"--frobnicate"}, `oauth1: unknown flag --frobnicate before the command; see "oauth1 -h"`},
		{[]string{"version", "now"}, `oauth1 version: extra argument "now"; see "oauth1 version -h"`},
		{[]string{"sign"}, `oauth1 sign: missing URL; see "oauth1 sign -h"`},
		{[]string{"sign", "--no-such-flag", xURL}, `oauth1 sign: unknown flag -no-such-flag; see "oauth1 sign -h"`},
		{[]string{"sign", xURL, "status=hi"}, `oauth1 sign: extra argument "status=hi" after the URL; see "oauth1 sign -h"`},
		{[]string{"sign", xURL, "-X"}, `oauth1 sign: flag needs an argument: -X; see "oauth1 sign -h"`},
		{[]string{"sign", "--timestamp", "yesterday", xURL}, `oauth1 sign: invalid value "yesterday" for flag -timestamp: not a number of seconds; see "oauth1 sign -h"`},
		{[]string{"sign", "--query", "--body", xURL}, `oauth1 sign: --query and --body are exclusive; see "oauth1 sign -h"`},
		{[]string{"sign", "--json", xURL}, `oauth1 sign: --json reads requests from stdin and takes no URL; "` + xURL[:40] + `" is extra; see "oauth1 sign -h"`},
		{[]string{"explain"}, `oauth1 explain: missing BASE_STRING; see "oauth1 explain -h"`},
		{[]string{"explain", "a", "b"}, `oauth1 explain: extra argument "b" after BASE_STRING; see "oauth1 explain -h"`},
		{[]string{"diff"}, `oauth1 diff: missing WANT and GOT, the two base strings; see "oauth1 diff -h"`},
		{[]string{"diff", xBase}, `oauth1 diff: missing GOT, the base string the client signed; see "oauth1 diff -h"`},
		{[]string{"diff", "a", "b", "c"}, `oauth1 diff: extra argument "c" after WANT and GOT; see "oauth1 diff -h"`},
		{[]string{"diff", "-", "-"}, `oauth1 diff: only one of WANT and GOT can be read from stdin; see "oauth1 diff -h"`},
		{[]string{"verify", "a", "b"}, `oauth1 verify: extra argument "b" after FILE; see "oauth1 verify -h"`},
		{[]string{"verify", "--scheme"}, `oauth1 verify: flag needs an argument: -scheme; see "oauth1 verify -h"`},
	}
	var runs [][]string
	for _, tt := range tests {
		r := runCmd(t, xEnv, "", tt.args...)
		if r.code != exitUsage || r.stdout != "" || r.stderr != tt.want+"\n" {
			t.Errorf("oauth1 %q: exit %d, stdout %q, stderr %q; want exit 2 and stderr %q", tt.args, r.code, r.stdout, r.stderr, tt.want+"\n")
		}
		runs = append(runs, tt.args)
	}
	golden(t, "usage-errors", transcript(t, xEnv, "", runs...))
}

// TestHelp checks that -h prints the usage of a command on stdout and
// exits 0: it is a request, not a mistake.
func TestHelp(t *testing.T) {
	for _, name := range []string{"sign", "explain", "diff", "verify"} {
		r := runCmd(t, nil, "", name, "-h")
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "usage: oauth1 "+name+" ") {
			t.Errorf("oauth1 %s -h: exit %d, stdout %.40q, stderr %q; want exit 0 and the usage on stdout", name, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, nil, "", "sign", "--help"); !strings.Contains(r.stdout, "-allow-insecure-plaintext") {
		t.Errorf("oauth1 sign --help does not list the flags:\n%s", r.stdout)
	}
}

func TestModuleVersion(t *testing.T) {
	tests := []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "(devel)"},
		{&debug.BuildInfo{}, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/countersign/countersign", Version: "(devel)"}}, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/countersign/countersign", Version: "v1.2.3"}}, "v1.2.3"},
	}
	for _, tt := range tests {
		if got := moduleVersion(tt.bi); got != tt.want {
			t.Errorf("moduleVersion(%+v) = %q, want %q", tt.bi, got, tt.want)
		}
	}
	bi, _ := debug.ReadBuildInfo()
	want := "oauth1 " + moduleVersion(bi) + "\n"
	for _, arg := range []string{"version", "--version", "-version"} {
		if r := runCmd(t, nil, "", arg); r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("oauth1 %s: exit %d, stdout %q, stderr %q; want %q", arg, r.code, r.stdout, r.stderr, want)
		}
	}
}

// TestMessages checks the messages that explain a refusal or a doubt,
// against golden transcripts.
func TestMessages(t *testing.T) {
	plain := map[string]string{"OAUTH1_CONSUMER_KEY": "key", "OAUTH1_CONSUMER_SECRET": "consumer-secret", "OAUTH1_TOKEN_SECRET": "token-secret"}
	// httpSigned is signed for http://a.example/x?q=1, HMAC-SHA1, consumer
	// secret "s", no token, nonce "n", timestamp 1.
	env := map[string]string{"OAUTH1_CONSUMER_KEY": "k", "OAUTH1_CONSUMER_SECRET": "s"}
	r := runCmd(t, env, "", "sign", "--nonce", "n", "--timestamp", "1", "http://a.example/x?q=1")
	if r.code != 0 {
		t.Fatalf("sign: exit %d, %s", r.code, r.stderr)
	}
	httpSigned := "GET /x?q=1 HTTP/1.1\nHost: a.example\n" + strings.TrimSpace(r.stdout) + "\n\n"
	curlHTTP := "*   Trying 192.0.2.7:80...\n* Connected to a.example (192.0.2.7) port 80 (#0)\n> " +
		strings.ReplaceAll(strings.TrimSuffix(httpSigned, "\n\n"), "\n", "\n> ") + "\n>\n< HTTP/1.1 401 Unauthorized\n"
	short := strings.Replace(xRequest, "Content-Length: 76", "Content-Length: 80", 1)
	long := strings.Replace(xRequest, "Content-Length: 76", "Content-Length: 70", 1)
	tests := []struct {
		name  string
		env   map[string]string
		stdin string
		runs  [][]string
	}{
		{"sign-plaintext-http", plain, "", [][]string{
			{"sign", "--signature-method", "PLAINTEXT", "http://a.example/x"},
			{"sign", "--signature-method", "PLAINTEXT", "--nonce", "n", "--timestamp", "1", "--allow-insecure-plaintext", "http://a.example/x"},
		}},
		{"sign-method-case", xEnv, "", [][]string{
			{"sign", "-X", "post", "--nonce", "n", "--timestamp", "1", "--curl", "https://a.example/x"},
			{"sign", "-X", "put", "--nonce", "n", "--timestamp", "1", "--explain", "--query", "https://a.example/x"},
		}},
		{"batch-plaintext-masked", plain,
			`{"http_method":"post","url":"https://a.example/x?y=1","signature_method":"PLAINTEXT","delivery":"query","nonce":"n","timestamp":1}` + "\n" +
				`{"url":"https://a.example/x","signature_method":"PLAINTEXT","nonce":"n","timestamp":1}` + "\n" +
				`{"url":"https://a.example/x","signature_method":"PLAINTEXT","delivery":"body","params":[["a","1"]],"nonce":"n","timestamp":1}` + "\n" +
				`{"url":"http://a.example/x","signature_method":"PLAINTEXT","nonce":"n","timestamp":1}` + "\n",
			[][]string{{"sign", "--json"}}},
		{"batch-key-warnings", map[string]string{"OAUTH1_CONSUMER_KEY": "k"},
			`{"url":"https://a.example/x","nonce":"n","timestamp":1}` + "\n" +
				`{"url":"https://a.example/x","consumer_secret":"s","token":"t","nonce":"n","timestamp":1}` + "\n" +
				`{"url":"https://a.example/x","consumer_secret":"s","token":"t","token_secret":"ts","nonce":"n","timestamp":1}` + "\n",
			[][]string{{"sign", "--json"}}},
		{"verify-scheme-http", env, httpSigned, [][]string{{"verify", "--any-time"}, {"verify", "--any-time", "--scheme", "http"}}},
		{"verify-captured-http", map[string]string{"OAUTH1_CONSUMER_SECRET": "not-s"}, curlHTTP, [][]string{{"verify", "--any-time"}}},
		{"verify-content-length-short", xEnv, short, [][]string{{"verify", "--any-time"}}},
		{"verify-content-length-long", xEnv, long, [][]string{{"verify", "--any-time"}}},
		{"verify-content-length-data-raw", xEnv, xRequest, [][]string{{"verify", "--any-time", "--data-raw", "status=hi"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, transcript(t, tt.env, tt.stdin, tt.runs...))
		})
	}
}

// TestDiffLibraryBugs checks the report of oauth1 diff on the bugs that
// real libraries make against a golden transcript.
func TestDiffLibraryBugs(t *testing.T) {
	const u = "GET&https%3A%2F%2Fapi.example.com%2Fx&"
	const k = "%26oauth_consumer_key%3Dk"
	runs := [][]string{
		// Perl Net::OAuth: UTF-8 taken for Latin-1, and a Latin-1 byte taken for a character.
		{"diff", u + "name%3DM%25C3%25BCller" + k, u + "name%3DM%25C3%2583%25C2%25BCller" + k},
		{"diff", u + "oauth_consumer_key%3Dk%26q%3D%25FF", u + "oauth_consumer_key%3Dk%26q%3D%25C3%25BF"},
		// PECL oauth keeps the last value of a repeated name, Net::OAuth the first.
		{"diff", u + "a%3D1%26a%3D2" + k, u + "a%3D2" + k},
		// Values cut short: C strings, a split on every "=", a split on every "?".
		{"diff", u + "a%3Da%2509b%250Ac%2500d" + k, u + "a%3Da%2509b%250Ac" + k},
		{"diff", u + "a%3Db%253Dc" + k, u + "a%3Db" + k},
		{"diff", u + "a%3Db%253Fc" + k + "%26z%3D1", u + "a%3Db" + k},
		// Malformed: a name not encoded, a pair without "=", a parameter string not encoded.
		{"diff", u + "100%2525%3D1" + k, u + "100%25%3D1" + k},
		{"diff", u + "flag%3D" + k, u + "flag" + k},
		{"diff", u + "a%3D1" + k, u + "a=1&oauth_consumer_key=k"},
		// dghubble/oauth1 drops :443 for http too.
		{"diff", "GET&http%3A%2F%2Fapi.example.com%3A443%2Fx&oauth_consumer_key%3Dk", "GET&http%3A%2F%2Fapi.example.com%2Fx&oauth_consumer_key%3Dk"},
		// Not a base string at all: nothing to compare.
		{"diff", u + "a%3D1", "GET&https%3A%2F%2Fapi.example.com%2Fx"},
	}
	for _, args := range runs {
		r := runCmd(t, nil, "", args...)
		want := exitFailure
		if args[2] == "GET&https%3A%2F%2Fapi.example.com%2Fx" {
			want = exitUsage
		}
		if r.code != want || strings.Contains(r.stdout, "was the request changed") {
			t.Errorf("oauth1 diff %q %q: exit %d, want %d\n%s%s", args[1], args[2], r.code, want, r.stdout, r.stderr)
		}
	}
	golden(t, "diff-library-bugs", transcript(t, nil, "", runs...))
}

// TestDiffHints checks that the command adds the flags of "oauth1 sign"
// to the causes that package basestring explains without them, in diff and
// in verify --base-string.
func TestDiffHints(t *testing.T) {
	const u = "GET&https%3A%2F%2Fapi.example.com%2Fx&"
	const k = "oauth_consumer_key%3Dk"
	tests := []struct {
		want, got, hint string
	}{
		{u + "oauth_body_hash%3Dx%26" + k, u + k, "did not hash the body (Config.BodyHash); with oauth1 sign, --body-hash"},
		{u + "oauth_callback%3Doob%26" + k, u + k, "to SignAt; with oauth1 sign, --callback"},
		{u + k + "%26oauth_verifier%3Dv", u + k, "to SignAt; with oauth1 sign, --verifier"},
		{u + k, u + k + "%26oauth_version%3D1.0", "(Config.OmitVersion); with oauth1 sign, --no-version"},
		{u + k + "%26oauth_nonce%3Da", u + k + "%26oauth_nonce%3Db", "oauth_timestamp; with oauth1 sign, --nonce N --timestamp T"},
		{u + k + "%26oauth_timestamp%3D1", u + k + "%26oauth_timestamp%3D2", "oauth_timestamp; with oauth1 sign, --nonce N --timestamp T"},
	}
	var runs [][]string
	for _, tt := range tests {
		args := []string{"diff", tt.want, tt.got}
		if r := runCmd(t, nil, "", args...); r.code != exitFailure || !strings.Contains(r.stdout, tt.hint) {
			t.Errorf("oauth1 diff %q %q: exit %d, want 1 and %q in\n%s%s", tt.want, tt.got, r.code, tt.hint, r.stdout, r.stderr)
		}
		runs = append(runs, args)
	}
	golden(t, "diff-hints", transcript(t, nil, "", runs...))

	otherNonce := strings.Replace(xBase, "oauth_nonce%3DkYjzVBB8Y0", "oauth_nonce%3DAAAAAAAAAA", 1)
	r := runCmd(t, map[string]string{"OAUTH1_CONSUMER_SECRET": "wrong", "OAUTH1_TOKEN_SECRET": "wrong"}, xRequest, "verify", "--any-time", "--base-string", otherNonce)
	if hint := "with oauth1 sign, --nonce N --timestamp T"; r.code != exitFailure || !strings.Contains(r.stdout, hint) {
		t.Errorf("verify --base-string with another nonce: exit %d, want 1 and %q in\n%s%s", r.code, hint, r.stdout, r.stderr)
	}
}

// TestVerifyKeyMistakes signs requests with the key mistakes clients make
// and checks that verify, given the right secrets, names each one, that
// diff of equal base strings points to verify, and that no secret is
// printed.
func TestVerifyKeyMistakes(t *testing.T) {
	const url = "https://api.example.com/1/me?q=1"
	right := map[string]string{"OAUTH1_CONSUMER_KEY": "ck-1", "OAUTH1_CONSUMER_SECRET": "c/secret+1", "OAUTH1_TOKEN": "tok-1", "OAUTH1_TOKEN_SECRET": "t secret=2"}
	with := func(kv ...string) map[string]string {
		env := map[string]string{}
		for k, v := range right {
			env[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			env[kv[i]] = kv[i+1]
		}
		return env
	}
	signedFor := func(env map[string]string, url string) string {
		r := runCmd(t, env, "", "sign", "--nonce", "n", "--timestamp", "1", url)
		if r.code != 0 {
			t.Fatalf("sign: exit %d, %s", r.code, r.stderr)
		}
		return "GET /1/me?q=1 HTTP/1.1\nHost: api.example.com\n" + strings.TrimSpace(r.stdout) + "\n\n"
	}
	signed := func(env map[string]string) string { return signedFor(env, url) }
	// baseFor is the base string the client signs for url, as sign --explain shows it.
	baseFor := func(url string) string {
		r := runCmd(t, right, "", "sign", "--nonce", "n", "--timestamp", "1", "--explain", url)
		_, after, _ := strings.Cut(r.stdout, "Signature base string:\n")
		base, _, _ := strings.Cut(after, "\n")
		return base
	}
	httpsBase, httpBase := baseFor(url), baseFor("http"+strings.TrimPrefix(url, "https"))
	var b strings.Builder
	for _, tt := range []struct {
		name string
		env  map[string]string // the client's
		args []string
		kind string
		req  string // if not signed(env)
	}{
		{"empty token secret", with("OAUTH1_TOKEN_SECRET", ""), nil, "empty-token-secret", ""},
		{"consumer secret read with its newline", with("OAUTH1_CONSUMER_SECRET", right["OAUTH1_CONSUMER_SECRET"]+"\n"), nil, "secret-whitespace", ""},
		{"secrets swapped", with("OAUTH1_CONSUMER_SECRET", right["OAUTH1_TOKEN_SECRET"], "OAUTH1_TOKEN_SECRET", right["OAUTH1_CONSUMER_SECRET"]), nil, "swapped-secrets", ""},
		{"token as secret", with("OAUTH1_TOKEN_SECRET", right["OAUTH1_TOKEN"]), nil, "token-as-secret", ""},
		{"another key", with("OAUTH1_CONSUMER_SECRET", "other"), nil, "Nothing reproduced the signature", ""},
		{"another key, base strings compared", with("OAUTH1_CONSUMER_SECRET", "other"), []string{"--base-string", httpsBase}, "unknown\nThe key differs", ""},
		{"empty token secret, base strings compared", with("OAUTH1_TOKEN_SECRET", ""), []string{"--base-string", httpsBase}, "empty-token-secret", ""},
		{"http signed, scheme assumed, another key", nil, []string{"--base-string", httpBase}, "", signedFor(with("OAUTH1_CONSUMER_SECRET", "other"), "http"+strings.TrimPrefix(url, "https"))},
	} {
		req := tt.req
		if req == "" {
			req = signed(tt.env)
		}
		args := append([]string{"verify", "--any-time"}, tt.args...)
		r := runCmd(t, right, req, args...)
		want := "Key check: " + tt.kind
		if strings.HasPrefix(tt.kind, "Nothing reproduced") {
			want = "\n" + tt.kind
		}
		if tt.kind == "" {
			want = "The only difference is the scheme, and it was taken as https because the request line does not name one: the client signed an http URL. Run again with --scheme http."
			if strings.Contains(r.stdout, "Key check") {
				t.Errorf("%s: a key check, though the base strings differ:\n%s", tt.name, r.stdout)
			}
		}
		if r.code != exitFailure || !strings.Contains(r.stdout, want) {
			t.Errorf("%s: exit %d, want 1 and %q in:\n%s%s", tt.name, r.code, want, r.stdout, r.stderr)
		}
		for _, secret := range []string{right["OAUTH1_CONSUMER_SECRET"], right["OAUTH1_TOKEN_SECRET"], percent.Encode(right["OAUTH1_CONSUMER_SECRET"]), percent.Encode(right["OAUTH1_TOKEN_SECRET"])} {
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Errorf("%s: the output holds a secret:\n%s%s", tt.name, r.stdout, r.stderr)
			}
		}
		fmt.Fprintf(&b, "# %s\n%s", tt.name, transcript(t, right, req, args))
	}
	golden(t, "verify-key-mistakes", b.String())
}

// TestSignGaps checks the messages of sign for the mistakes it can see
// before any provider does: missing secrets, an encrypted key without its
// password, an HTTP method given as the signature method; and curl's long
// flags and SHA-512 body hashes.
func TestSignGaps(t *testing.T) {
	const u = "https://api.example.com/x"
	fixed := []string{"--nonce", "n", "--timestamp", "1"}
	runs := []struct {
		env  map[string]string
		args []string
		code int
		want string // in stdout or stderr
	}{
		{map[string]string{"OAUTH1_CONSUMER_KEY": "k"}, append([]string{"sign", u}, fixed...), 0, "warning: the consumer secret is empty"},
		{map[string]string{"OAUTH1_CONSUMER_KEY": "k", "OAUTH1_CONSUMER_SECRET": "s", "OAUTH1_TOKEN": "t"}, append([]string{"sign", u}, fixed...), 0, "warning: a token but no token secret"},
		{map[string]string{"OAUTH1_CONSUMER_KEY": "k"}, append([]string{"sign", "--signature-method", "RSA-SHA256", "--key-file", keyFile, u}, fixed...), 0, "Authorization: OAuth"},
		{xEnv, []string{"sign", "--signature-method", "RSA-SHA1", "--key-file", "../../testdata/keys/rsa2048-openssh-encrypted", u}, 2, "--key-password or $OAUTH1_KEY_PASSWORD"},
		{xEnv, []string{"sign", "--signature-method", "RSA-SHA1", "--key-file", "../../testdata/keys/rsa2048-openssh-encrypted", "--key-password", "wrong", u}, 2, "check --key-password"},
		{xEnv, []string{"sign", "--signature-method", "POST", u}, 2, "that is an HTTP method: give it with -X POST"},
		{xEnv, []string{"sign", "--signature-method", "hmac-md5", u}, 2, "(want HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT)"},
		{xEnv, append([]string{"sign", "--request", "PUT", "--header", "Content-Type: application/json", "--data-raw", `{"a":1}`,
			"--body-hash", "SHA-512", "--signature-method", "HMAC-SHA512", "--curl", u}, fixed...), 0, `oauth_body_hash="77eoKY%2BQWudD2%2BIVLhYkFfYqFtLVrFx4gW3NVxFOeldHKbgTmI8dCYTPbzjE%2FMmjfqn%2Bw9o1GYNTb3J4XXq3Bw%3D%3D"`},
	}
	var b strings.Builder
	for _, tt := range runs {
		r := runCmd(t, tt.env, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
			t.Errorf("oauth1 %q: exit %d, want %d and %q in\n%s%s", tt.args, r.code, tt.code, tt.want, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "warning") != strings.Contains(tt.want, "warning") {
			t.Errorf("oauth1 %q: stderr %q", tt.args, r.stderr)
		}
		b.WriteString(transcript(t, tt.env, "", tt.args))
	}
	golden(t, "sign-gaps", b.String())
}

// TestDiffNotUTF8 checks that diff shows the bytes of decoded names and
// values that are not UTF-8, and control characters, escaped.
func TestDiffNotUTF8(t *testing.T) {
	const u = "GET&https%3A%2F%2Fapi.example.com%2Fx&"
	const k = "oauth_consumer_key%3Dk"
	runs := [][]string{
		{"diff", u + k + "%26na%25E9me%3D1", u + k},
		{"diff", u + k + "%26x%3D1", u + k + "%26x%3D1%26e%251B%255B2J%3D1"},
	}
	for _, args := range runs {
		r := runCmd(t, nil, "", args...)
		if !utf8.ValidString(r.stdout) || strings.ContainsRune(r.stdout, 0x1b) {
			t.Errorf("oauth1 diff %q: output not terminal-safe: %q", args[1:], r.stdout)
		}
	}
	golden(t, "diff-not-utf8", transcript(t, nil, "", runs...))
}
