package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

// migrateOpts are the flags of oauth1 migrate.
type migrateOpts struct {
	provider, clientID, clientSecret, tokenURL, scope, out, rate string
	failures, only                                               string
	concurrency, retries                                         int
	dryRun                                                       bool
	// The signed shape.
	consumerKey, consumerSecret, method, keyFile, keyPassword string
	body, httpMethod, idField, secretField, scopeField        string
	fields, keep                                              repeated
}

// exchanger is what both shapes of exchange do.
type exchanger interface {
	Exchange(context.Context, oauth1.Credentials) (*oauth2.Token, error)
}

// A migrateLine is one line of the input: its credentials and the rest of
// its fields, kept.
type migrateLine struct {
	n      int
	cred   oauth1.Credentials
	fields map[string]json.RawMessage
}

// extrasKept are the fields of an answer written with the token, beside
// those x/oauth2 marshals: the grant's scope, Intuit's realmId, Xero's
// tenant, which a client needs to use the token.
var extrasKept = []string{"scope", "realmId", "xero_tenant_id", "x_refresh_token_expires_in", "id_token"}

// migrateAfter follows the flags in oauth1 migrate -h.
const migrateAfter = `Exit status:
  0    every token exchanged (or already in --out)
  1    the run ended, and some tokens failed (each on stderr, and in --failures)
  2    a usage or input error: nothing exchanged
  130  interrupted (Ctrl-C): tokens left; a re-run with the same --out resumes

Ctrl-C starts no exchange and waits for those in flight, whose answers are
written, so that with --out no token is exchanged twice; a second Ctrl-C
abandons them and names each. A process killed outright (kill -9, a crash)
cannot wait: the re-run sends the requests that were in flight (up to
--concurrency) again, and a provider that revoked their 1.0a tokens refuses
them (those users authorize again).
`

