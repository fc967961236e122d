// Package pagetest tests the OAuth 1.0a debugging page (cmd/oauth1/page)
// in a real headless Chromium: it loads the built page from file://, pastes
// cases from the corpus of real libraries' base strings, clicks, reads what
// the page shows, and checks that the page made no network request, stored
// nothing, and has a Content-Security-Policy that forbids requests (a
// fetch to a loopback server is tried, and must not arrive).
//
// It is a module of its own so that chromedp stays out of countersign's
// go.mod. Run it from this directory:
//
//	go test ./...
//
// It builds the page with go run ./cmd/oauth1/page, unless
// COUNTERSIGN_PAGE names a page already built; COUNTERSIGN_PAGE_SCREENSHOTS
// names a directory to write screenshots of its results to. Without Chromium it skips
// and says so; COUNTERSIGN_REQUIRE_CHROMIUM=1 (as .ci/run sets) makes that
// a failure. CHROMIUM names the browser's binary when it is not on PATH as
// chromium, chromium-browser or google-chrome.
package pagetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// root is the countersign module's root, from this directory.
const root = "../../../.."

// corpusCase is an entry of ../shared/corpora/six-libraries.json.gz (its
// README describes the fields): a request as a real library sent it, the
// RFC 5849 base string of it, and the one the library signed.
type corpusCase struct {
	Library string `json:"library"`
	Request struct {
		Method      string `json:"method"`
		URL         string `json:"url"`
		Body        string `json:"body"`
		ContentType string `json:"content_type"`
	} `json:"request"`
	Want string `json:"want"`
	Got  string `json:"got"`
}

