//go:build !js

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
)

// The command line's dispatch, and the commands the debugging page does not
// run (sign, migrate, lti1p1, response), are left out of its js/wasm build
// (page_js.go): their packages and what they link (regexp, x/oauth2, the
// token exchange) would only make the page bigger.

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
	case "response":
		return c.response(args[1:])
	case "lti1p1":
		return c.lti1p1(args[1:])
	case "migrate":
		return c.migrate(args[1:])
	case "store":
		return c.store(args[1:])
	case "help", "-h", "-help", "--help":
		if args[0] == "help" && len(args) > 1 {
			return c.help(args[1:])
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	case "version", "-version", "--version":
		return c.version(args[1:])
	}
	if strings.HasPrefix(args[0], "-") {
		return c.usageError("", "unknown flag %s before the command", args[0])
	}
	return c.usageError("", "unknown command %q", args[0])
}

// help prints the usage of the command that "oauth1 help COMMAND" names,
// as "oauth1 COMMAND -h" does.
func (c *cmd) help(args []string) int {
	if len(args) > 1 {
		return c.usageError("", "help takes one command; %q is extra", args[1])
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(c.stdout, usage)
		return exitOK
	case "sign", "explain", "diff", "verify", "response", "migrate", "version":
		return run([]string{args[0], "-h"}, c.stdin, c.stdout, c.stderr, c.getenv)
	case "lti1p1":
		return c.lti1p1([]string{"-h"})
	case "store":
		return c.store([]string{"-h"})
	case "providers":
		sign.PrintProviders(c.stdout)
		return exitOK
	}
	return c.usageError("", "help: unknown command %q", args[0])
}
