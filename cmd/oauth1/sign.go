package main

import (
	"bytes"
	"cmp"
	"crypto"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

// A job is one request to sign: the fields of a batch line, which the
// flags of "oauth1 sign" fill in too.
type job struct {
	Method          string      `json:"method"`
	URL             string      `json:"url"`
	Params          [][2]string `json:"params"` // form body parameters, unencoded
	ContentType     string      `json:"content_type"`
	Body            string      `json:"body"`
	ConsumerKey     string      `json:"consumer_key"`
	ConsumerSecret  string      `json:"consumer_secret"`
	Token           string      `json:"token"`
	TokenSecret     string      `json:"token_secret"`
	SignatureMethod string      `json:"signature_method"`
	PrivateKeyPEM   string      `json:"private_key_pem"`
	Nonce           string      `json:"nonce"`
	Timestamp       json.Number `json:"timestamp"` // a number or a string of digits
	Realm           string      `json:"realm"`
	Version         *bool       `json:"version"` // nil means true
	Callback        string      `json:"callback"`
	Verifier        string      `json:"verifier"`
	Delivery        string      `json:"delivery"`  // header (default), query or body
	BodyHash        string      `json:"body_hash"` // "", SHA-1, SHA-256 or SHA-512

	// Only from flags.
	headers       []string // "Name: value"
	keyPassword   string
	allowInsecure bool
}

// A signed request and what went into it.
type signed struct {
	req       *http.Request
	cfg       *oauth1.Config
	tok       *oauth1.Credentials
	base      string
	signature string
	auth      string // the Authorization header, if delivered there
	body      string // the body sent, after delivery
	query     string // the query of the original URL, for the explain table
	formBody  string // the form body before delivery, for the explain table
}

func hashByName(name string) (crypto.Hash, error) {
	switch strings.ToUpper(name) {
	case "SHA1", "SHA-1":
		return crypto.SHA1, nil
	case "SHA256", "SHA-256":
		return crypto.SHA256, nil
	case "SHA512", "SHA-512":
		return crypto.SHA512, nil
	}
	return 0, fmt.Errorf("unknown hash %q (want SHA-1, SHA-256 or SHA-512)", name)
}

// signer returns the Signer for the job's signature method, in any case,
// HMAC-SHA1 if none; an RSA method takes the job's private key.
func (j *job) signer() (oauth1.Signer, error) {
	m := strings.ToUpper(cmp.Or(j.SignatureMethod, "HMAC-SHA1"))
	if !slices.Contains(signatureMethods, m) {
		return nil, &methodError{j.SignatureMethod}
	}
	if !strings.HasPrefix(m, "RSA-") {
		return oauth1.SignerFor(m, nil)
	}
	// Ask with a stand-in key whether the method is one, before reading the key.
	if _, err := oauth1.SignerFor(m, noKey{}); err != nil {
		return nil, err
	}
	if j.PrivateKeyPEM == "" {
		return nil, fmt.Errorf("%s needs a private key (--key-file, or private_key_pem in batch mode)", m)
	}
	key, err := rsakey.Parse([]byte(j.PrivateKeyPEM), j.keyPassword)
	switch {
	case errors.Is(err, rsakey.ErrPasswordRequired):
		return nil, fmt.Errorf("%w; give its password with --key-password or $OAUTH1_KEY_PASSWORD", err)
	case errors.Is(err, rsakey.ErrIncorrectPassword):
		return nil, fmt.Errorf("%w; check --key-password or $OAUTH1_KEY_PASSWORD", err)
	case err != nil:
		return nil, err
	}
	return oauth1.SignerFor(m, key)
}

// signatureMethods are the methods oauth1.SignerFor knows.
var signatureMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512", "PLAINTEXT"}

// A methodError is an unknown signature method. An HTTP method there was
// meant for -X, as in curl, where the signature method has no flag.
type methodError struct{ method string }

func (e *methodError) Error() string {
	msg := fmt.Sprintf("unknown signature method %q (want %s or %s)", e.method,
		strings.Join(signatureMethods[:len(signatureMethods)-1], ", "), signatureMethods[len(signatureMethods)-1])
	if e.httpMethod() {
		msg += "; --method is the signature method: for the HTTP method use -X " + strings.ToUpper(e.method) + " (or --request)"
	}
	return msg
}

func (e *methodError) httpMethod() bool {
	switch strings.ToUpper(e.method) {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return true
	}
	return false
}

// noKey stands in for a private key: SignerFor only keeps the key it gets.
type noKey struct{ crypto.Signer }

// request builds the unsigned HTTP request.
func (j *job) request() (*http.Request, error) {
	if j.URL == "" {
		return nil, errors.New("no URL")
	}
	u, err := url.Parse(j.URL)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("URL %q is not absolute (want https://host/path)", u.Redacted())
	}
	body := j.Body
	for _, p := range j.Params {
		if body != "" {
			body += "&"
		}
		body += percent.Encode(p[0]) + "=" + percent.Encode(p[1])
	}
	// Methods are case-sensitive on the wire, but "-X post" means POST; the
	// base string would uppercase it anyway (RFC 5849 §3.4.1.1).
	method := strings.ToUpper(j.Method)
	if method == "" {
		method = http.MethodGet
		if body != "" {
			method = http.MethodPost // as curl does for -d
		}
	}
	var rd io.Reader // a nil interface, not a nil *strings.Reader, when there is no body
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, j.URL, rd)
	if err != nil {
		return nil, err
	}
	for _, h := range j.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("header %q is not \"Name: value\"", h)
		}
		r.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if j.ContentType != "" {
		r.Header.Set("Content-Type", j.ContentType)
	}
	if body != "" && r.Header.Get("Content-Type") == "" {
		// curl's default for -d and --data-raw.
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return r, nil
}

