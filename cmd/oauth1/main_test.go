package main

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/cmd/oauth1/internal/verify"
	"github.com/countersign/countersign/internal/vectors"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.golden files")

// The X API example ("Creating a signature" in the X developer
// documentation), from testdata/vectors/x-update-1.1.txt: credentials,
// request and published results.
var (
	xVector      = vectors.MustLoad("x-update-1.1")
	xKey         = xVector.Get("consumer-key")
	xSecret      = xVector.Get("consumer-secret")
	xToken       = xVector.Get("token")
	xTokenSecret = xVector.Get("token-secret")
	xNonce       = xVector.Get("nonce")
	xTimestamp   = xVector.Get("timestamp")
	xURL         = xVector.Get("url")
	xBody        = xVector.Get("body")
	xStatus      = func() string {
		s, err := url.PathUnescape(strings.TrimPrefix(xBody, "status="))
		if err != nil {
			panic(err)
		}
		return s
	}()
	xSignature = xVector.Get("signature")
	xHeader    = xVector.Header()
	xBase      = xVector.Get("base-string")
)

const (
	keyFile     = "../../testdata/keys/rsa2048-pkcs1.pem"
	keyPassword = "test-password"
)

// xEnv holds the X example's credentials, as a user would export them.
var xEnv = map[string]string{
	"OAUTH1_CONSUMER_KEY":    xKey,
	"OAUTH1_CONSUMER_SECRET": xSecret,
	"OAUTH1_TOKEN":           xToken,
	"OAUTH1_TOKEN_SECRET":    xTokenSecret,
}

// xRequest is the X example as a raw HTTP request, as a proxy logs it.
var xRequest = func() string {
	u, err := url.Parse(xURL)
	if err != nil {
		panic(err)
	}
	return xVector.Get("method") + " " + u.RequestURI() + " HTTP/1.1\n" +
		"Host: " + u.Host + "\n" +
		"Authorization: " + xHeader + "\n" +
		"Content-Type: " + xVector.Get("content-type") + "\n" +
		"Content-Length: " + strconv.Itoa(len(xBody)) + "\n" +
		"\n" +
		xBody + "\n"
}()

type output struct {
	stdout, stderr string
	code           int
}

func runCmd(t *testing.T, env map[string]string, stdin string, args ...string) output {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	return output{out.String(), errOut.String(), code}
}

// golden compares got with testdata/name.golden, or rewrites the file with
// -update. Golden files are snapshots of the human output, reviewed when
// they change; the published X vectors are checked separately.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-want +got):\n-%s\n+%s", path, want, got)
	}
}

var xSign = []string{"sign", xURL, "-d", "status=" + xStatus, "--nonce", xNonce, "--timestamp", xTimestamp}

func TestSignX(t *testing.T) {
	r := runCmd(t, xEnv, "", xSign...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("sign: exit %d, stderr %q", r.code, r.stderr)
	}
	if want := "Authorization: " + xHeader + "\n"; r.stdout != want {
		t.Errorf("sign =\n%s\nwant the published header\n%s", r.stdout, want)
	}
}

