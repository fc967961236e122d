// Package sign signs one request as oauth1 sign describes it (a Job: the
// fields of a batch line, which the flags fill in too) with package oauth1,
// exactly as the library does, starting from a provider preset; and it
// shows the result without its secrets (a Masker), as a header, a curl
// command or the --explain breakdown.
package sign

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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

// A Job is one request to sign: the fields of a batch line, which the
// flags of "oauth1 sign" fill in too.
type Job struct {
	HTTPMethod      string      `json:"http_method"`
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
	Delivery        string      `json:"delivery"`      // header (default), query or body
	BodyHash        string      `json:"body_hash"`     // "", SHA-1, SHA-256 or SHA-512
	HeaderParams    [][2]string `json:"header_params"` // sent and signed in the Authorization header
	NoNonce         bool        `json:"no_nonce"`
	NoTimestamp     bool        `json:"no_timestamp"`

	// Provider names a preset of package oauth1/providers, whose settings
	// the other fields override; AccountID and BaseURL are its argument.
	Provider  string `json:"provider"`
	AccountID string `json:"account_id"`
	BaseURL   string `json:"base_url"`

	// The provider quirks; nil leaves the provider's setting (off without one).
	ConsumerSecretOnly *bool `json:"consumer_secret_only"`
	SendEmptyToken     *bool `json:"send_empty_token"`
	SendEmptyRealm     *bool `json:"send_empty_realm"`

	// Method was the HTTP method, which is now HTTPMethod; a batch line
	// that still sets it is refused, since its meaning was ambiguous.
	Method json.RawMessage `json:"method"`

	// Only from flags.
	Headers       []string `json:"-"` // "Name: value"
	KeyPassword   string   `json:"-"`
	AllowInsecure bool     `json:"-"`
}