func (j *job) config() (*oauth1.Config, error) {
	if j.ConsumerKey == "" {
		return nil, errors.New("no consumer key (--consumer-key or OAUTH1_CONSUMER_KEY)")
	}
	s, err := j.signer()
	if err != nil {
		return nil, err
	}
	cfg := &oauth1.Config{
		Consumer:               oauth1.Credentials{Token: j.ConsumerKey, Secret: j.ConsumerSecret},
		Signer:                 s,
		Realm:                  j.Realm,
		OmitVersion:            j.Version != nil && !*j.Version,
		AllowInsecurePlaintext: j.allowInsecure,
	}
	switch strings.ToLower(j.Delivery) {
	case "", "header":
	case "query":
		cfg.Delivery = oauth1.QueryString
	case "body":
		cfg.Delivery = oauth1.FormBody
	default:
		return nil, fmt.Errorf("unknown delivery %q (want header, query or body)", j.Delivery)
	}
	if j.BodyHash != "" {
		if cfg.BodyHash, err = hashByName(j.BodyHash); err != nil {
			return nil, fmt.Errorf("--body-hash: %w", err)
		}
	}
	return cfg, nil
}

// sign signs the job with oauth1.Config.BaseString and SignAt, so that the
// command signs exactly as the library does.
func (j *job) sign(now time.Time) (*signed, error) {
	cfg, err := j.config()
	if err != nil {
		return nil, err
	}
	r, err := j.request()
	if err != nil {
		return nil, err
	}
	// Config.SignAt refuses this too, but names the Go field, not the flag.
	if cfg.Signer.Method() == "PLAINTEXT" && !cfg.AllowInsecurePlaintext && !strings.EqualFold(r.URL.Scheme, "https") {
		return nil, fmt.Errorf("PLAINTEXT sends the secrets as the signature, so it needs an https URL, not %s (RFC 5849 §3.4.4); --allow-insecure-plaintext signs anyway", r.URL.Scheme)
	}
	t := now
	if ts := j.Timestamp.String(); ts != "" {
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("timestamp %q is not a positive number of seconds since 1970", ts)
		}
		t = time.Unix(n, 0)
	}
	nonce := j.Nonce
	if nonce == "" {
		nonce = rand.Text()
	}
	var extra []oauth1.Param
	if j.Callback != "" {
		extra = append(extra, oauth1.Param{Name: "oauth_callback", Value: j.Callback})
	}
	if j.Verifier != "" {
		extra = append(extra, oauth1.Param{Name: "oauth_verifier", Value: j.Verifier})
	}
	var tok *oauth1.Credentials
	if j.Token != "" || j.TokenSecret != "" {
		tok = &oauth1.Credentials{Token: j.Token, Secret: j.TokenSecret}
	}
	s := &signed{req: r, cfg: cfg, tok: tok, query: r.URL.RawQuery}
	if r.GetBody != nil {
		if form, _ := isFormType(r.Header.Get("Content-Type")); form {
			s.formBody = readBody(r)
		}
	}
	if s.base, err = cfg.BaseString(r, tok, t, nonce, extra...); err != nil {
		return nil, err
	}
	if err := cfg.SignAt(r, tok, t, nonce, extra...); err != nil {
		return nil, err
	}
	s.auth = r.Header.Get("Authorization")
	s.body = readBody(r)
	if s.signature, err = signatureOf(r, s.auth, s.body); err != nil {
		return nil, err
	}
	return s, nil
}

