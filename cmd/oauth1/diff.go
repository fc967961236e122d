package main

import (
	"fmt"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/cmd/oauth1/internal/quirks"
	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1/basestring"
)

func (c *cmd) diff(args []string) int {
	fs := c.newFlags("diff", "WANT GOT\n\nWANT is the base string the provider expected, GOT the one the client signed;\n"+
		"either may be \"-\" to read it from stdin, and a provider's problem report holding\n"+
		"oauth_signature_base_string=... is accepted too. Exit status 0 if they are equal, 1 if they differ\n"+
		"(a malformed base string is explained and compared as far as it can be), 2 if either is not a\n"+
		"base string at all.")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	switch len(pos) {
	case 0:
		return fs.usageError("missing WANT and GOT, the two base strings")
	case 1:
		return fs.usageError("missing GOT, the base string the client signed")
	case 2:
	default:
		return fs.usageError("extra argument %.40q after WANT and GOT", pos[2])
	}
	if pos[0] == "-" && pos[1] == "-" {
		return fs.usageError("only one of WANT and GOT can be read from stdin")
	}
	var in [2]string
	var err error
	for i, p := range pos {
		if in[i], err = c.readArg(p); err != nil {
			return c.errorf(exitUsage, "reading stdin: %v", err)
		}
		in[i] = explain.BaseStringArg(in[i])
	}
	ds := basestring.Diff(in[0], in[1])
	if len(ds) == 1 && ds[0].Kind == basestring.Malformed {
		return c.errorf(exitUsage, "%s", ds[0].Cause)
	}
	if len(ds) == 0 {
		fmt.Fprintln(c.stdout, "The base strings are equal.\n"+
			"If the provider still refuses the signature, the key differs: the secrets, or how the client used them "+
			"(an empty token secret, the secrets swapped, a trailing newline, ...). To find out which, run oauth1 verify on the raw request "+
			"with the provider's secrets (--consumer-secret, --token-secret, or $OAUTH1_CONSUMER_SECRET and $OAUTH1_TOKEN_SECRET): "+
			"it names the mistake that reproduces the client's signature.")
		quirks.Print(c.stdout, quirks.Diff(ds, in[0]))
		return exitOK
	}
	fmt.Fprint(c.stdout, terminal.Safe(basestring.Format(explain.WithHints(ds))))
	quirks.Print(c.stdout, quirks.Diff(ds, in[0]))
	return exitFailure
}
