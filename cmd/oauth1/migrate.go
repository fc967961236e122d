//go:build !js

package main

import (
	"fmt"

	"github.com/countersign/countersign/cmd/oauth1/internal/migrate"
	"github.com/countersign/countersign/oauth1/exchange"
)

// migrateOpts are the flags of oauth1 migrate.
type migrateOpts struct {
	migrate.Settings
	out, failures, only string
	retries             int
	dryRun              bool
	fields, keep        repeated
}

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
	fs.StringVar(&o.Provider, "provider", "", "exchange `shape`: x (X's token exchange) or signed (an OAuth-1-signed exchange: Intuit, Xero, ...)")
	fs.StringVar(&o.ClientID, "client-id", "", "OAuth 2.0 client `id` (default $OAUTH2_CLIENT_ID)")
	fs.StringVar(&o.ClientSecret, "client-secret", "", "OAuth 2.0 client `secret` (default $OAUTH2_CLIENT_SECRET; none for an X public client)")
	fs.StringVar(&o.TokenURL, "token-url", "", "exchange endpoint `URL` (x: default "+exchange.XTokenURL()+"; a sandbox or a test server)")
	fs.StringVar(&o.Scope, "scope", "", "`scopes` to ask for, space-separated")
	fs.StringVar(&o.out, "out", "", "append results to `FILE`, and skip the tokens it already holds (resume)")
	fs.StringVar(&o.failures, "failures", "", "write one JSON line per failed token to `FILE` (created anew, mode 0600; no secret)")
	fs.StringVar(&o.only, "only", "", "exchange only the tokens that `FILE` names (an earlier run's --failures), taking their credentials from the input")
	fs.StringVar(&o.Rate, "rate", "", "at most `N/DURATION` exchanges (x: default 10000/15m, X's limit per app; signed: 600/1m)")
	fs.IntVar(&o.Concurrency, "concurrency", 4, "exchanges in flight at once")
	fs.IntVar(&o.retries, "retries", 5, "times a token is tried again after a 429")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the first request, secrets redacted, and exchange nothing")
	fs.StringVar(&o.ConsumerKey, "consumer-key", "", "signed: consumer `key` (default $OAUTH1_CONSUMER_KEY)")
	fs.StringVar(&o.ConsumerSecret, "consumer-secret", "", "signed: consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&o.Method, "signature-method", "HMAC-SHA1", "signed: signature `method`")
	fs.StringVar(&o.KeyFile, "key-file", "", "signed: RSA private key `file` for the RSA methods (Xero)")
	fs.StringVar(&o.KeyPassword, "key-password", "", "signed: `password` of an encrypted key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&o.Body, "body", "json", "signed: body `format`, json or form")
	fs.StringVar(&o.HTTPMethod, "request", "POST", "signed: HTTP `method`")
	fs.StringVar(&o.IDField, "client-id-field", "client_id", "signed: body field `name` of the client id (- leaves it out)")
	fs.StringVar(&o.SecretField, "client-secret-field", "client_secret", "signed: body field `name` of the client secret (- leaves it out)")
	fs.StringVar(&o.ScopeField, "scope-field", "scope", "signed: body field `name` of the scope (- leaves it out)")
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
	fill := func(dst *string, env string) {
		if *dst == "" {
			*dst = c.getenv(env)
		}
	}
	fill(&o.ClientID, "OAUTH2_CLIENT_ID")
	fill(&o.ClientSecret, "OAUTH2_CLIENT_SECRET")
	fill(&o.ConsumerKey, "OAUTH1_CONSUMER_KEY")
	fill(&o.ConsumerSecret, "OAUTH1_CONSUMER_SECRET")
	fill(&o.KeyPassword, "OAUTH1_KEY_PASSWORD")
	o.Fields = o.fields
	ex, rate, secrets, err := o.Exchanger()
	if err != nil {
		return fs.usageError("%s", err)
	}
	in, err := c.openInput(pos)
	if err != nil {
		return c.errorf(exitUsage, "migrate: %v", err)
	}
	defer in.Close()
	lines, bad := migrate.ReadLines(in, c.stderr)
	if o.only != "" {
		// Read before --failures is created: both may name one file.
		if lines, err = migrate.Only(o.only, lines, c.stderr); err != nil {
			return c.errorf(exitUsage, "migrate: --only: %v", err)
		}
	}
	if o.dryRun {
		if len(lines) == 0 {
			return c.errorf(exitUsage, "migrate: --dry-run: no credentials in the input")
		}
		if err := migrate.DryRun(c.stdout, ex, lines[0], secrets, o.SecretField); err != nil {
			return c.errorf(exitFailure, "migrate: %v", err)
		}
		fmt.Fprintf(c.stderr, "oauth1 migrate: dry run: %d credentials read, nothing exchanged\n", len(lines))
		return exitOK
	}
	m := &migrate.Run{Exchanger: ex, Limiter: rate, Retries: o.retries, Keep: append(migrate.Extras, o.keep...), Stdout: c.stdout, Stderr: c.stderr}
	if o.Provider == "signed" {
		m.ConsumerKey = o.ConsumerKey
	}
	// Nothing is exchanged when the output cannot be opened: an input
	// error, not a failed token.
	if err := m.Open(o.out, o.failures); err != nil {
		return c.errorf(exitUsage, "migrate: %v", err)
	}
	defer m.Close()
	for _, f := range bad {
		m.Record(f)
	}
	ctx, stop := m.Interrupts()
	defer stop()
	m.Exchange(ctx, lines, max(o.Concurrency, 1))
	switch m.Summary() {
	case migrate.Interrupted:
		return exitInterrupted
	case migrate.Failed:
		return exitFailure
	}
	return exitOK
}