// A Signed request and what went into it.
type Signed struct {
	req       *http.Request
	cfg       *oauth1.Config
	tok       *oauth1.Credentials
	base      string
	signature string
	auth      string      // the Authorization header, if delivered there
	body      string      // the body sent, after delivery
	query     string      // the query of the original URL, for the explain table
	formBody  string      // the form body before delivery, for the explain table
	header    [][2]string // the header parameters, for the explain table
	Warnings  []string    // what the provider's settings say of this request
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

// Signer returns the Signer for the job's signature method, in any case,
// else the preset's (def), else HMAC-SHA1; an RSA method takes the job's
// private key.
func (j *Job) Signer(def string) (oauth1.Signer, error) {
	m := strings.ToUpper(cmp.Or(j.SignatureMethod, def, "HMAC-SHA1"))
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
	key, err := rsakey.Parse([]byte(j.PrivateKeyPEM), j.KeyPassword)
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
		msg += "; that is an HTTP method: give it with -X " + strings.ToUpper(e.method) + " (http_method in batch mode)"
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

// checkHTTPMethod refuses an HTTP method that is not an RFC 9110 token,
// and one that is a signature method's name: the signature method went
// where the HTTP method goes. "" is the default.
func checkHTTPMethod(m string) error {
	if m == "" {
		return nil
	}
	for i := 0; i < len(m); i++ {
		if !isTchar(m[i]) {
			return fmt.Errorf("HTTP method %.40q is not a token (RFC 9110 §9.1: letters, digits and !#$%%&'*+-.^_`|~ only)", m)
		}
	}
	u := strings.ToUpper(m)
	if u == "PLAINTEXT" || strings.HasPrefix(u, "HMAC-") || strings.HasPrefix(u, "RSA-") {
		return fmt.Errorf("HTTP method %q is a signature method's name: give the signature method with --signature-method (signature_method in batch mode), the HTTP method with -X (http_method)", m)
	}
	return nil
}

// isTchar reports whether b is a tchar of RFC 9110 §5.6.2.
func isTchar(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// noKey stands in for a private key: SignerFor only keeps the key it gets.
type noKey struct{ crypto.Signer }

// request builds the unsigned HTTP request.
func (j *Job) request() (*http.Request, error) {
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
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return nil, fmt.Errorf("URL scheme %q is not http or https: OAuth 1.0 signs HTTP requests", u.Scheme)
	}
	if err := checkHTTPMethod(j.HTTPMethod); err != nil {
		return nil, err
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
	method := strings.ToUpper(j.HTTPMethod)
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
	for _, h := range j.Headers {
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

// config returns the Config that signs the job: the provider's settings,
// if it names one, overridden by the job's own.
func (j *Job) config() (*oauth1.Config, error) {
	if j.ConsumerKey == "" {
		return nil, errors.New("no consumer key (--consumer-key or OAUTH1_CONSUMER_KEY)")
	}
	cfg, err := j.presetConfig()
	if err != nil {
		return nil, err
	}
	def := ""
	if cfg.Signer != nil {
		def = cfg.Signer.SignatureMethod()
	}
	preHMAC, _ := cfg.Signer.(oauth1.HMAC)
	s, err := j.Signer(def)
	if err != nil {
		return nil, err
	}
	secretOnly := preHMAC.ConsumerSecretOnly && j.SignatureMethod == ""
	if j.ConsumerSecretOnly != nil {
		secretOnly = *j.ConsumerSecretOnly
	}
	if secretOnly {
		h, ok := s.(oauth1.HMAC)
		if !ok {
			return nil, fmt.Errorf("--consumer-secret-only (consumer_secret_only) keys an HMAC method; %s does not use the consumer secret that way", s.SignatureMethod())
		}
		// The library refuses it at signing time, naming its own field.
		if j.TokenSecret != "" {
			return nil, errors.New("--consumer-secret-only (consumer_secret_only) signs with the consumer secret alone, for requests without a token (WooCommerce's legacy v1 and v2 API); a token secret is given too (--token-secret, token_secret or $OAUTH1_TOKEN_SECRET)")
		}
		h.ConsumerSecretOnly = true
		s = h
	}
	cfg.ConsumerKey, cfg.ConsumerSecret = j.ConsumerKey, j.ConsumerSecret
	cfg.Signer = s
	cfg.Realm = cmp.Or(j.Realm, cfg.Realm)
	if j.Version != nil {
		cfg.OmitVersion = !*j.Version
	}
	cfg.AllowInsecurePlaintext = j.AllowInsecure
	if j.SendEmptyToken != nil {
		cfg.SendEmptyToken = *j.SendEmptyToken
	}
	if j.SendEmptyRealm != nil {
		cfg.SendEmptyRealm = *j.SendEmptyRealm
	}
	switch strings.ToLower(j.Delivery) {
	case "":
	case "header":
		cfg.Delivery = oauth1.AuthHeader
	case "query":
		cfg.Delivery = oauth1.QueryString
	case "body":
		cfg.Delivery = oauth1.FormBody
	default:
		return nil, fmt.Errorf("unknown delivery %q (want header, query or body)", j.Delivery)
	}
	if cfg.SendEmptyRealm && cfg.Delivery != oauth1.AuthHeader {
		return nil, errors.New("--send-empty-realm (send_empty_realm) sends realm=\"\" in the Authorization header; with query or body delivery there is no realm")
	}
	switch {
	case strings.EqualFold(j.BodyHash, "none"):
		cfg.BodyHash = 0
	case j.BodyHash != "":
		if cfg.BodyHash, err = hashByName(j.BodyHash); err != nil {
			return nil, fmt.Errorf("--body-hash: %w", err)
		}
	}
	// The flow's settings (Endpoint, Callback) are not used to sign one request.
	cfg.Endpoint, cfg.Callback = oauth1.Endpoint{}, ""
	return &cfg, nil
}

// Sign signs the job with oauth1.Config.BaseString and SignAt, so that the
// command signs exactly as the library does.
func (j *Job) Sign(now time.Time) (*Signed, error) {
	if len(j.Method) > 0 {
		return nil, errors.New(`field "method" was renamed "http_method" (the HTTP method); "signature_method" is the signature method`)
	}
	cfg, err := j.config()
	if err != nil {
		return nil, err
	}
	r, err := j.request()
	if err != nil {
		return nil, err
	}
	// Config.SignAt refuses this too, but names the Go field, not the flag.
	if cfg.Signer.SignatureMethod() == "PLAINTEXT" && !cfg.AllowInsecurePlaintext && !strings.EqualFold(r.URL.Scheme, "https") {
		return nil, fmt.Errorf("PLAINTEXT sends the secrets as the signature, so it needs an https URL, not %s (RFC 5849 §3.4.4); --allow-insecure-plaintext signs anyway", r.URL.Scheme)
	}
	if len(j.HeaderParams) > 0 && cfg.Delivery != oauth1.AuthHeader {
		return nil, errors.New("header parameters (--header-param, header_params) travel in the Authorization header; with query or body delivery, put them in the URL or the body")
	}
	t, nonce, err := j.timeNonce(now, cfg)
	if err != nil {
		return nil, err
	}
	var extra []oauth1.Param
	for _, p := range j.HeaderParams {
		if flag, ok := ownFlags[p[0]]; ok {
			return nil, fmt.Errorf("header parameter %s has a flag of its own: %s", p[0], flag)
		}
		extra = append(extra, oauth1.Param{Name: p[0], Value: p[1]})
	}
	if j.Callback != "" {
		extra = append(extra, oauth1.Param{Name: "oauth_callback", Value: j.Callback})
	}
	flow, _ := j.presetConfig() // config has checked it
	flowExtra, warnings := j.flowParams(flow, r.URL)
	extra = append(extra, flowExtra...)
	if j.Verifier != "" {
		extra = append(extra, oauth1.Param{Name: "oauth_verifier", Value: j.Verifier})
	}
	var tok *oauth1.Credentials
	if j.Token != "" || j.TokenSecret != "" {
		tok = &oauth1.Credentials{Token: j.Token, Secret: j.TokenSecret}
	}
	s := &Signed{req: r, cfg: cfg, tok: tok, query: r.URL.RawQuery, header: j.HeaderParams, Warnings: warnings}
	if r.GetBody != nil {
		if form, _ := IsFormType(r.Header.Get("Content-Type")); form {
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

// ownFlags are the parameters that sign sends from flags and batch fields
// of their own, which --header-param may not give a second time.
var ownFlags = map[string]string{
	"realm":                  "--realm (realm)",
	"oauth_consumer_key":     "--consumer-key (consumer_key)",
	"oauth_token":            "--token (token)",
	"oauth_signature_method": "--signature-method (signature_method)",
	"oauth_signature":        "none: it is the signature",
	"oauth_nonce":            "--nonce, --no-nonce (nonce, no_nonce)",
	"oauth_timestamp":        "--timestamp, --no-timestamp (timestamp, no_timestamp)",
	"oauth_version":          "--no-version (version)",
	"oauth_callback":         "--callback (callback)",
	"oauth_verifier":         "--verifier (verifier)",
	"oauth_body_hash":        "--body-hash (body_hash)",
}

// timeNonce returns the oauth_timestamp and oauth_nonce to sign: the
// job's, or now and a random nonce; a zero time and "" when the job leaves
// them out, which RFC 5849 §3.1 permits with PLAINTEXT only, and which
// SignAt does for both or neither.
func (j *Job) timeNonce(now time.Time, cfg *oauth1.Config) (time.Time, string, error) {
	ts := j.Timestamp.String()
	switch {
	case j.NoNonce != j.NoTimestamp:
		return time.Time{}, "", errors.New("--no-nonce and --no-timestamp (no_nonce, no_timestamp) go together: RFC 5849 §3.1 lets PLAINTEXT leave out both")
	case !j.NoNonce:
	case cfg.Signer.SignatureMethod() != "PLAINTEXT":
		return time.Time{}, "", fmt.Errorf("--no-nonce and --no-timestamp need PLAINTEXT: %s signs oauth_nonce and oauth_timestamp, which RFC 5849 §3.1 requires of it", cfg.Signer.SignatureMethod())
	case j.Nonce != "" || ts != "":
		return time.Time{}, "", errors.New("--no-nonce and --no-timestamp leave out the nonce and timestamp that --nonce or --timestamp gives")
	default:
		return time.Time{}, "", nil
	}
	t := now
	if ts != "" {
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n <= 0 {
			return time.Time{}, "", fmt.Errorf("timestamp %q is not a positive number of seconds since 1970", ts)
		}
		t = time.Unix(n, 0)
	}
	nonce := j.Nonce
	if nonce == "" {
		nonce = rand.Text()
	}
	return t, nonce, nil
}

// IsFormType reports whether the media type of ct is a form.
func IsFormType(ct string) (bool, error) {
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
