package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/countersign/countersign/cmd/oauth1/internal/verify"
)

// verify checks a raw HTTP request with server.Verifier, the code a
// provider built on this module runs; internal/verify does the work.
func (c *cmd) verify(args []string) int {
	f, pos, code, ok := c.verifyFlags(args)
	if !ok {
		return code
	}
	if err := f.LoadKey(); err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	raw, err := c.readInput(pos)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	stdout, stderr := c.stdout, c.stderr
	if f.JSON {
		stdout, stderr = io.Discard, io.Discard // the report holds the warnings
	}
	rep, err := verify.Run(f, raw, stdout, stderr)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	if c.report != nil {
		c.report(rep)
	}
	if f.JSON {
		enc := json.NewEncoder(c.stdout)
		enc.SetEscapeHTML(false) // base strings are full of "&"
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return c.errorf(exitUsage, "writing the report: %v", err)
		}
	}
	if rep.Verdict == "valid" {
		return exitOK
	}
	return exitFailure
}

// verifyFlags parses the flags and at most one FILE argument. When parsing
// ends the command, ok is false and code is the exit status.
func (c *cmd) verifyFlags(args []string) (f *verify.Options, pos []string, code int, ok bool) {
	fs := c.newFlags("verify", "[flags] [FILE]\n\n"+
		"FILE (default stdin) holds a raw HTTP request: request line, headers, a blank line, the body;\n"+
		"the \"> \" lines that curl -v prints are accepted too (curl -v does not print the body: use --data-raw).")
	f = &verify.Options{}
	var now numberFlag
	fs.StringVar(&f.Scheme, "scheme", "", "`scheme` of the URL the client signed (default: the request line's, else what the capture shows: Forwarded, X-Forwarded-Proto, the Host port, curl -v; else https)")
	fs.StringVar(&f.ConsumerKey, "consumer-key", "", "the expected consumer `key`; default: accept the request's")
	fs.StringVar(&f.ConsumerSecret, "consumer-secret", "", "consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&f.Token, "token", "", "the expected `token`; default: accept the request's")
	fs.StringVar(&f.TokenSecret, "token-secret", "", "token `secret` (default $OAUTH1_TOKEN_SECRET)")
	fs.StringVar(&f.KeyFile, "key-file", "", "RSA public key, certificate or private key `file`, for the RSA methods")
	fs.StringVar(&f.KeyPassword, "key-password", "", "`password` of an encrypted private key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&f.Data, "data-raw", "", "the request `body`, when the input does not show it")
	fs.Var(&now, "now", "verify as at this time, in `seconds` since 1970 (default now)")
	fs.BoolVar(&f.AnyTime, "any-time", false, "skip the timestamp window check, for requests captured earlier")
	fs.BoolVar(&f.Plaintext, "allow-plaintext", false, "accept the PLAINTEXT method (refused by default, as the Verifier does)")
	fs.BoolVar(&f.JSON, "json", false, "print the report as one JSON object (its fields are in the README); the exit status is the same")
	fs.StringVar(&f.ClientBase, "base-string", "", "the base string the client signed; if the signature is invalid, diff it against the expected one")
	if pos, code, ok = fs.parse(args); !ok {
		return nil, nil, code, false
	}
	if len(pos) > 1 {
		return nil, nil, fs.usageError("extra argument %.40q after FILE", pos[1]), false
	}
	fill := func(dst *string, name string) {
		if *dst == "" {
			*dst = c.getenv(name)
		}
	}
	fill(&f.ConsumerSecret, "OAUTH1_CONSUMER_SECRET")
	fill(&f.TokenSecret, "OAUTH1_TOKEN_SECRET")
	fill(&f.KeyPassword, "OAUTH1_KEY_PASSWORD")
	if f.ConsumerSecret == "" && f.KeyFile == "" {
		return nil, nil, fs.usageError("no key to verify with: give the consumer secret (--consumer-secret or $OAUTH1_CONSUMER_SECRET), or --key-file for the RSA methods"), false
	}
	f.At = time.Now()
	if n := string(now); n != "" {
		sec, _ := strconv.ParseInt(n, 10, 64)
		f.At = time.Unix(sec, 0)
	}
	return f, pos, exitOK, true
}

// openInput opens FILE, or stdin when there is none or it is "-"; the
// caller closes what it returns.
func (c *cmd) openInput(pos []string) (io.ReadCloser, error) {
	if len(pos) == 1 && pos[0] != "-" {
		return os.Open(pos[0])
	}
	return io.NopCloser(c.stdin), nil
}

// readInput reads the raw request from FILE, or from stdin when there is
// none or it is "-".
func (c *cmd) readInput(pos []string) ([]byte, error) {
	in, err := c.openInput(pos)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	return raw, nil
}
