//go:build !js

package main

import "github.com/countersign/countersign/cmd/oauth1/internal/response"

// response reads a provider's raw HTTP response, as curl -i prints it, and
// says what the client learns from it; internal/response does the work.
func (c *cmd) response(args []string) int {
	fs := c.newFlags("response", "[FILE]\n\n"+
		"FILE (default stdin) holds a provider's raw HTTP response: status line, headers, a blank line,\n"+
		"the body, as curl -i prints it (the \"< \" lines of curl -v are accepted too).\n"+
		"Exit status: 0 for a 2xx answer, 1 for a refusal, 2 for input that is not a response.")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return fs.usageError("extra argument %.40q after FILE", pos[1])
	}
	raw, err := c.readInput(pos)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	resp, err := response.Parse(raw)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	defer resp.Body.Close()
	if !response.Report(resp, c.stdout, c.stderr) {
		return exitFailure
	}
	return exitOK
}