// TestSignFlagOrder checks that the URL may come first, last or between flags.
func TestSignFlagOrder(t *testing.T) {
	orders := [][]string{
		{"sign", "-d", "status=" + xStatus, "--nonce", xNonce, "--timestamp", xTimestamp, xURL},
		{"sign", "--nonce", xNonce, xURL, "-d", "status=" + xStatus, "-timestamp", xTimestamp},
		{"sign", "-X", "POST", "--nonce", xNonce, "--timestamp", xTimestamp, "--data-raw", xBody, "-H", "Content-Type: application/x-www-form-urlencoded", "--", xURL},
	}
	for _, args := range orders {
		r := runCmd(t, xEnv, "", args...)
		if r.code != 0 || r.stdout != "Authorization: "+xHeader+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestGolden(t *testing.T) {
	doubled := strings.Replace(xBase, "Gentlemen%252C", "Gentlemen%25252C", 1)
	noBody := xBase[:strings.Index(xBase, "%26status")]
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"sign-explain", "", append(xSign[:len(xSign):len(xSign)], "--explain"), 0},
		{"sign-curl", "", append(xSign[:len(xSign):len(xSign)], "--curl"), 0},
		{"sign-query", "", []string{"sign", "--query", "--nonce", xNonce, "--timestamp", xTimestamp, "--realm", "Photos", "--explain",
			"https://API.Example.com:443/a%20b/c?x=1+2&y=%7e"}, 0},
		{"sign-body", "", append(xSign[:len(xSign):len(xSign)], "--body", "--no-version", "--callback", "oob"), 0},
		{"sign-body-hash", "", []string{"sign", "-X", "PUT", "--data-raw", `{"a":1}`, "-H", "Content-Type: application/json", "--body-hash", "SHA-256",
			"--signature-method", "HMAC-SHA256", "--nonce", xNonce, "--timestamp", xTimestamp, "--explain", "--curl", "https://api.example.com/v1/items/7"}, 0},
		{"explain", "", []string{"explain", xBase}, 0},
		{"explain-stdin", xBase + "\n", []string{"explain", "-"}, 0},
		{"explain-mistakes", "", []string{"explain", strings.Replace(strings.Replace(doubled, "POST", "post", 1), "api.twitter.com", "api.twitter.com%3A443", 1) + "%26realm%3DPhotos"}, 0},
		{"diff-equal", "", []string{"diff", xBase, xBase}, 0},
		{"diff-form-body-not-signed", "", []string{"diff", xBase, noBody}, 1},
		{"diff-double-encoded", "", []string{"diff", xBase, doubled}, 1},
		{"verify-valid", xRequest, []string{"verify", "--now", xTimestamp}, 0},
		{"verify-invalid", strings.Replace(xRequest, "Ladies%20%2B", "Ladies%20%2C", 1), []string{"verify", "--any-time", "--base-string", xBase}, 1},
		{"verify-curl-v", "* Connected to api.twitter.com\n> " + strings.ReplaceAll(strings.TrimSuffix(xRequest[:strings.Index(xRequest, "\n\n")], "\n"), "\n", "\n> ") + "\n>\n} [76 bytes data]\n< HTTP/1.1 401 Unauthorized\n",
			[]string{"verify", "--any-time", "--data-raw", xBody}, 0},
		{"verify-timestamp", xRequest, []string{"verify", "--now", "1318700000"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, xEnv, tt.stdin, tt.args...)
			if r.code != tt.code {
				t.Errorf("exit status %d, want %d; stderr %q", r.code, tt.code, r.stderr)
			}
			if r.stderr != "" {
				t.Errorf("stderr %q", r.stderr)
			}
			golden(t, tt.name, r.stdout)
		})
	}
}

// TestExplainX checks the parts that matter in the --explain output
// against the published values, independently of the golden file.
func TestExplainX(t *testing.T) {
	r := runCmd(t, xEnv, "", append(xSign[:len(xSign):len(xSign)], "--explain")...)
	for _, want := range []string{
		"\n" + xBase + "\n",
		"Signature:        " + xSignature + "\n",
		"Authorization:    " + xHeader + "\n",
		"query     include_entities",
		"body      status                  " + xStatus,
		"protocol  oauth_nonce",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sign --explain output lacks %q:\n%s", want, r.stdout)
		}
	}
}

func TestBatchX(t *testing.T) {
	line, _ := json.Marshal(map[string]any{
		"http_method": "POST", "url": xURL, "params": [][2]string{{"status", xStatus}},
		"consumer_key": xKey, "consumer_secret": xSecret, "token": xToken, "token_secret": xTokenSecret,
		"nonce": xNonce, "timestamp": json.Number(xTimestamp),
	})
	in := string(line) + "\n" +
		`{"url": "not a url"}` + "\n" +
		`{"http_method":"POST","url":"` + xURL + `","content_type":"application/x-www-form-urlencoded","body":"` + xBody + `","consumer_key":"` + xKey +
		`","consumer_secret":"` + xSecret + `","token":"` + xToken + `","token_secret":"` + xTokenSecret + `","nonce":"` + xNonce + `","timestamp":"` + xTimestamp + `","delivery":"query"}` + "\n"
	r := runCmd(t, nil, in, "sign", "--json")
	if r.code != 1 {
		t.Errorf("exit status %d, want 1 (one line failed)", r.code)
	}
	var out []map[string]string
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var m map[string]string
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	if len(out) != 3 {
		t.Fatalf("%d output lines, want 3:\n%s", len(out), r.stdout)
	}
	want := map[string]string{"base_string": xBase, "signature": xSignature, "authorization": xHeader,
		"url": xURL, "body": xBody, "error": ""}
	for k, v := range want {
		if out[0][k] != v {
			t.Errorf("line 1 %s = %q, want %q", k, out[0][k], v)
		}
	}
	if !strings.HasPrefix(out[1]["error"], "oauth1: ") || out[1]["signature"] != "" {
		t.Errorf("line 2 = %v, want an error and no signature", out[1])
	}
	if out[2]["signature"] != xSignature || out[2]["authorization"] != "" ||
		!strings.Contains(out[2]["url"], "oauth_signature="+url.QueryEscape(xSignature)) {
		t.Errorf("line 3 (query delivery) = %v", out[2])
	}
}