// enc is RFC 5849 §3.6 percent-encoding, written here so that the
// expected signatures do not come from the code under test.
func enc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func hmacSHA1(cs, ts, base string) string {
	m := hmac.New(sha1.New, []byte(enc(cs)+"&"+enc(ts)))
	m.Write([]byte(base))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// protocolParams returns the oauth_ parameters of a base string, in order.
func protocolParams(t *testing.T, base string) [][2]string {
	t.Helper()
	parts := strings.Split(base, "&")
	if len(parts) != 3 {
		t.Fatalf("base string of %d parts: %q", len(parts), base)
	}
	params, err := url.PathUnescape(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]string
	for _, p := range strings.Split(params, "&") {
		name, value, _ := strings.Cut(p, "=")
		if !strings.HasPrefix(name, "oauth_") {
			continue
		}
		v, err := url.PathUnescape(value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{name, v})
	}
	return out
}

// rawRequest is the request of c as it went on the wire, with an
// Authorization header holding c's protocol parameters and signature sig;
// curlV prints it as curl -v does (which does not show the body).
func rawRequest(t *testing.T, c corpusCase, sig string, curlV bool) string {
	t.Helper()
	u, err := url.Parse(c.Request.URL)
	if err != nil {
		t.Fatal(err)
	}
	var auth []string
	for _, p := range append(protocolParams(t, c.Want), [2]string{"oauth_signature", sig}) {
		auth = append(auth, fmt.Sprintf("%s=%q", p[0], enc(p[1])))
	}
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	head := []string{c.Request.Method + " " + target + " HTTP/1.1", "Host: " + u.Host, "Authorization: OAuth " + strings.Join(auth, ", ")}
	if c.Request.ContentType != "" {
		head = append(head, "Content-Type: "+c.Request.ContentType)
	}
	if c.Request.Body != "" {
		head = append(head, fmt.Sprintf("Content-Length: %d", len(c.Request.Body)))
	}
	if !curlV {
		return strings.Join(head, "\r\n") + "\r\n\r\n" + c.Request.Body
	}
	out := "*   Trying 192.0.2.1:443...\n* Connected to " + u.Hostname() + " (192.0.2.1) port 443 (#0)\n"
	for _, h := range head {
		out += "> " + h + "\n"
	}
	return out + "> \n< HTTP/1.1 401 Unauthorized\n< Content-Length: 31\n< \noauth_problem=signature_invalid* Connection #0 to host left intact\n"
}

// namedBug is a phrase of the bug each library of testdata/corpus-cases.json
// makes there, as its documentation or source shows it: PHP's PECL oauth
// keeps one value of a repeated name (PHP arrays keep the last), and
// Ruby's oauth gem sorts the parameters before encoding them
// (OAuth::Helper.normalize).
var namedBug = map[string]string{
	"pecl-oauth": "last value",
	"ruby-oauth": "sorts the parameters before encoding",
}

func loadCases(t *testing.T) []corpusCase {
	b, err := os.ReadFile("testdata/corpus-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// cli runs the oauth1 command built natively: what the page shows must be
// what it prints.
type cli struct{ bin string }

func (c cli) run(t *testing.T, stdin string, env map[string]string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func chromiumPath(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const msg = "no Chromium (chromium, chromium-browser or google-chrome on PATH, or $CHROMIUM): install Debian's chromium (apt-get install chromium)"
	if os.Getenv("COUNTERSIGN_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + "; COUNTERSIGN_REQUIRE_CHROMIUM=1 makes this a failure")
	}
	t.Skip(msg + "; set COUNTERSIGN_REQUIRE_CHROMIUM=1 to make this a failure")
	return ""
}

// build returns the page's path and the native oauth1 command, built from
// this checkout.
func build(t *testing.T) (string, cli) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "oauth1")
	gobuild := exec.Command("go", "build", "-o", bin, "./cmd/oauth1")
	gobuild.Dir = root
	if out, err := gobuild.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/oauth1: %v\n%s", err, out)
	}
	htmlPath := os.Getenv("COUNTERSIGN_PAGE")
	if htmlPath == "" {
		htmlPath = filepath.Join(dir, "oauth1-debugger.html")
		run := exec.Command("go", "run", "./cmd/oauth1/page", "-o", htmlPath)
		run.Dir = root
		if out, err := run.CombinedOutput(); err != nil {
			t.Fatalf("go run ./cmd/oauth1/page: %v\n%s", err, out)
		}
	}
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	return abs, cli{bin}
}

// result is what the page shows for one command.
type result struct {
	Code   string `json:"code"`
	Status string `json:"status"`
	Class  string `json:"class"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Next   bool   `json:"next"` // the verify section's "what to try next" is shown
}

func readResult(ctx context.Context, section string) (result, error) {
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`!document.getElementById(%q).hidden && !document.body.dataset.busy`, section+"-result"),
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		return result{}, err
	}
	return chromedp.Run(ctx, chromedp.Evaluate[result](fmt.Sprintf(`(() => {
			const $ = (id) => document.getElementById(id);
			const next = $("verify-next");
			return {code: $(%[1]q + "-result").dataset.code, status: $(%[1]q + "-status").textContent,
				class: $(%[1]q + "-status").className, stdout: $(%[1]q + "-out").textContent,
				stderr: $(%[1]q + "-err").textContent, next: !next.hidden};
		})()`, section)))
}

// fill clears the page and sets its fields by id, as a paste would.
func fill(ctx context.Context, fields map[string]string, checks map[string]bool) error {
	f, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	if checks == nil {
		checks = map[string]bool{}
	}
	c, err := json.Marshal(checks)
	if err != nil {
		return err
	}
	return chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("clear")),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
			for (const [id, v] of Object.entries(%s)) {
				const el = document.getElementById(id);
				el.value = v;
				el.dispatchEvent(new Event("input", {bubbles: true}));
			}
			for (const [id, on] of Object.entries(%s)) document.getElementById(id).checked = on;
		})()`, f, c)))
}

// view is what the page draws of verify's report.
type view struct {
	Want      string   `json:"want"`      // the right base string, as drawn
	Got       string   `json:"got"`       // the one the client signed
	Marks     int      `json:"marks"`     // del and ins elements in them
	FirstMark string   `json:"firstMark"` // the text of the first
	Finding   string   `json:"finding"`   // the bug named beside them
	Params    int      `json:"params"`    // rows of the parameters table
	Overflow  []string `json:"overflow"`  // elements whose text runs past their right edge
}

func readView(ctx context.Context) (view, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[view](`(() => {
		const $ = (id) => document.getElementById(id);
		const marks = document.querySelectorAll("#base-want del, #base-got ins");
		const overflow = [];
		for (const id of ["base-want", "base-got", "verify-params", "verify-view", "verify-out", "verify-finding"]) {
			const e = $(id);
			if (e && e.scrollWidth > e.clientWidth) overflow.push(id + " (" + e.scrollWidth + " > " + e.clientWidth + ")");
		}
		if (document.documentElement.scrollWidth > document.documentElement.clientWidth) overflow.push("the page");
		return {want: ($("base-want") || {}).textContent || "", got: ($("base-got") || {}).textContent || "",
			marks: marks.length, firstMark: marks.length ? marks[0].textContent : "",
			finding: $("verify-finding").hidden ? "" : $("verify-finding").textContent,
			params: $("verify-params").hidden ? 0 : $("verify-params").tBodies[0].rows.length, overflow};
	})()`))
}

