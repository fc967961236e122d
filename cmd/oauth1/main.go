// Command oauth1 signs HTTP requests with OAuth 1.0a (RFC 5849) exactly as
// package [github.com/countersign/countersign/oauth1] does, and helps find
// out why a provider answers "invalid signature".
//
// Install it with
//
//	go install github.com/countersign/countersign/cmd/oauth1@latest
//
// Usage:
//
//	oauth1 sign [flags] URL        print the Authorization header (--explain, --curl)
//	oauth1 sign --json             batch mode: one JSON request per stdin line
//	oauth1 explain BASE_STRING     break a signature base string into its parts
//	oauth1 diff WANT GOT           compare two base strings and explain each difference
//	oauth1 verify [flags] [FILE]   check the signature of a raw HTTP request
//
// Credentials come from flags or, so that secrets stay out of shell
// history, from the environment variables OAUTH1_CONSUMER_KEY,
// OAUTH1_CONSUMER_SECRET, OAUTH1_TOKEN, OAUTH1_TOKEN_SECRET and
// OAUTH1_KEY_PASSWORD. Secrets never appear in the output unless
// --show-secrets is given.
//
// Exit status: 0 on success, 1 when a signature is invalid, base strings
// differ or a batch line failed, 2 on usage and input errors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

const (
	exitOK      = 0
	exitFailure = 1 // invalid signature, different base strings, failed batch line
	exitUsage   = 2 // bad flags or unreadable input
)

const usage = `usage: oauth1 <command> [flags] [arguments]

Commands:
  sign [flags] URL       sign a request; print its Authorization header
                         (--explain: the base string broken down; --curl: a curl command;
                         --json: batch mode, one JSON request per line of stdin)
  explain BASE_STRING    break a signature base string into its parts ("-" reads stdin)
  diff WANT GOT          compare two base strings and explain each difference
                         (exit status 0 if equal, 1 if they differ)
  verify [flags] [FILE]  check the signature of a raw HTTP request (default stdin)

Run "oauth1 <command> -h" for the flags of a command.

Environment:
  OAUTH1_CONSUMER_KEY, OAUTH1_CONSUMER_SECRET   client credentials
  OAUTH1_TOKEN, OAUTH1_TOKEN_SECRET             token credentials
  OAUTH1_KEY_PASSWORD                           password of an encrypted --key-file
`

// run is main without the process: it returns the exit status.
//
// getenv reads environment variables; tests pass a map's lookup.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c := &cmd{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	switch args[0] {
	case "sign":
		return c.sign(args[1:])
	case "explain":
		return c.explain(args[1:])
	case "diff":
		return c.diff(args[1:])
	case "verify":
		return c.verify(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "oauth1: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

type cmd struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func (c *cmd) errorf(code int, format string, args ...any) int {
	fmt.Fprintln(c.stderr, "oauth1: "+strings.TrimPrefix(fmt.Sprintf(format, args...), "oauth1: "))
	return code
}

// newFlags returns a FlagSet whose usage names the command and its
// arguments.
func (c *cmd) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() {
		fmt.Fprintf(c.stderr, "usage: oauth1 %s %s\n", name, synopsis)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(c.stderr, "\nFlags (one dash or two):\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseInterspersed parses flags and positional arguments in any order:
// the flag package stops at the first argument that is not a flag, and
// users write the URL where curl lets them, often before the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil // everything after "--" is positional
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagExit is the exit status for a flag parsing error, which the flag
// package has already printed: -h is a request, not a mistake.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ", ") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }

// readArg returns s, or all of stdin (without the final newline) when s is "-".
func (c *cmd) readArg(s string) (string, error) {
	if s != "-" {
		return s, nil
	}
	b, err := io.ReadAll(c.stdin)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// baseStringArg returns the base string in s. Providers that report the
// base string they computed put it in a form-encoded problem report
// ("oauth_problem=signature_invalid&oauth_signature_base_string=..."); a
// user pastes the whole body, so the base string is taken out of it when s
// itself is not one.
func baseStringArg(s string) string {
	if _, err := basestring.Parse(s); err == nil {
		return s
	}
	for _, key := range []string{"oauth_signature_base_string=", "debug_sbs="} {
		_, v, ok := strings.Cut(s, key)
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "&")
		if d, err := percent.DecodeForm(v); err == nil {
			if _, err := basestring.Parse(d); err == nil {
				return d
			}
		}
	}
	return s
}
