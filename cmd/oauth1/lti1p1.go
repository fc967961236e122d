//go:build !js

package main

import (
	"fmt"
	"strconv"

	"github.com/countersign/countersign/cmd/oauth1/internal/lticlaim"
	"github.com/countersign/countersign/oauth1/lti1p1"
)

const lti1p1Usage = `usage: oauth1 lti1p1 <sign|verify> [flags]

The LTI 1.1 migration claim of an LTI 1.3 launch (1EdTech LTI Migration Guide):
oauth_consumer_key_sign is the base64 HMAC-SHA256, keyed with the LTI 1.1 shared
secret, of oauth_consumer_key&deployment_id&iss&client_id&exp&nonce.

  sign [flags]            print the sign a platform puts in the claim
  verify [flags] [FILE]   check the claim of a decoded id_token payload (JSON, default
                          stdin) and, when it does not verify, name the platform's mistake

The secret is --secret or $OAUTH1_CONSUMER_SECRET; it is never printed.
Run "oauth1 lti1p1 sign -h" or "oauth1 lti1p1 verify -h" for the flags.
`

// lti1p1 runs "oauth1 lti1p1 sign" and "oauth1 lti1p1 verify".
func (c *cmd) lti1p1(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, lti1p1Usage)
		return exitUsage
	}
	switch args[0] {
	case "sign":
		return c.lti1p1Sign(args[1:])
	case "verify":
		return c.lti1p1Verify(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprint(c.stdout, lti1p1Usage)
		return exitOK
	}
	return c.usageError("lti1p1", "unknown subcommand %.40q (want sign or verify)", args[0])
}

// lti1p1Secret returns the secret of --secret or the environment.
func (c *cmd) lti1p1Secret(fs *flagSet, secret string) (string, bool) {
	if secret == "" {
		secret = c.getenv("OAUTH1_CONSUMER_SECRET")
	}
	if secret == "" {
		fs.usageError("no secret: give the LTI 1.1 shared secret with --secret or $OAUTH1_CONSUMER_SECRET")
		return "", false
	}
	return secret, true
}

func (c *cmd) lti1p1Sign(args []string) int {
	fs := c.newFlags("lti1p1 sign", "--consumer-key K --deployment-id D --iss I --client-id C --exp E --nonce N\n\n"+
		"Prints oauth_consumer_key_sign for the claim https://purl.imsglobal.org/spec/lti/claim/lti1p1.")
	var s lti1p1.Signed
	var secret, exp string
	fs.StringVar(&secret, "secret", "", "the LTI 1.1 shared `secret` of the consumer key (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&s.ConsumerKey, "consumer-key", "", "the LTI 1.1 oauth_consumer_key (default $OAUTH1_CONSUMER_KEY)")
	fs.StringVar(&s.DeploymentID, "deployment-id", "", "the LTI 1.3 deployment_id claim")
	fs.StringVar(&s.Issuer, "iss", "", "the id_token's iss")
	fs.StringVar(&s.ClientID, "client-id", "", "the tool's client_id: the id_token's aud, or azp when aud has several")
	fs.StringVar(&exp, "exp", "", "the id_token's exp, in `seconds` since 1970")
	fs.StringVar(&s.Nonce, "nonce", "", "the id_token's nonce")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fs.usageError("extra argument %.40q", pos[0])
	}
	if s.ConsumerKey == "" {
		s.ConsumerKey = c.getenv("OAUTH1_CONSUMER_KEY")
	}
	for _, f := range []struct{ v, name string }{{s.ConsumerKey, "--consumer-key"}, {s.DeploymentID, "--deployment-id"}, {s.Issuer, "--iss"}, {s.ClientID, "--client-id"}, {exp, "--exp"}, {s.Nonce, "--nonce"}} {
		if f.v == "" {
			return fs.usageError("%s is missing", f.name)
		}
	}
	var err error
	if s.Exp, err = strconv.ParseInt(exp, 10, 64); err != nil || s.Exp <= 0 {
		return fs.usageError("--exp %.40q is not a whole number of seconds since 1970 (as the id_token's exp, 1551290856 say)", exp)
	}
	secret, ok = c.lti1p1Secret(fs, secret)
	if !ok {
		return exitUsage
	}
	sign, err := lti1p1.Sign(secret, s)
	if err != nil {
		return c.errorf(exitFailure, "%v", err)
	}
	fmt.Fprintln(c.stdout, sign)
	return exitOK
}

func (c *cmd) lti1p1Verify(args []string) int {
	fs := c.newFlags("lti1p1 verify", "[--secret S] [FILE]\n\n"+
		"FILE (default stdin) holds the JSON payload of the id_token, decoded, as a tool's JWT library\n"+
		"returns it; a whole JWT (header.payload.signature) is read for its payload, and its signature\n"+
		"is NOT checked. Exit status: 0 if the claim verifies, 1 if not, 2 for input it cannot read.")
	var secret string
	fs.StringVar(&secret, "secret", "", "the LTI 1.1 shared `secret` of the claim's consumer key (default $OAUTH1_CONSUMER_SECRET)")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return fs.usageError("extra argument %.40q after FILE", pos[1])
	}
	secret, ok = c.lti1p1Secret(fs, secret)
	if !ok {
		return exitUsage
	}
	payload, err := c.readPayload(pos)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	switch res, err := lticlaim.Verify(c.stdout, payload, secret); {
	case err != nil && res == lticlaim.Unreadable:
		return c.errorf(exitUsage, "%v", err)
	case err != nil:
		return c.errorf(exitFailure, "%v", err)
	case res == lticlaim.Verified:
		return exitOK
	}
	return exitFailure
}

// readPayload reads FILE or stdin; see lticlaim.ReadPayload.
func (c *cmd) readPayload(pos []string) ([]byte, error) {
	in, err := c.openInput(pos)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return lticlaim.ReadPayload(in, c.stderr)
}
