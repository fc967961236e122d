package main

import (
	"fmt"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/oauth1/basestring"
)

func (c *cmd) explain(args []string) int {
	fs := c.newFlags("explain", "BASE_STRING\n\nBASE_STRING \"-\" reads the base string from stdin. A provider's problem report\n"+
		"(oauth_problem=...&oauth_signature_base_string=...) is accepted too.")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	switch len(pos) {
	case 0:
		return fs.usageError("missing BASE_STRING")
	case 1:
	default:
		return fs.usageError("extra argument %.40q after BASE_STRING", pos[1])
	}
	s, err := c.readArg(pos[0])
	if err != nil {
		return c.errorf(exitUsage, "reading stdin: %v", err)
	}
	s = explain.BaseStringArg(s)
	b, err := basestring.Parse(s)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	explain.Breakdown(c.stdout, b, nil)
	fmt.Fprintln(c.stdout)
	explain.Checks(c.stdout, s, b)
	return exitOK
}
