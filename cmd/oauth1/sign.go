//go:build !js

package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
)

// signFlags are the flags of "oauth1 sign", apart from those that fill
// the job directly.
type signFlags struct {
	explain, curl, jsonMode, showSecrets bool
	query, body                          bool
	keyFile                              string
	noVersion                            bool
	data, headerParams                   repeated
}

// renamedSignFlags are the former flags of sign, each with what replaced it.
var renamedSignFlags = map[string]string{
	"method": "--method was renamed --signature-method (the signature method: HMAC-SHA1, PLAINTEXT, ...); -X or --request sets the HTTP method",
}

func (c *cmd) sign(args []string) int {
	var j sign.Job
	var f signFlags
	fs := c.newFlags("sign", "[flags] URL")
	fs.renamed = renamedSignFlags
	fs.StringVar(&j.HTTPMethod, "X", "", "HTTP `method`, an RFC 9110 token (default GET, or POST with -d or --data-raw); --signature-method is the signature method")
	fs.Var(&f.data, "d", "form body parameter `name=value`, unencoded (repeatable; like curl --data-urlencode)")
	fs.StringVar(&j.Body, "data-raw", "", "request `body`, sent and signed as given; a form unless -H sets another Content-Type")
	fs.StringVar(&j.HTTPMethod, "request", "", "HTTP `method`, as -X (curl's long form)")
	fs.Var((*repeated)(&j.Headers), "H", "request `header` \"Name: value\" (repeatable)")
	fs.Var((*repeated)(&j.Headers), "header", "request `header` \"Name: value\", as -H (curl's long form)")
	fs.BoolVar(&f.query, "query", false, "send the protocol parameters in the query string (§3.5.3)")
	fs.BoolVar(&f.body, "body", false, "send the protocol parameters in the form body (§3.5.2)")
	fs.StringVar(&j.Realm, "realm", "", "`realm` of the Authorization header (never signed)")
	fs.StringVar(&j.SignatureMethod, "signature-method", "HMAC-SHA1", "signature `method`: HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT")
	fs.StringVar(&f.keyFile, "key-file", "", "RSA private key `file` (PEM, OpenSSH or PKCS #12) for the RSA methods")
	fs.StringVar(&j.KeyPassword, "key-password", "", "`password` of an encrypted key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&j.BodyHash, "body-hash", "", "add oauth_body_hash computed with `hash` SHA-1, SHA-256 or SHA-512 over a body that is not a form (none leaves out a provider's)")
	fs.StringVar(&j.Nonce, "nonce", "", "oauth_nonce `value` (default random)")
	fs.Var((*numberFlag)(&j.Timestamp), "timestamp", "oauth_timestamp in `seconds` since 1970 (default now)")
	fs.BoolVar(&j.NoNonce, "no-nonce", false, "leave out oauth_nonce; PLAINTEXT only, and with --no-timestamp (§3.1)")
	fs.BoolVar(&j.NoTimestamp, "no-timestamp", false, "leave out oauth_timestamp; PLAINTEXT only, and with --no-nonce (§3.1)")
	fs.BoolVar(&f.noVersion, "no-version", false, "leave out oauth_version=1.0 (optional, §3.1)")
	fs.StringVar(&j.Callback, "callback", "", "sign and send oauth_callback `URL` (temporary credential request, §2.1)")
	fs.StringVar(&j.Verifier, "verifier", "", "sign and send oauth_verifier `code` (token request, §2.3)")
	fs.Var(&f.headerParams, "header-param", "send and sign `name=value` in the Authorization header with the protocol parameters, unencoded, such as NetSuite's role (repeatable)")
	fs.StringVar(&j.Provider, "provider", "", "start from the settings of provider `NAME` (netsuite, woocommerce, etrade, schoology, ...), which the other flags override; \"list\" lists them")
	fs.StringVar(&j.AccountID, "account-id", "", "NetSuite account `id` for --provider netsuite, such as 1234567_SB1 (the realm is made of it)")
	fs.StringVar(&j.BaseURL, "base-url", "", "base `URL` for --provider jira or magento (default the URL's scheme and host)")
	fs.Var(optBool{&j.ConsumerSecretOnly}, "consumer-secret-only", "key the HMAC with the consumer secret alone, without \"&\", as WooCommerce's legacy REST API v1 and v2 check it; no token secret")
	fs.Var(optBool{&j.SendEmptyToken}, "send-empty-token", "send and sign oauth_token=\"\" when there is no token, as Schoology's two-legged requests need")
	fs.Var(optBool{&j.SendEmptyRealm}, "send-empty-realm", "send realm=\"\" in the Authorization header when there is no --realm, as E*TRADE's documentation shows")
	fs.StringVar(&j.ConsumerKey, "consumer-key", "", "consumer `key` (default $OAUTH1_CONSUMER_KEY)")
	fs.StringVar(&j.ConsumerSecret, "consumer-secret", "", "consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&j.Token, "token", "", "`token` (default $OAUTH1_TOKEN)")
	fs.StringVar(&j.TokenSecret, "token-secret", "", "token `secret` (default $OAUTH1_TOKEN_SECRET)")
	fs.BoolVar(&j.AllowInsecure, "allow-insecure-plaintext", false, "let PLAINTEXT sign a URL that is not https")
	fs.BoolVar(&f.explain, "explain", false, "print the base string broken down, the masked signing key and the signature")
	fs.BoolVar(&f.curl, "curl", false, "print a curl command that sends the signed request")
	fs.BoolVar(&f.jsonMode, "json", false, "batch mode: read one JSON request per line of stdin, write one JSON result per line")
	fs.BoolVar(&f.showSecrets, "show-secrets", false, "show secrets (and PLAINTEXT signatures, which contain them) in the output")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if strings.EqualFold(j.Provider, "list") {
		sign.PrintProviders(c.stdout)
		return exitOK
	}
	// The flag's default is shown by -h, but a provider's method wins over it.
	explicit := false
	fs.Visit(func(fl *flag.Flag) { explicit = explicit || fl.Name == "signature-method" })
	if !explicit {
		j.SignatureMethod = ""
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
	for _, p := range f.headerParams {
		name, value, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return fs.usageError("--header-param %.40q is not name=value", p)
		}
		j.HeaderParams = append(j.HeaderParams, [2]string{name, value})
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
	s, err := j.Sign(time.Now())
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	for _, w := range append(sign.KeyWarnings(&j, s, false), s.Warnings...) {
		fmt.Fprintln(c.stderr, "oauth1: warning: "+w)
	}
	m := sign.NewMasker(&j, f.showSecrets)
	if m.HideSignature(s) {
		fmt.Fprintln(c.stderr, "oauth1: the PLAINTEXT signature is made of the secrets; it is masked (use --show-secrets)")
	}
	switch {
	case f.explain:
		if err := sign.Explain(c.stdout, s, m); err != nil {
			// The library wrote this base string; failing to parse it is a bug.
			fmt.Fprintf(c.stderr, "oauth1: internal error: %v\n", err)
		}
	case !f.curl:
		fmt.Fprintln(c.stdout, m.Mask(s.Delivered()))
	}
	if f.curl {
		if f.explain {
			fmt.Fprintln(c.stdout)
		}
		fmt.Fprintln(c.stdout, m.Mask(sign.CurlCommand(s)))
	}
	return exitOK
}

// fillFromEnv fills credentials that no flag gave from the environment.
func (c *cmd) fillFromEnv(j *sign.Job) {
	fill := func(dst *string, name string) {
		if *dst == "" {
			*dst = c.getenv(name)
		}
	}
	fill(&j.ConsumerKey, "OAUTH1_CONSUMER_KEY")
	fill(&j.ConsumerSecret, "OAUTH1_CONSUMER_SECRET")
	fill(&j.Token, "OAUTH1_TOKEN")
	fill(&j.TokenSecret, "OAUTH1_TOKEN_SECRET")
	fill(&j.KeyPassword, "OAUTH1_KEY_PASSWORD")
}

// optBool is a boolean flag that records whether it was given: a provider's
// setting holds unless the flag says otherwise (--send-empty-token=false).
type optBool struct{ p **bool }

func (o optBool) IsBoolFlag() bool { return true }
func (o optBool) String() string {
	if o.p == nil || *o.p == nil {
		return ""
	}
	return strconv.FormatBool(**o.p)
}
func (o optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not true or false")
	}
	*o.p = &v
	return nil
}
