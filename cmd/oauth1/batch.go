//go:build !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
)

// batch signs one JSON request per line of stdin. Credentials a line leaves
// out come from the flags and the environment (defaults). A line that
// fails gets its error in the "error" field and the others go on; the exit
// status is 1 if any line failed.
func (c *cmd) batch(defaults sign.Job, showSecrets bool) int {
	sc := bufio.NewScanner(c.stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	status := exitOK
	noted := false
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		res := sign.BatchLine(line, defaults, showSecrets)
		if res.Error != "" {
			status = exitFailure
		}
		if len(res.Masked) > 0 && !noted {
			fmt.Fprintln(c.stderr, `oauth1: a PLAINTEXT signature is made of the secrets: the fields that hold one are "<masked>" as a whole, and listed in "masked" (--show-secrets shows them)`)
			noted = true
		}
		if err := enc.Encode(res); err != nil {
			return c.errorf(exitFailure, "writing output: %v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return c.errorf(exitUsage, "reading stdin: %v", err)
	}
	return status
}
