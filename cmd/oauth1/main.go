package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/verify"
)

const (
	exitOK      = 0
	exitFailure = 1 // invalid signature, different base strings, failed batch line
	exitUsage   = 2 // bad flags or unreadable input
	// exitInterrupted is migrate's status when Ctrl-C left tokens not
	// exchanged: 128+SIGINT, what a shell reports for a process Ctrl-C
	// ends, and so also what a third Ctrl-C (which kills) gives.
	exitInterrupted = 130
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
                         (--json: the report as one JSON object)
  response [FILE]        read a provider's raw HTTP response (curl -i): its problem report,
                         and the Deprecation and Sunset it announces
  lti1p1 sign|verify     sign or check the LTI 1.1 migration claim of an LTI 1.3 id_token
                         (oauth_consumer_key_sign), and name the platform's mistake
  migrate [flags] [FILE]  exchange stored OAuth 1.0a tokens (JSON lines) for OAuth 2.0 tokens
                         (--provider x, or signed for an OAuth-1-signed exchange; --out resumes)
  store migrate --db DSN  apply sqlstore's schema migrations (--dry-run: print their SQL);
                         runs oauth1-store, from module sqlstore
  version                print the module version (also --version)

Run "oauth1 <command> -h" (or "oauth1 help <command>") for the flags of a command,
and "oauth1 help providers" for the providers whose settings sign --provider takes.

Environment:
  OAUTH1_CONSUMER_KEY, OAUTH1_CONSUMER_SECRET   client credentials
  OAUTH1_TOKEN, OAUTH1_TOKEN_SECRET             token credentials
  OAUTH1_KEY_PASSWORD                           password of an encrypted --key-file
  OAUTH2_CLIENT_ID, OAUTH2_CLIENT_SECRET        OAuth 2.0 client credentials (migrate)
`

// moduleVersion returns the version of the module the command was built
// from, as go install records it, or "(devel)" when the build does not say
// (go build in a clone, go run, go test).
func moduleVersion(bi *debug.BuildInfo) string {
	if bi == nil || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

func (c *cmd) version(args []string) int {
	fs := c.newFlags("version", "")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return fs.usageError("extra argument %q", pos[0])
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(c.stdout, "oauth1", moduleVersion(bi))
	return exitOK
}

type cmd struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// report, if not nil, is given verify's report as data: the page
	// draws it (page_js.go).
	report func(*verify.Report)
}

func (c *cmd) errorf(code int, format string, args ...any) int {
	fmt.Fprintln(c.stderr, "oauth1: "+strings.TrimPrefix(fmt.Sprintf(format, args...), "oauth1: "))
	return code
}

// usageError reports a mistake on the command line in one line that says
// what is wrong and where the usage is, and returns exitUsage. name is the
// command, "" for oauth1 itself.
func (c *cmd) usageError(name, format string, args ...any) int {
	prog := strings.TrimSpace("oauth1 " + name)
	fmt.Fprintf(c.stderr, "%s: %s; see %q\n", prog, fmt.Sprintf(format, args...), prog+" -h")
	return exitUsage
}

// A flagSet is a command's flags with its synopsis, for -h.
type flagSet struct {
	*flag.FlagSet
	c        *cmd
	synopsis string
	// after, if not "", follows the flags in -h: what a command says of
	// itself beyond its flags, such as its exit statuses.
	after string
	// renamed maps a flag's former name to the message that says what
	// replaced it: an old spelling is an error with a hint, never
	// silently taken.
	renamed map[string]string
}

// newFlags returns the flags of a command; synopsis follows the command's
// name in its usage.
func (c *cmd) newFlags(name, synopsis string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints the whole usage on every error; parse reports
	// errors in one line instead, and prints the usage only for -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, c: c, synopsis: synopsis}
}

// printUsage writes the command's usage and flags to stdout: -h asked for it.
func (fs *flagSet) printUsage() {
	w := fs.c.stdout
	fmt.Fprintln(w, strings.TrimSpace("usage: oauth1 "+fs.Name()+" "+fs.synopsis))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintf(w, "\nFlags (one dash or two):\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if fs.after != "" {
		fmt.Fprint(w, "\n"+fs.after)
	}
}

// usageError is cmd.usageError for this command.
func (fs *flagSet) usageError(format string, args ...any) int {
	return fs.c.usageError(fs.Name(), format, args...)
}

// parse parses flags and positional arguments in any order: the flag
// package stops at the first argument that is not a flag, and users write
// the URL where curl lets them, often before the flags. When parsing ends
// the command (-h, or a mistake), ok is false and code is the exit status.
func (fs *flagSet) parse(args []string) (pos []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.printUsage() // -h is a request, not a mistake
				return nil, exitOK, false
			}
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + name
				if hint, ok := fs.renamed[strings.TrimLeft(name, "-")]; ok {
					msg = hint
				}
			}
			return nil, fs.usageError("%s", msg), false
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), exitOK, true // everything after "--" is positional
		}
		if len(rest) == 0 {
			return pos, exitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
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