// screenshot writes a PNG of the element id as it is, id-name.png in the
// directory $COUNTERSIGN_PAGE_SCREENSHOTS if set, to look at how it reads.
func screenshot(t *testing.T, ctx context.Context, id, name string) {
	dir := os.Getenv("COUNTERSIGN_PAGE_SCREENSHOTS")
	if dir == "" {
		return
	}
	path := filepath.Join(dir, id+"-"+name+".png")
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(id)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	// And in the dark colour scheme.
	dark := func(on string) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: on}}})
		return err
	}
	if err := dark("dark"); err != nil {
		t.Fatal(err)
	}
	png, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(id)))
	if err == nil {
		err = os.WriteFile(strings.TrimSuffix(path, ".png")+"-dark.png", png, 0o644)
	}
	if err := errors.Join(err, dark("")); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func clickFor(ctx context.Context, button, section string) (result, error) {
	// The previous result is hidden by #clear; wait for the new one.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(button))); err != nil {
		return result{}, err
	}
	return readResult(ctx, section)
}

func TestPage(t *testing.T) {
	browser := chromiumPath(t)
	htmlPath, oauth1 := build(t)
	html, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}

	// chromedp's defaults (Puppeteer's: headless, no first run, background
	// networking, sync, extensions and phishing checks off), and the rest
	// of what keeps a browser on a closed network from trying to connect.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	// Every request the page's tab makes, from its start.
	var mu sync.Mutex
	var requests []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			mu.Lock()
			requests = append(requests, fmt.Sprintf("%s %s (%s)", e.Request.Method, e.Request.URL, e.Type))
			mu.Unlock()
		case *runtime.EventExceptionThrown:
			t.Logf("page exception: %s", e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			t.Logf("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	}))
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	pageURL := (&url.URL{Scheme: "file", Path: htmlPath}).String()
	start := time.Now()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// Count the Content-Security-Policy's refusals, from the first script
	// on: a page that works within its policy has none.
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `globalThis.__violations = [];
		document.addEventListener("securitypolicyviolation", (e) => __violations.push(e.violatedDirective + " " + e.blockedURI));`}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	// Ready, failed, or refused by its own policy (a script whose hash is
	// not the policy's never runs, and the page would wait forever).
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body && (document.body.dataset.state !== "loading" || __violations.length > 0)`,
		chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("loading %s: %v", pageURL, err)
	}
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.dataset.state`))
	if err != nil {
		t.Fatal(err)
	}
	if state != "ready" {
		loadStatus, _ := chromedp.Run(ctx, chromedp.Text(chromedp.ID("load-status")))
		violations, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`__violations`))
		t.Fatalf("page state %q: %s; refused by its policy: %v", state, loadStatus, violations)
	}
	loadMs, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`globalThis.oauth1LoadMs`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("page %s: %d bytes raw, %d bytes gzipped; loaded from file:// in %.0f ms (navigation start to WebAssembly ready; %s wall clock with the browser's start)",
		filepath.Base(htmlPath), len(html), gzipSize(html), loadMs, time.Since(start).Round(time.Millisecond))

	// A page that takes long to fetch and to start is a page not used: the
	// program links only the commands the page runs (page_js.go).
	const budget = 3 << 20
	if n := gzipSize(html); n > budget {
		t.Errorf("the page is %d bytes gzipped, over its budget of %d: see what the js/wasm build of cmd/oauth1 links (GOOS=js GOARCH=wasm go list -deps ./cmd/oauth1)", n, budget)
	}

	t.Run("csp", func(t *testing.T) {
		csp, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || ""`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"default-src 'none'", "connect-src 'none'", "form-action 'none'", "base-uri 'none'", "img-src 'none'", "'wasm-unsafe-eval'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
			}
		}
		for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "http:", "https:", "*", "data:", "blob:"} {
			if strings.Contains(csp, bad) {
				t.Errorf("Content-Security-Policy %q allows %s", csp, bad)
			}
		}
	})

	cases := loadCases(t)
	t.Run("corpus cases reproduced", func(t *testing.T) {
		secrets := [][2]string{
			{"kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"},
			{"cs with spaces & an ampersand", "ts/+="},
		}
		for i, c := range cases {
			cs, ts := secrets[i%len(secrets)][0], secrets[i%len(secrets)][1]
			sig := hmacSHA1(cs, ts, c.Got)
			for _, curlV := range []bool{false, true} {
				name := fmt.Sprintf("%s curl-v=%v", c.Library, curlV)
				req := rawRequest(t, c, sig, curlV)
				if err := fill(ctx, map[string]string{"request": req, "consumer-secret": cs, "token-secret": ts, "body": c.Request.Body, "scheme": "https"},
					map[string]bool{"any-time": true}); err != nil {
					t.Fatal(err)
				}
				r, err := clickFor(ctx, "verify", "verify")
				if err != nil {
					t.Fatal(err)
				}
				if r.Code != "1" || r.Class != "status bad" {
					t.Errorf("%s: code %s, status %q (%s), want 1, bad", name, r.Code, r.Status, r.Class)
				}
				// The page names the base string the library signed: the
				// corpus's got, not computed here.
				if !strings.Contains(r.Stdout, "\n"+c.Got+"\n") {
					t.Errorf("%s: the page does not show the base string %s signed (%s):\n%s", name, c.Library, c.Got, r.Stdout)
				}
				if strings.Contains(r.Stdout+r.Stderr, cs) || strings.Contains(r.Stdout+r.Stderr, ts) {
					t.Errorf("%s: a secret is shown", name)
				}
				args := []string{"verify", "--any-time", "--scheme", "https"}
				if c.Request.Body != "" {
					args = append(args, "--data-raw", c.Request.Body)
				}
				stdout, stderr, code := oauth1.run(t, req, map[string]string{"OAUTH1_CONSUMER_SECRET": cs, "OAUTH1_TOKEN_SECRET": ts}, args...)
				if r.Stdout != stdout || r.Stderr != stderr || r.Code != fmt.Sprint(code) {
					t.Errorf("%s: the page shows another report than oauth1 %s:\npage (exit %s):\n%s%s\noauth1 (exit %d):\n%s%s",
						name, strings.Join(args, " "), r.Code, r.Stdout, r.Stderr, code, stdout, stderr)
				}
				// The bug the library's documentation or source shows.
				if bug := namedBug[c.Library]; !strings.Contains(r.Stdout, bug) {
					t.Errorf("%s: the page does not name %s's bug (%q):\n%s", name, c.Library, bug, r.Stdout)
				}
				// The page draws the report: both base strings, the
				// differences marked, the bug named beside them, the
				// parameters as a table, all of it wrapped.
				v, err := readView(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if v.Want != c.Want || v.Got != c.Got {
					t.Errorf("%s: the page draws the base strings\n%s\n%s\nwant the corpus's\n%s\n%s", name, v.Want, v.Got, c.Want, c.Got)
				}
				if v.Marks == 0 || !strings.Contains(c.Want, v.FirstMark) && !strings.Contains(c.Got, v.FirstMark) {
					t.Errorf("%s: %d differences marked (first %q)", name, v.Marks, v.FirstMark)
				}
				if bug := namedBug[c.Library]; !strings.Contains(v.Finding, bug) {
					t.Errorf("%s: the page does not name %s's bug (%q) beside the base strings:\n%s", name, c.Library, bug, v.Finding)
				}
				if want := len(strings.Split(strings.SplitN(c.Want, "&", 3)[2], "%26")); v.Params != want {
					t.Errorf("%s: the parameters table has %d rows, want %d", name, v.Params, want)
				}
				if len(v.Overflow) > 0 {
					t.Errorf("%s: text runs off the right edge of %v", name, v.Overflow)
				}
				if !curlV {
					screenshot(t, ctx, "verify-result", c.Library)
				}
				if i == 0 && !curlV {
					// On a phone's width too, nothing runs off the edge.
					if err := chromedp.Do(ctx, chromedp.EmulateViewport(400, 800)); err != nil {
						t.Fatal(err)
					}
					narrow, err := readView(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if len(narrow.Overflow) > 0 {
						t.Errorf("%s: 400 pixels wide, text runs off the right edge of %v", name, narrow.Overflow)
					}
					screenshot(t, ctx, "verify-result", c.Library+"-narrow")
					if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
						t.Fatal(err)
					}
				}
				// The report's last two paragraphs: the bug named, and the
				// base string reproduced.
				para := strings.Split(strings.TrimSpace(r.Stdout), "\n\n")
				t.Logf("%s: the page shows, after the right base string:\n%s", name, strings.Join(para[max(0, len(para)-2):], "\n\n"))
			}
		}
	})

	t.Run("the page's example", func(t *testing.T) {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("clear")), chromedp.Click(chromedp.ID("example"))); err != nil {
			t.Fatal(err)
		}
		r, err := clickFor(ctx, "verify", "verify")
		if err != nil {
			t.Fatal(err)
		}
		// The example is testdata's first case, with the X API
		// documentation's secrets.
		if r.Code != "1" || !strings.Contains(r.Stdout, "\n"+cases[0].Got+"\n") || !strings.Contains(r.Stdout, namedBug[cases[0].Library]) {
			t.Errorf("the example: code %s, want 1, with %s's bug and base string:\n%s%s", r.Code, cases[0].Library, r.Stdout, r.Stderr)
		}
	})

	t.Run("key mistake named beside the right base string", func(t *testing.T) {
		c := cases[0]
		// Signed over the right base string, without the token secret.
		const cs, ts = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
		req := rawRequest(t, c, hmacSHA1(cs, "", c.Want), false)
		if err := fill(ctx, map[string]string{"request": req, "consumer-secret": cs, "token-secret": ts, "scheme": "https"}, map[string]bool{"any-time": true}); err != nil {
			t.Fatal(err)
		}
		r, err := clickFor(ctx, "verify", "verify")
		if err != nil {
			t.Fatal(err)
		}
		v, err := readView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Code != "1" || r.Next || v.Want != c.Want || v.Got != "" || v.Marks != 0 || !strings.Contains(v.Finding, "empty token secret") || len(v.Overflow) > 0 {
			t.Errorf("code %s (want 1), what to try next shown %v (want not), view %+v; want the right base string alone, unmarked, and the empty token secret named", r.Code, r.Next, v)
		}
		screenshot(t, ctx, "verify-result", "key-mistake")
	})

	t.Run("nothing reproduced says what to try next", func(t *testing.T) {
		c := cases[0]
		// Signed with a secret the page is not given: nothing can explain it.
		// The markup in a header must stay text.
		req := rawRequest(t, c, hmacSHA1("another secret", "", c.Want), false)
		req = strings.Replace(req, "\r\n\r\n", "\r\nX-Note: <img src=\"http://127.0.0.1:9/x\"><script>alert(1)</script>\r\n\r\n", 1)
		env := map[string]string{"OAUTH1_CONSUMER_SECRET": "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "OAUTH1_TOKEN_SECRET": "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}
		if err := fill(ctx, map[string]string{"request": req, "consumer-secret": env["OAUTH1_CONSUMER_SECRET"], "token-secret": env["OAUTH1_TOKEN_SECRET"]}, map[string]bool{"any-time": true}); err != nil {
			t.Fatal(err)
		}
		r, err := clickFor(ctx, "verify", "verify")
		if err != nil {
			t.Fatal(err)
		}
		if r.Code != "1" || !r.Next {
			t.Errorf("code %s, what to try next shown %v; want 1, true", r.Code, r.Next)
		}
		screenshot(t, ctx, "verify-result", "nothing-reproduced")
		if strings.Contains(r.Stdout, c.Got) {
			t.Errorf("a base string the client did not sign is shown as reproduced:\n%s", r.Stdout)
		}
		next, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("verify-next")))
		if err != nil {
			t.Fatal(err)
		}
		imgs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("img, main script").length`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(next, "oauth1 diff") || !strings.Contains(next, "never the") {
			t.Errorf("what to try next does not ask for both base strings (oauth1 diff) without the secrets:\n%s", next)
		}
		if imgs != 0 {
			t.Errorf("the request's markup became %d elements", imgs)
		}
		stdout, stderr, code := oauth1.run(t, req, env, "verify", "--any-time")
		if r.Stdout != stdout || r.Stderr != stderr || r.Code != fmt.Sprint(code) {
			t.Errorf("the page shows another report than oauth1 verify:\npage:\n%s%s\noauth1:\n%s%s", r.Stdout, r.Stderr, stdout, stderr)
		}
	})

	t.Run("RSA key pasted", func(t *testing.T) {
		key, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		pub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		c := cases[0]
		c.Want = strings.Replace(c.Want, "HMAC-SHA1", "RSA-SHA1", 1)
		sum := sha1.Sum([]byte(c.Want))
		sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA1, sum[:])
		if err != nil {
			t.Fatal(err)
		}
		other, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		otherDER, err := x509.MarshalPKIXPublicKey(&other.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		otherPub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: otherDER}))
		req := rawRequest(t, c, base64.StdEncoding.EncodeToString(sig), false)
		for _, tc := range []struct {
			key, code string
		}{{pub, "0"}, {otherPub, "1"}, {"-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----", "2"}} {
			if err := fill(ctx, map[string]string{"request": req, "public-key": tc.key, "scheme": "https"}, map[string]bool{"any-time": true}); err != nil {
				t.Fatal(err)
			}
			r, err := clickFor(ctx, "verify", "verify")
			if err != nil {
				t.Fatal(err)
			}
			if r.Code != tc.code {
				t.Errorf("RSA-SHA1 with a key pasted: code %s, want %s:\n%s%s", r.Code, tc.code, r.Stdout, r.Stderr)
			}
			if tc.code != "0" {
				continue
			}
			// A valid signature: the base string signed, alone, unmarked,
			// and its parameters.
			v, err := readView(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v.Want != c.Want || v.Got != "" || v.Marks != 0 || v.Params == 0 || v.Finding != "" {
				t.Errorf("RSA-SHA1 valid: the page draws %+v; want the base string signed alone and its parameters", v)
			}
		}
	})

	t.Run("the client's base string pasted", func(t *testing.T) {
		c := cases[1]
		const cs, ts = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw", "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
		req := rawRequest(t, c, hmacSHA1(cs, ts, c.Got), false)
		if err := fill(ctx, map[string]string{"request": req, "consumer-secret": cs, "token-secret": ts, "scheme": "https", "client-base": c.Got},
			map[string]bool{"any-time": true}); err != nil {
			t.Fatal(err)
		}
		r, err := clickFor(ctx, "verify", "verify")
		if err != nil {
			t.Fatal(err)
		}
		v, err := readView(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Code != "1" || v.Want != c.Want || v.Got != c.Got || v.Marks == 0 || !strings.Contains(v.Finding, "How the base strings differ") ||
			!strings.Contains(v.Finding, "sort order") || len(v.Overflow) > 0 {
			t.Errorf("code %s (want 1), the page draws %+v; want both base strings marked and the differences listed", r.Code, v)
		}
	})

	t.Run("diff", func(t *testing.T) {
		for _, c := range cases {
			for _, tc := range []struct{ want, got, code string }{{c.Want, c.Got, "1"}, {c.Want, c.Want, "0"}, {c.Want, "not a base string", "2"}} {
				if err := fill(ctx, map[string]string{"want": tc.want, "got": tc.got}, nil); err != nil {
					t.Fatal(err)
				}
				r, err := clickFor(ctx, "diff", "diff")
				if err != nil {
					t.Fatal(err)
				}
				stdout, stderr, code := oauth1.run(t, "", nil, "diff", "--", tc.want, tc.got)
				if r.Code != tc.code || r.Stdout != stdout || r.Stderr != stderr || r.Code != fmt.Sprint(code) {
					t.Errorf("%s: diff on the page (exit %s, want %s):\n%s%s\noauth1 diff (exit %d):\n%s%s", c.Library, r.Code, tc.code, r.Stdout, r.Stderr, code, stdout, stderr)
				}
				if tc.code == "1" && r.Stdout == "" {
					t.Errorf("%s: diff shows no difference", c.Library)
				}
				if tc.code != "1" {
					continue
				}
				screenshot(t, ctx, "diff-result", c.Library)
				// Both base strings, stacked, the differences marked.
				type marked struct {
					Want  string `json:"want"`
					Got   string `json:"got"`
					Marks int    `json:"marks"`
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[marked](`(() => {
					const $ = (id) => document.getElementById(id);
					return {want: ($("diff-want") || {}).textContent || "", got: ($("diff-got") || {}).textContent || "",
						marks: document.querySelectorAll("#diff-want del, #diff-got ins").length};
				})()`))
				if err != nil {
					t.Fatal(err)
				}
				if m.Want != tc.want || m.Got != tc.got || m.Marks == 0 {
					t.Errorf("%s: diff draws\n%s\n%s\nwith %d marks; want the two base strings, marked", c.Library, m.Want, m.Got, m.Marks)
				}
			}
		}
	})

	// The flows above made no request and stored nothing, and nothing
	// the page did was refused by its policy.
	t.Run("no request, nothing stored", func(t *testing.T) {
		mu.Lock()
		got := append([]string(nil), requests...)
		mu.Unlock()
		if len(got) != 1 || !strings.HasPrefix(got[0], "GET "+pageURL+" (Document)") {
			t.Errorf("requests made, want only the page's own load:\n%s", strings.Join(got, "\n"))
		}
		type storage struct {
			Local      int      `json:"local"`
			Session    int      `json:"session"`
			IDB        int      `json:"idb"`
			Cookie     string   `json:"cookie"`
			Violations []string `json:"violations"`
		}
		stored, err := chromedp.Run(ctx, chromedp.Evaluate[storage](`(async () => ({
			local: localStorage.length, session: sessionStorage.length, cookie: document.cookie,
			idb: (await indexedDB.databases()).length, violations: __violations}))()`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if stored.Local+stored.Session+stored.IDB != 0 || stored.Cookie != "" {
			t.Errorf("the page stored something: %+v", stored)
		}
		if len(stored.Violations) != 0 {
			t.Errorf("the page's own policy refused it: %v", stored.Violations)
		}
	})

	// The policy is enforced, not only present: a request the page's
	// script tries does not arrive.
	t.Run("csp blocks requests", func(t *testing.T) {
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
		defer srv.Close()
		outcome, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
			const u = %q;
			new Image().src = u + "/img";
			try { navigator.sendBeacon(u + "/beacon", "x"); } catch (e) {}
			try { new WebSocket(u.replace("http", "ws") + "/ws"); } catch (e) {}
			try { await fetch(u + "/fetch", {method: "POST", body: "secret", mode: "no-cors"}); return "fetch sent"; }
			catch (e) { return "fetch refused"; }
		})()`, srv.URL), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		if outcome != "fetch refused" || hits.Load() != 0 {
			t.Errorf("%s; %d requests reached %s", outcome, hits.Load(), srv.URL)
		}
		// The policy reported its refusals, so the count of none above
		// was not for want of listening.
		violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`__violations`))
		if err != nil {
			t.Fatal(err)
		}
		if len(violations) == 0 {
			t.Error("no securitypolicyviolation event for the refused requests")
		}
		t.Logf("refused by the page's policy: %v", violations)
	})
}

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Len()
}

// TestPageLoadTime loads the page $COUNTERSIGN_PAGE_LOADS times (if set), each
// in a tab of its own, and logs the time from navigation start to the
// WebAssembly program being ready: the least, the median and the most, as
// one load on a shared machine says little.
func TestPageLoadTime(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("COUNTERSIGN_PAGE_LOADS"))
	if n < 1 {
		t.Skip("set COUNTERSIGN_PAGE_LOADS to the number of loads to time")
	}
	browser := chromiumPath(t)
	htmlPath, _ := build(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.DisableGPU)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil { // start the browser, outside the timing
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: htmlPath}).String()
	var ms []float64
	for range n {
		ctx, cancel := chromedp.NewContext(bctx)
		ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
		err := chromedp.Do(ctx, chromedp.Navigate(pageURL))
		if err == nil {
			_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body && document.body.dataset.state === "ready"`, chromedp.WithPollingTimeout(time.Minute)))
		}
		var v float64
		if err == nil {
			v, err = chromedp.Run(ctx, chromedp.Evaluate[float64](`globalThis.oauth1LoadMs`))
		}
		cancelT()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, v)
	}
	slices.Sort(ms)
	t.Logf("%s: %d loads from file://, navigation start to WebAssembly ready: least %.0f ms, median %.0f ms, most %.0f ms",
		filepath.Base(htmlPath), n, ms[0], ms[len(ms)/2], ms[len(ms)-1])
}