func isFormType(ct string) (bool, error) {
	if ct == "" {
		return false, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	return mt == "application/x-www-form-urlencoded", err
}

func readBody(r *http.Request) string {
	if r.GetBody == nil {
		return ""
	}
	rc, err := r.GetBody()
	if err != nil {
		return ""
	}
	defer rc.Close()
	var b bytes.Buffer
	b.ReadFrom(rc)
	return b.String()
}

// signatureOf finds oauth_signature where SignAt delivered it.
func signatureOf(r *http.Request, auth, body string) (string, error) {
	if auth != "" {
		ps, err := oauth1.ParseAuthHeader(auth)
		if err != nil {
			return "", err
		}
		for _, p := range ps {
			if p.Name == "oauth_signature" {
				return p.Value, nil
			}
		}
	}
	for _, raw := range []string{r.URL.RawQuery, body} {
		for _, pair := range strings.Split(raw, "&") {
			if v, ok := strings.CutPrefix(pair, "oauth_signature="); ok {
				return percent.DecodeForm(v)
			}
		}
	}
	return "", errors.New("no oauth_signature in the signed request")
}

// signFlags are the flags of "oauth1 sign", apart from those that fill
// the job directly.
type signFlags struct {
	explain, curl, jsonMode, showSecrets bool
	query, body                          bool
	keyFile                              string
	noVersion                            bool
	data                                 repeated
}

func (c *cmd) sign(args []string) int {
	var j job
	var f signFlags
	fs := c.newFlags("sign", "[flags] URL")
	fs.StringVar(&j.Method, "X", "", "HTTP `method` (default GET, or POST with -d or --data-raw)")
	fs.Var(&f.data, "d", "form body parameter `name=value`, unencoded (repeatable; like curl --data-urlencode)")
	fs.StringVar(&j.Body, "data-raw", "", "request `body`, sent and signed as given; a form unless -H sets another Content-Type")
	fs.StringVar(&j.Method, "request", "", "HTTP `method`, as -X (curl's long form)")
	fs.Var((*repeated)(&j.headers), "H", "request `header` \"Name: value\" (repeatable)")
	fs.Var((*repeated)(&j.headers), "header", "request `header` \"Name: value\", as -H (curl's long form)")
	fs.BoolVar(&f.query, "query", false, "send the protocol parameters in the query string (§3.5.3)")
	fs.BoolVar(&f.body, "body", false, "send the protocol parameters in the form body (§3.5.2)")
	fs.StringVar(&j.Realm, "realm", "", "`realm` of the Authorization header (never signed)")
	fs.StringVar(&j.SignatureMethod, "method", "HMAC-SHA1", "signature `method`: HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT")
	fs.StringVar(&f.keyFile, "key-file", "", "RSA private key `file` (PEM, OpenSSH or PKCS #12) for the RSA methods")
	fs.StringVar(&j.keyPassword, "key-password", "", "`password` of an encrypted key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&j.BodyHash, "body-hash", "", "add oauth_body_hash computed with `hash` SHA-1, SHA-256 or SHA-512 over a body that is not a form")
	fs.StringVar(&j.Nonce, "nonce", "", "oauth_nonce `value` (default random)")
	fs.Var((*numberFlag)(&j.Timestamp), "timestamp", "oauth_timestamp in `seconds` since 1970 (default now)")
	fs.BoolVar(&f.noVersion, "no-version", false, "leave out oauth_version=1.0 (optional, §3.1)")
	fs.StringVar(&j.Callback, "callback", "", "sign and send oauth_callback `URL` (temporary credential request, §2.1)")
	fs.StringVar(&j.Verifier, "verifier", "", "sign and send oauth_verifier `code` (token request, §2.3)")
	fs.StringVar(&j.ConsumerKey, "consumer-key", "", "consumer `key` (default $OAUTH1_CONSUMER_KEY)")
	fs.StringVar(&j.ConsumerSecret, "consumer-secret", "", "consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&j.Token, "token", "", "`token` (default $OAUTH1_TOKEN)")
	fs.StringVar(&j.TokenSecret, "token-secret", "", "token `secret` (default $OAUTH1_TOKEN_SECRET)")
	fs.BoolVar(&j.allowInsecure, "allow-insecure-plaintext", false, "let PLAINTEXT sign a URL that is not https")
	fs.BoolVar(&f.explain, "explain", false, "print the base string broken down, the masked signing key and the signature")
	fs.BoolVar(&f.curl, "curl", false, "print a curl command that sends the signed request")
	fs.BoolVar(&f.jsonMode, "json", false, "batch mode: read one JSON request per line of stdin, write one JSON result per line")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "show secrets (and PLAINTEXT signatures, which contain them) in the output")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	c.fillFromEnv(&j)
	if f.keyFile != "" {
		b, err := os.ReadFile(f.keyFile)
		if err != nil {
			return c.errorf(exitUsage, "%v", err)
		}
		j.PrivateKeyPEM = string(b)
	}
	for _, d := range f.data {
		name, value, _ := strings.Cut(d, "=")
		if strings.Contains(value, "&") {
			fmt.Fprintf(c.stderr, "oauth1: warning: -d takes one unencoded name=value pair; the value of %q contains \"&\" and is sent as %%26 (use --data-raw for a raw body)\n", name)
		}
		j.Params = append(j.Params, [2]string{name, value})
	}
	switch {
	case f.query && f.body:
		return fs.usageError("--query and --body are exclusive")
	case f.query:
		j.Delivery = "query"
	case f.body:
		j.Delivery = "body"
	}
	if f.noVersion {
		v := false
		j.Version = &v
	}
	if f.jsonMode {
		if len(pos) > 0 {
			return fs.usageError("--json reads requests from stdin and takes no URL; %.40q is extra", pos[0])
		}
		return c.batch(j, f.showSecrets)
	}
	switch len(pos) {
	case 0:
		return fs.usageError("missing URL")
	case 1:
	default:
		return fs.usageError("extra argument %.40q after the URL", pos[1])
	}
	j.URL = pos[0]
	s, err := j.sign(time.Now())
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	c.keyWarnings(&j, s)
	m := c.masker(&j, f.showSecrets)
	if m.hideSignature(s) {
		fmt.Fprintln(c.stderr, "oauth1: the PLAINTEXT signature is made of the secrets; it is masked (use --show-secrets)")
	}
	switch {
	case f.explain:
		c.printSigned(s, m)
	case !f.curl:
		c.printDelivered(s, m)
	}
	if f.curl {
		if f.explain {
			fmt.Fprintln(c.stdout)
		}
		fmt.Fprintln(c.stdout, m.mask(curlCommand(s)))
	}
	return exitOK
}

// keyWarnings warns of the signing keys that providers refuse: an empty
// consumer secret, and a token without its secret. Each is a real key
// (OAuth allows empty secrets) but is usually a missing variable.
func (c *cmd) keyWarnings(j *job, s *signed) {
	if strings.HasPrefix(s.cfg.Signer.Method(), "RSA-") {
		return // the key is the private key; the secrets are not used
	}
	if j.ConsumerSecret == "" {
		fmt.Fprintln(c.stderr, "oauth1: warning: the consumer secret is empty (no --consumer-secret or $OAUTH1_CONSUMER_SECRET); signed with an empty consumer secret in the key, which a provider that issued a secret refuses")
	}
	if j.Token != "" && j.TokenSecret == "" {
		fmt.Fprintln(c.stderr, "oauth1: warning: a token but no token secret (--token-secret or $OAUTH1_TOKEN_SECRET); signed with an empty token secret, which a provider that issued the token with a secret refuses (oauth1 verify calls this empty-token-secret)")
	}
}

// fillFromEnv fills credentials that no flag gave from the environment.
func (c *cmd) fillFromEnv(j *job) {
	fill := func(dst *string, name string) {
		if *dst == "" {
			*dst = c.getenv(name)
		}
	}
	fill(&j.ConsumerKey, "OAUTH1_CONSUMER_KEY")
	fill(&j.ConsumerSecret, "OAUTH1_CONSUMER_SECRET")
	fill(&j.Token, "OAUTH1_TOKEN")
	fill(&j.TokenSecret, "OAUTH1_TOKEN_SECRET")
	fill(&j.keyPassword, "OAUTH1_KEY_PASSWORD")
}

// printDelivered prints what carries the signature: the Authorization
// header, the URL with the query, or the body.
func (c *cmd) printDelivered(s *signed, m masker) {
	switch s.cfg.Delivery {
	case oauth1.QueryString:
		fmt.Fprintln(c.stdout, m.mask(s.req.URL.String()))
	case oauth1.FormBody:
		fmt.Fprintln(c.stdout, m.mask(s.body))
	default:
		fmt.Fprintln(c.stdout, m.mask("Authorization: "+s.auth))
	}
}

// curlCommand returns a curl command line that sends the signed request.
func curlCommand(s *signed) string {
	r := s.req
	var b strings.Builder
	b.WriteString("curl")
	implied := http.MethodGet
	if s.body != "" {
		implied = http.MethodPost
	}
	if r.Method != implied {
		b.WriteString(" -X " + shellQuote(r.Method))
	}
	for _, name := range []string{"Authorization", "Content-Type"} {
		for _, v := range r.Header.Values(name) {
			b.WriteString(" -H " + shellQuote(name+": "+v))
		}
	}
	for name, vs := range r.Header {
		if name == "Authorization" || name == "Content-Type" {
			continue
		}
		for _, v := range vs {
			b.WriteString(" -H " + shellQuote(name+": "+v))
		}
	}
	if s.body != "" {
		b.WriteString(" --data-raw " + shellQuote(s.body))
	}
	b.WriteString(" " + shellQuote(r.URL.String()))
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./:=@%,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// numberFlag is a flag holding a json.Number, so that --timestamp and the
// batch field share a type.
type numberFlag json.Number

func (n *numberFlag) String() string { return string(*n) }
func (n *numberFlag) Set(s string) error {
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		return errors.New("not a number of seconds")
	}
	*n = numberFlag(s)
	return nil
}