func (c *cmd) migrate(args []string) int {
	var o migrateOpts
	fs := c.newFlags("migrate", "--provider x|signed [flags] [FILE]")
	fs.StringVar(&o.provider, "provider", "", "exchange `shape`: x (X's token exchange) or signed (an OAuth-1-signed exchange: Intuit, Xero, ...)")
	fs.StringVar(&o.clientID, "client-id", "", "OAuth 2.0 client `id` (default $OAUTH2_CLIENT_ID)")
	fs.StringVar(&o.clientSecret, "client-secret", "", "OAuth 2.0 client `secret` (default $OAUTH2_CLIENT_SECRET; none for an X public client)")
	fs.StringVar(&o.tokenURL, "token-url", "", "exchange endpoint `URL` (x: default "+exchange.XTokenURL+"; a sandbox or a test server)")
	fs.StringVar(&o.scope, "scope", "", "`scopes` to ask for, space-separated")
	fs.StringVar(&o.out, "out", "", "append results to `FILE`, and skip the tokens it already holds (resume)")
	fs.StringVar(&o.failures, "failures", "", "write one JSON line per failed token to `FILE` (created anew, mode 0600; no secret)")
	fs.StringVar(&o.only, "only", "", "exchange only the tokens that `FILE` names (an earlier run's --failures), taking their credentials from the input")
	fs.StringVar(&o.rate, "rate", "", "at most `N/DURATION` exchanges (x: default 10000/15m, X's limit per app; signed: 600/1m)")
	fs.IntVar(&o.concurrency, "concurrency", 4, "exchanges in flight at once")
	fs.IntVar(&o.retries, "retries", 5, "times a token is tried again after a 429")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the first request, secrets redacted, and exchange nothing")
	fs.StringVar(&o.consumerKey, "consumer-key", "", "signed: consumer `key` (default $OAUTH1_CONSUMER_KEY)")
	fs.StringVar(&o.consumerSecret, "consumer-secret", "", "signed: consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&o.method, "signature-method", "HMAC-SHA1", "signed: signature `method`")
	fs.StringVar(&o.keyFile, "key-file", "", "signed: RSA private key `file` for the RSA methods (Xero)")
	fs.StringVar(&o.keyPassword, "key-password", "", "signed: `password` of an encrypted key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&o.body, "body", "json", "signed: body `format`, json or form")
	fs.StringVar(&o.httpMethod, "request", "POST", "signed: HTTP `method`")
	fs.StringVar(&o.idField, "client-id-field", "client_id", "signed: body field `name` of the client id (- leaves it out)")
	fs.StringVar(&o.secretField, "client-secret-field", "client_secret", "signed: body field `name` of the client secret (- leaves it out)")
	fs.StringVar(&o.scopeField, "scope-field", "scope", "signed: body field `name` of the scope (- leaves it out)")
	fs.Var(&o.fields, "field", "signed: another body field `name=value`, such as Intuit's redirect_uri (repeatable)")
	fs.Var(&o.keep, "keep", "another `field` of the answer to write with the token (repeatable)")
	fs.after = migrateAfter
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return fs.usageError("one FILE at most; %q is extra", pos[1])
	}
	if o.failures != "" && o.failures == o.out {
		return fs.usageError("--failures and --out name the same file %q", o.out)
	}
	ex, rate, secrets, err := c.migrateExchanger(&o)
	if err != nil {
		return fs.usageError("%s", err)
	}
	in, err := c.openInput(pos)
	if err != nil {
		return c.errorf(exitUsage, "migrate: %v", err)
	}
	defer in.Close()
	lines, bad := c.readMigrateLines(in)
	if o.only != "" {
		// Read before --failures is created: both may name one file.
		if lines, err = c.onlyLines(o.only, lines); err != nil {
			return c.errorf(exitUsage, "migrate: --only: %v", err)
		}
	}
	if o.dryRun {
		return c.migrateDryRun(&o, lines, secrets)
	}
	m := &migration{c: c, ex: ex, lim: rate, retries: o.retries, keep: append(extrasKept, o.keep...)}
	if o.provider == "signed" {
		m.consumerKey = o.consumerKey
	}
	// Nothing is exchanged when the output cannot be opened: an input
	// error, not a failed token.
	if err := m.open(o.out, o.failures); err != nil {
		return c.errorf(exitUsage, "migrate: %v", err)
	}
	defer m.close()
	for _, f := range bad {
		m.record(f)
	}
	ctx, stop := m.interrupts()
	defer stop()
	m.run(ctx, lines, max(o.concurrency, 1))
	return m.summary()
}

// migrateExchanger builds the exchange the flags describe, its rate, and
// the secrets a dry run redacts.
func (c *cmd) migrateExchanger(o *migrateOpts) (exchanger, *limiter, []string, error) {
	fill := func(dst *string, env string) {
		if *dst == "" {
			*dst = c.getenv(env)
		}
	}
	switch o.provider {
	case "x", "signed":
	case "":
		return nil, nil, nil, errors.New("no --provider (x or signed)")
	default:
		return nil, nil, nil, fmt.Errorf("unknown --provider %q (x or signed)", o.provider)
	}
	fill(&o.clientID, "OAUTH2_CLIENT_ID")
	fill(&o.clientSecret, "OAUTH2_CLIENT_SECRET")
	if o.clientID == "" {
		return nil, nil, nil, errors.New("no --client-id (the OAuth 2.0 client's; or $OAUTH2_CLIENT_ID)")
	}
	if o.concurrency < 1 || o.concurrency > 256 {
		return nil, nil, nil, fmt.Errorf("--concurrency %d: want 1 to 256", o.concurrency)
	}
	var scopes []string
	if s := strings.Fields(o.scope); len(s) > 0 {
		scopes = s
	}
	switch o.provider {
	case "x":
		lim, err := parseRate(o.rate, "10000/15m")
		if err != nil {
			return nil, nil, nil, err
		}
		e := exchange.X(o.clientID, o.clientSecret)
		if o.tokenURL != "" {
			e.TokenURL = o.tokenURL
		}
		e.Scopes = scopes
		return e, lim, []string{o.clientSecret}, nil
	case "signed":
		lim, err := parseRate(o.rate, "600/1m")
		if err != nil {
			return nil, nil, nil, err
		}
		fill(&o.consumerKey, "OAUTH1_CONSUMER_KEY")
		fill(&o.consumerSecret, "OAUTH1_CONSUMER_SECRET")
		fill(&o.keyPassword, "OAUTH1_KEY_PASSWORD")
		if o.tokenURL == "" {
			return nil, nil, nil, errors.New("--provider signed needs --token-url, the migration endpoint")
		}
		if o.consumerKey == "" {
			return nil, nil, nil, errors.New("no --consumer-key (or $OAUTH1_CONSUMER_KEY)")
		}
		j := &job{SignatureMethod: o.method, keyPassword: o.keyPassword}
		if o.keyFile != "" {
			b, err := os.ReadFile(o.keyFile)
			if err != nil {
				return nil, nil, nil, err
			}
			j.PrivateKeyPEM = string(b)
		}
		signer, err := j.signer("")
		if err != nil {
			return nil, nil, nil, err
		}
		s := &exchange.Signed{
			Config:   &oauth1.Config{ConsumerKey: o.consumerKey, ConsumerSecret: o.consumerSecret, Signer: signer},
			URL:      o.tokenURL,
			Method:   o.httpMethod,
			ClientID: o.clientID, ClientSecret: o.clientSecret, Scopes: scopes,
			Names: exchange.Names{ClientID: o.idField, ClientSecret: o.secretField, Scope: o.scopeField},
		}
		switch o.body {
		case "json":
		case "form":
			s.Body = exchange.Form
		default:
			return nil, nil, nil, fmt.Errorf("--body %q: want json or form", o.body)
		}
		for _, f := range o.fields {
			k, v, ok := strings.Cut(f, "=")
			if !ok || k == "" {
				return nil, nil, nil, fmt.Errorf("--field %q: want name=value", f)
			}
			if s.Extra == nil {
				s.Extra = map[string]string{}
			}
			s.Extra[k] = v
		}
		return s, lim, []string{o.clientSecret, o.consumerSecret}, nil
	}
	return nil, nil, nil, fmt.Errorf("unknown --provider %q (x or signed)", o.provider)
}

// readMigrateLines reads one JSON oauth1.Credentials per line; a line that
// is not one is reported, without its content (it may hold a secret), and
// returned as a failure.
func (c *cmd) readMigrateLines(in io.Reader) ([]migrateLine, []failure) {
	var lines []migrateLine
	var failed []failure
	bad := func(n int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		c.errorf(0, "migrate: %s", msg)
		failed = append(failed, failure{line: n, kind: failInput, msg: msg})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		l := migrateLine{n: n}
		if err := json.Unmarshal(b, &l.fields); err != nil {
			bad(n, "line %d is not a JSON object", n)
			continue
		}
		if err := json.Unmarshal(b, &l.cred); err != nil || l.cred.Token == "" {
			bad(n, "line %d has no Token (want oauth1.Credentials as json.Marshal writes it, with Token and Secret)", n)
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		bad(n+1, "reading the input after line %d: %v", n, err)
	}
	return lines, failed
}

// result is the output line of l: its fields without the secret, and the
// OAuth 2.0 token as x/oauth2 marshals it, with the answer's extras kept.
func (l migrateLine) result(tok *oauth2.Token, keep []string) ([]byte, error) {
	out := make(map[string]any, len(l.fields)+2)
	for k, v := range l.fields {
		if !isSecretField(k) {
			out[k] = v
		}
	}
	out["oauth2"] = tok
	extra := map[string]any{}
	for _, k := range keep {
		if v := tok.Extra(k); v != nil {
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		out["oauth2_extra"] = extra
	}
	return json.Marshal(out)
}

// isSecretField reports whether k is the input's Secret: json.Unmarshal
// matches names without regard to case, and so does this.
func isSecretField(k string) bool { return strings.EqualFold(k, "Secret") }

// migrateDryRun prints the request the first line to exchange would send,
// with every secret redacted, and sends nothing.
func (c *cmd) migrateDryRun(o *migrateOpts, lines []migrateLine, secrets []string) int {
	if len(lines) == 0 {
		return c.errorf(exitUsage, "migrate: --dry-run: no credentials in the input")
	}
	var got *http.Request
	var body []byte
	capture := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		return nil, errDryRun
	})}
	ex, _, _, err := c.migrateExchanger(o)
	if err != nil {
		return c.errorf(exitUsage, "migrate: %v", err)
	}
	switch e := ex.(type) {
	case *exchange.TokenExchange:
		e.HTTPClient = capture
	case *exchange.Signed:
		e.Config.HTTPClient = capture
	}
	cred := lines[0].cred
	if _, err := ex.Exchange(context.Background(), cred); got == nil {
		return c.errorf(exitFailure, "migrate: --dry-run: line %d: %v", lines[0].n, err)
	}
	secrets = append(secrets, cred.Secret)
	fmt.Fprintf(c.stdout, "%s %s\n", got.Method, redactText(got.URL.String(), secrets))
	for _, k := range []string{"Authorization", "Content-Type", "Accept"} {
		if v := got.Header.Get(k); v != "" {
			fmt.Fprintf(c.stdout, "%s: %s\n", k, redactText(redactAuthorization(v), secrets))
		}
	}
	fmt.Fprintf(c.stdout, "\n%s\n", redactText(redactBody(string(body), got.Header.Get("Content-Type"), o.secretField), secrets))
	fmt.Fprintf(c.stderr, "oauth1 migrate: dry run: %d credentials read, nothing exchanged\n", len(lines))
	return exitOK
}

