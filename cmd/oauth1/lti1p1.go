package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
	l, err := lti1p1.Parse(payload)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	if l.Claim == nil || l.Claim.OAuthConsumerKeySign == "" {
		return c.errorf(exitFailure, "%v: the platform sent no LTI 1.1 migration claim; nothing to verify", lti1p1.ErrNoClaim)
	}
	s := l.Signed
	err = l.Verify(secret)
	var fe *lti1p1.FieldError
	switch {
	case err == nil:
		fmt.Fprintf(c.stdout, "oauth_consumer_key_sign verifies: oauth_consumer_key %q, deployment_id %q, LTI 1.1 user_id %q\n", s.ConsumerKey, s.DeploymentID, l.Claim.UserID)
		return exitOK
	case errors.As(err, &fe):
		return c.errorf(exitFailure, "cannot verify oauth_consumer_key_sign: the payload's %s", strings.TrimPrefix(err.Error(), "lti1p1: "))
	}
	fmt.Fprintln(c.stdout, "oauth_consumer_key_sign does not verify.")
	fmt.Fprintf(c.stdout, "The tool signed:  %q\n", s.BaseString())
	m, _ := l.Diagnose(secret)
	if m.Kind == lti1p1.Unknown || m.Kind == lti1p1.Unchecked {
		fmt.Fprintln(c.stdout, "Why: "+m.Cause+".")
	} else {
		fmt.Fprintln(c.stdout, "Why: the platform's mistake is "+m.String()+".")
	}
	return exitFailure
}

// readPayload reads FILE or stdin, at most lti1p1.MaxPayload bytes and a
// JWT's worth more, and takes the payload out of a whole JWT.
func (c *cmd) readPayload(pos []string) ([]byte, error) {
	in, err := c.openInput(pos)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	limit := int64(lti1p1.MaxPayload)*4/3 + 4096 // a JWT: base64url of the payload, header and signature
	raw, err := io.ReadAll(io.LimitReader(in, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the payload: %w", err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("the input is over %d bytes; an id_token payload is a few kilobytes", limit)
	}
	raw = bytes.TrimSpace(raw)
	if parts := bytes.Split(raw, []byte(".")); len(parts) == 3 && !bytes.HasPrefix(raw, []byte("{")) {
		d, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(parts[1], "=")))
		if err != nil {
			return nil, fmt.Errorf("the input looks like a JWT, but its payload is not base64url: %v", err)
		}
		fmt.Fprintln(c.stderr, "oauth1: read the payload of a JWT; its signature is not checked here, as the tool's JWT library checks it")
		return d, nil
	}
	return raw, nil
}