// TestBatchVectors runs every vector of testdata/vectors through the batch
// mode and checks the published or independently computed results.
func TestBatchVectors(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/vectors/*.txt")
	if len(files) == 0 {
		t.Skip("no vectors")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			v := readVector(t, file)
			j := map[string]any{
				"http_method": v["method"], "url": v["url"], "content_type": v["content-type"], "body": v["body"],
				"consumer_key": v["consumer-key"], "consumer_secret": v["consumer-secret"],
				"token": v["token"], "token_secret": v["token-secret"], "signature_method": v["signature-method"],
				"nonce": v["nonce"], "timestamp": v["timestamp"], "realm": v["realm"],
				"version": v["version"] != "", "callback": v["callback"], "verifier": v["verifier"],
			}
			if f := v["private-key-file"]; f != "" {
				pemBytes, err := os.ReadFile("../../" + f)
				if err != nil {
					t.Fatal(err)
				}
				j["private_key_pem"] = string(pemBytes)
			}
			line, _ := json.Marshal(j)
			r := runCmd(t, nil, string(line)+"\n", "sign", "--json", "--show-secrets")
			var out map[string]string
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("output %q: %v (stderr %q)", r.stdout, err, r.stderr)
			}
			if out["error"] != "" {
				t.Fatalf("error: %s", out["error"])
			}
			for field, key := range map[string]string{"base-string": "base_string", "signature": "signature", "authorization": "authorization"} {
				if want, ok := v[field]; ok && out[key] != want {
					t.Errorf("%s = %q\nwant %q", key, out[key], want)
				}
			}
		})
	}
}

func readVector(t *testing.T, file string) map[string]string {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, val, _ := strings.Cut(l, ":")
		v[k] = strings.TrimSpace(val)
	}
	return v
}

// TestSignRSA signs with --key-file and checks the signature with the
// public key and crypto/rsa, and that verify accepts it.
func TestSignRSA(t *testing.T) {
	env := map[string]string{"OAUTH1_CONSUMER_KEY": "OauthKey", "OAUTH1_TOKEN": "tok"}
	args := []string{"sign", "--signature-method", "RSA-SHA256", "--key-file", keyFile, "--nonce", "n", "--timestamp", xTimestamp, "--json"}
	r := runCmd(t, env, `{"url":"https://jira.example.com/rest/api/2/myself"}`+"\n", args...)
	var out map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out["error"] != "" {
		t.Fatalf("sign --json: %q %v (stderr %q)", r.stdout, err, r.stderr)
	}
	pemBytes, err := os.ReadFile("../../testdata/keys/rsa2048-public.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(out["signature"])
	sum := sha256.Sum256([]byte(out["base_string"]))
	if err := rsa.VerifyPKCS1v15(pub.(*rsa.PublicKey), crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("RSA-SHA256 signature does not verify: %v", err)
	}
	if !strings.Contains(out["base_string"], "oauth_signature_method%3DRSA-SHA256") {
		t.Errorf("base string %q", out["base_string"])
	}
	req := "GET /rest/api/2/myself HTTP/1.1\nHost: jira.example.com\nAuthorization: " + out["authorization"] + "\n\n"
	for _, key := range []string{"../../testdata/keys/rsa2048-public.pem", "../../testdata/keys/rsa2048-cert.pem", keyFile} {
		if r := runCmd(t, nil, req, "verify", "--any-time", "--key-file", key); r.code != 0 {
			t.Errorf("verify --key-file %s: exit %d\n%s%s", key, r.code, r.stdout, r.stderr)
		}
	}
}

// TestNoSecrets runs every command that handles secrets and checks that no
// secret reaches stdout or stderr unless --show-secrets is given.
func TestNoSecrets(t *testing.T) {
	const pw = "s3cr3t-key-pa55word"
	env := map[string]string{"OAUTH1_CONSUMER_KEY": xKey, "OAUTH1_CONSUMER_SECRET": xSecret,
		"OAUTH1_TOKEN": xToken, "OAUTH1_TOKEN_SECRET": xTokenSecret, "OAUTH1_KEY_PASSWORD": pw}
	secrets := []string{xSecret, xTokenSecret, pw, "PRIVATE KEY"}
	plain := []string{"sign", "--signature-method", "PLAINTEXT", "https://api.example.com/x"}
	runs := []struct {
		stdin string
		args  []string
	}{
		{"", append(xSign[:len(xSign):len(xSign)], "--explain", "--curl")},
		{"", []string{"sign", "--query", "--explain", xURL}},
		{"", append(plain[:len(plain):len(plain)], "--explain", "--curl")},
		{"", append(plain[:len(plain):len(plain)], "--body")},
		{"", []string{"sign", "--signature-method", "RSA-SHA1", "--key-file", keyFile, "--explain", xURL}},
		{"", []string{"sign", "--signature-method", "RSA-SHA1", "--key-file", "../../testdata/keys/rsa2048-openssh-encrypted", xURL}},
		{"", []string{"sign", "--signature-method", "RSA-SHA1", "--key-file", "../../testdata/keys/rsa2048-public.pem", xURL}},
		{`{"url":"https://api.example.com/x","signature_method":"PLAINTEXT"}` + "\n" + `{"url":"https://api.example.com/x","signature_method":"bogus"}` + "\n", []string{"sign", "--json"}},
		{"", []string{"explain", xBase}},
		{xRequest, []string{"verify", "--any-time"}},
		{strings.Replace(xRequest, "Ladies", "Lads", 1), []string{"verify", "--any-time"}},
		{strings.Replace(xRequest, `HMAC-SHA1`, "PLAINTEXT", 1), []string{"verify", "--any-time", "--allow-plaintext"}},
	}
	for _, tt := range runs {
		r := runCmd(t, env, tt.stdin, tt.args...)
		for _, s := range secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("%q: output contains a secret %q:\n%s\n%s", tt.args, s, r.stdout, r.stderr)
			}
		}
	}
	// With --show-secrets, PLAINTEXT shows its signature, the secrets.
	r := runCmd(t, env, "", append(plain[:len(plain):len(plain)], "--show-secrets")...)
	if !strings.Contains(r.stdout, xSecret) || !strings.Contains(r.stdout, xTokenSecret) {
		t.Errorf("sign --method PLAINTEXT --show-secrets = %q, want the secrets in the signature", r.stdout)
	}
	r = runCmd(t, env, "", append(xSign[:len(xSign):len(xSign)], "--explain", "--show-secrets")...)
	if !strings.Contains(r.stdout, "Signing key:      "+xSecret+"&"+xTokenSecret+"\n") {
		t.Errorf("sign --explain --show-secrets does not show the signing key:\n%s", r.stdout)
	}
}

func TestDiffExit(t *testing.T) {
	tests := []struct {
		want, got string
		code      int
		stdout    string
	}{
		{xBase, xBase, 0, "The base strings are equal."},
		{xBase, strings.Replace(xBase, "POST", "post", 1), 1, "method case"},
		{xBase, strings.Replace(xBase, "%2520", "+", 1), 1, "plus for space"},
		{xBase, strings.Replace(xBase, "%26oauth_version%3D1.0", "", 1), 1, "missing parameter oauth_version"},
		{xBase, "POST&https%3A%2F%2Fapi.twitter.com%2F&a=1&b=2", 1, "syntax: got has an unencoded \"&\""},
		{xBase, "POST&https%3A%2F%2Fapi.twitter.com", 2, ""},
		{"garbage", xBase, 2, ""},
	}
	for _, tt := range tests {
		r := runCmd(t, nil, "", "diff", tt.want, tt.got)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) {
			t.Errorf("diff %.30q %.30q: exit %d, stdout %q; want exit %d and %q", tt.want, tt.got, r.code, r.stdout, tt.code, tt.stdout)
		}
		if tt.code == 2 && !strings.HasPrefix(r.stderr, "oauth1: ") {
			t.Errorf("diff %.30q %.30q: stderr %q, want an error", tt.want, tt.got, r.stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	tests := [][]string{
		{},
		{"frobnicate"},
		{"sign"},
		{"sign", "--no-such-flag", xURL},
		{"sign", "--signature-method", "HMAC-MD5", xURL},
		{"sign", "--query", "--body", xURL},
		{"sign", "/relative"},
		{"sign", "--timestamp", "yesterday", xURL},
		{"sign", "--signature-method", "RSA-SHA1", xURL},
		{"explain"},
		{"explain", "POST&x"},
		{"diff", xBase},
		{"verify", "/no/such/file"},
	}
	for _, args := range tests {
		r := runCmd(t, xEnv, "", args...)
		if r.code != 2 || r.stderr == "" || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and a message on stderr only", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, nil, "", "sign", xURL); r.code != 2 || !strings.Contains(r.stderr, "OAUTH1_CONSUMER_KEY") {
		t.Errorf("sign without a consumer key: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDataWarning checks the warning for curl users who pass a whole form
// body to -d, which takes one unencoded pair.
func TestDataWarning(t *testing.T) {
	r := runCmd(t, xEnv, "", "sign", "-d", "a=1&b=2", "--curl", "https://api.example.com/")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: -d takes one unencoded name=value pair") ||
		!strings.Contains(r.stdout, "--data-raw a=1%26b%3D2 ") {
		t.Errorf("sign -d 'a=1&b=2': exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestParseRawRequest(t *testing.T) {
	tests := []struct {
		name, in, body string
		method, uri    string
		wantBody       string
	}{
		{"proxy log, CRLF", strings.ReplaceAll(xRequest, "\n", "\r\n"), "", "POST", "/1.1/statuses/update.json?include_entities=true", xBody},
		{"curl -v HTTP/2", "* ALPN: server accepted h2\n> GET /2/users/me HTTP/2\n> Host: api.x.com\n> Authorization: OAuth a=\"b\"\n>\n* Request completely sent off\n< HTTP/2 401\n", "", "GET", "/2/users/me", ""},
		{"curl -v with --data-raw", "> POST /x HTTP/1.1\n> Host: a.example\n> Content-Length: 3\n>\n} [3 bytes data]\n", "a=b", "POST", "/x", "a=b"},
		{"no Content-Length, trailing newline", "\nPUT /x HTTP/1.1\nHost: a.example\n\nline1\nline2\n\n", "", "PUT", "/x", "line1\nline2"},
		{"Content-Length cuts the log", "POST /x HTTP/1.1\nHost: a.example\nContent-Length: 3\n\na=bc\n", "", "POST", "/x", "a=b"},
	}
	for _, tt := range tests {
		r, _, err := verify.ParseRequest([]byte(tt.in), tt.body)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		b := readAllBody(t, r)
		if r.Method != tt.method || r.RequestURI != tt.uri || b != tt.wantBody {
			t.Errorf("%s: %s %s body %q; want %s %s body %q", tt.name, r.Method, r.RequestURI, b, tt.method, tt.uri, tt.wantBody)
		}
	}
	for _, in := range []string{"", "\n\n", "hello world\n", "> \n"} {
		if _, _, err := verify.ParseRequest([]byte(in), ""); err == nil {
			t.Errorf("ParseRequest(%q): no error", in)
		}
	}
}

func readAllBody(t *testing.T, r *http.Request) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBatchDefaults checks that flags give defaults to every line and that
// a line's own values do not leak into the next line.
func TestBatchDefaults(t *testing.T) {
	in := `{"url":"https://a.example/","version":true,"params":[["a","1"]]}` + "\n" +
		`{"url":"https://a.example/"}` + "\n"
	r := runCmd(t, xEnv, in, "sign", "--json", "--no-version", "--nonce", "n", "--timestamp", "1", "--query")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	var first, second map[string]string
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if !strings.Contains(first["base_string"], "oauth_version") || !strings.Contains(first["base_string"], "a%3D1") {
		t.Errorf("line 1 base string %q, want oauth_version and a=1", first["base_string"])
	}
	if strings.Contains(second["base_string"], "oauth_version") || strings.Contains(second["base_string"], "a%3D1") {
		t.Errorf("line 2 base string %q, want the flag defaults (no oauth_version, no body)", second["base_string"])
	}
	if !strings.Contains(second["url"], "oauth_nonce=n&") {
		t.Errorf("line 2 url %q, want the protocol parameters in the query (--query)", second["url"])
	}
}

// TestProblemReport checks that explain and diff take the base string out of
// a pasted problem report (form-encoded, as OAuth providers send it).
func TestProblemReport(t *testing.T) {
	enc := strings.NewReplacer("%", "%25", "&", "%26").Replace(xBase)
	for _, report := range []string{
		"oauth_problem=signature_invalid&oauth_signature_base_string=" + enc + "&oauth_signature_method=HMAC-SHA1",
		"oauth_problem=signature_invalid&debug_sbs=" + enc,
	} {
		if r := runCmd(t, nil, "", "diff", report, xBase); r.code != 0 {
			t.Errorf("diff REPORT xBase: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := runCmd(t, nil, report, "explain", "-"); r.code != 0 || !strings.Contains(r.stdout, "Base URI: https://api.twitter.com/1.1/statuses/update.json") {
			t.Errorf("explain REPORT: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	}
}

// TestVerifyProblems checks that verify names the check that failed.
func TestVerifyProblems(t *testing.T) {
	tests := []struct {
		name, request string
		args          []string
		problem, hint string
	}{
		{"no nonce", strings.Replace(xRequest, `oauth_nonce="`+xNonce+`", `, "", 1), nil,
			"parameter_absent", "Missing protocol parameters: oauth_nonce."},
		{"other consumer key", xRequest, []string{"--consumer-key", "someone-else"}, "consumer_key_unknown", "not the --consumer-key given"},
		{"other token", xRequest, []string{"--token", "someone-else"}, "token_rejected", "not the --token given"},
		{"PLAINTEXT not allowed", strings.Replace(xRequest, "HMAC-SHA1", "PLAINTEXT", 1), nil, "signature_method_rejected", "--allow-plaintext"},
		{"RSA without a key", strings.Replace(xRequest, "HMAC-SHA1", "RSA-SHA1", 1), nil, "signature_method_rejected", "--key-file"},
		{"version 2.0", strings.Replace(xRequest, `oauth_version="1.0"`, `oauth_version="2.0"`, 1), nil, "version_rejected", "must be 1.0"},
		{"wrong secret", xRequest, []string{"--consumer-secret", "wrong"}, "signature_invalid", "secrets differ"},
		{"duplicated parameter", strings.Replace(xRequest, "?include_entities=true", "?include_entities=true&oauth_nonce=x", 1), nil,
			"parameter_rejected", "oauth_nonce"},
		{"body hash", "PUT /x HTTP/1.1\nHost: a.example\nContent-Type: application/json\nAuthorization: OAuth oauth_body_hash=\"2jmj7l5rSw0yVb%2FvlWAYkK%2FYBwk%3D\", oauth_consumer_key=\"k\", oauth_nonce=\"n\", oauth_signature=\"x\", oauth_signature_method=\"HMAC-SHA1\", oauth_timestamp=\"1\"\n\n{}\n",
			nil, "signature_invalid", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, xEnv, tt.request, append([]string{"verify", "--any-time"}, tt.args...)...)
			if r.code != 1 || !strings.Contains(r.stdout, "Signature NOT valid: "+tt.problem+".") || !strings.Contains(r.stdout, tt.hint) {
				t.Errorf("exit %d, want 1; stdout:\n%s\nwant problem %s and %q (stderr %q)", r.code, r.stdout, tt.problem, tt.hint, r.stderr)
			}
		})
	}
}

// TestVerifyProblemsWithoutFlags checks the hints when --consumer-key and
// --token were not given: verify then accepts any key and token, so a
// refusal is never that the request's differ from the flags.
func TestVerifyProblemsWithoutFlags(t *testing.T) {
	ctl := func(name string) string {
		return regexp.MustCompile(name+`="[^"]*"`).ReplaceAllString(xRequest, name+`="a%01b"`)
	}
	tests := []struct {
		name, request, problem, hint string
	}{
		{"no token secret", xRequest, "token_rejected", "no token secret was given (--token-secret or $OAUTH1_TOKEN_SECRET)"},
		{"token with a control character", ctl("oauth_token"), "token_rejected", "refused (the token holds a control character"},
		{"consumer key with a control character", ctl("oauth_consumer_key"), "consumer_key_unknown", "refused (the consumer key holds a control character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, nil, tt.request, "verify", "--any-time", "--consumer-secret", xSecret)
			if r.code != 1 || !strings.Contains(r.stdout, "Signature NOT valid: "+tt.problem+".") || !strings.Contains(r.stdout, tt.hint) {
				t.Errorf("exit %d, want 1; stdout:\n%s\nwant problem %s and %q (stderr %q)", r.code, r.stdout, tt.problem, tt.hint, r.stderr)
			}
			for _, wrong := range []string{"--token given", "--consumer-key given", "is unknown"} {
				if strings.Contains(r.stdout, wrong) {
					t.Errorf("stdout names %q, which was not given:\n%s", wrong, r.stdout)
				}
			}
		})
	}
}