var errDryRun = errors.New("dry run")

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

var oauthSignature = regexp.MustCompile(`oauth_signature="[^"]*"`)

// redactAuthorization hides Basic credentials and an OAuth signature.
func redactAuthorization(v string) string {
	if scheme, _, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Basic") {
		return scheme + " REDACTED"
	}
	return oauthSignature.ReplaceAllString(v, `oauth_signature="REDACTED"`)
}

// redactBody hides the secret fields of a form or JSON body.
func redactBody(body, contentType, secretField string) string {
	names := map[string]bool{"oauth_token_secret": true, "client_secret": true, secretField: true}
	if strings.HasPrefix(contentType, "application/json") {
		var m map[string]any
		if json.Unmarshal([]byte(body), &m) == nil {
			for k := range m {
				if names[k] {
					m[k] = "REDACTED"
				}
			}
			b, _ := json.Marshal(m)
			return string(b)
		}
		return body
	}
	var parts []string
	for _, kv := range strings.Split(body, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err == nil && names[dk] {
			kv = k + "=REDACTED"
		}
		parts = append(parts, kv)
	}
	return strings.Join(parts, "&")
}

// redactText hides any secret left, as it is or encoded.
func redactText(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "REDACTED")
			s = strings.ReplaceAll(s, url.QueryEscape(sec), "REDACTED")
			s = strings.ReplaceAll(s, url.PathEscape(sec), "REDACTED")
		}
	}
	return s
}

// A limiter spaces requests so that at most n go in any window, and
// holds them all while the provider asked to wait.
type limiter struct {
	every time.Duration
	mu    sync.Mutex
	next  time.Time
}

func parseRate(s, def string) (*limiter, error) {
	if s == "" {
		s = def
	}
	ns, ds, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(ns)
	d, derr := time.ParseDuration(ds)
	if !ok || err != nil || derr != nil || n < 1 || d <= 0 {
		return nil, fmt.Errorf("--rate %q: want N/DURATION, such as 10000/15m", s)
	}
	return &limiter{every: d / time.Duration(n)}, nil
}

// wait returns when the next request may go, or false when ctx ends.
func (l *limiter) wait(ctx context.Context) bool {
	l.mu.Lock()
	t := time.Now()
	if l.next.After(t) {
		t = l.next
	}
	l.next = t.Add(l.every)
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(t)):
		return true
	}
}

// pause holds every request for d.
func (l *limiter) pause(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := time.Now().Add(d); t.After(l.next) {
		l.next = t
	}
}
