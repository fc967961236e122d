package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A result is one line of "oauth1 sign --json" output.
type result struct {
	BaseString    string `json:"base_string"`
	Signature     string `json:"signature"`
	Authorization string `json:"authorization"`
	URL           string `json:"url"`
	Body          string `json:"body"`
	Error         string `json:"error"`
	// Masked names the fields replaced by "<masked>" because they hold a
	// PLAINTEXT signature, which is made of the secrets. A field is masked
	// as a whole: a URL or header with "<masked>" in it looks usable and is
	// not.
	Masked []string `json:"masked,omitempty"`
	// Warnings are what sign writes to stderr for a doubtful key: an
	// empty consumer secret, or a token without its secret.
	Warnings []string `json:"warnings,omitempty"`
}

// batch signs one JSON request per line of stdin. Credentials a line leaves
// out come from the flags and the environment (defaults). A line that
// fails gets its error in the "error" field and the others go on; the exit
// status is 1 if any line failed.
func (c *cmd) batch(defaults job, showSecrets bool) int {
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
		res := c.batchLine(line, defaults, showSecrets)
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

func (c *cmd) batchLine(line []byte, defaults job, showSecrets bool) result {
	// Decoding writes through pointers and into slice arrays: give the
	// line its own copies, so that one line cannot change the next one's
	// defaults.
	j := defaults
	j.Params = slices.Clone(defaults.Params)
	j.HeaderParams = slices.Clone(defaults.HeaderParams)
	for _, p := range []**bool{&j.Version, &j.ConsumerSecretOnly, &j.SendEmptyToken, &j.SendEmptyRealm} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return result{Error: "oauth1: invalid request line: " + err.Error()}
	}
	s, err := j.sign(time.Now())
	if err != nil {
		return result{Error: "oauth1: " + strings.TrimPrefix(err.Error(), "oauth1: ")}
	}
	m := c.masker(&j, showSecrets)
	m.hideSignature(s)
	res := result{BaseString: s.base, Warnings: append(keyWarnings(&j, s, true), s.warnings...)}
	for _, f := range []struct {
		name string
		dst  *string
		val  string
	}{
		{"signature", &res.Signature, s.signature},
		{"authorization", &res.Authorization, s.auth},
		{"url", &res.URL, s.req.URL.String()},
		{"body", &res.Body, s.body},
	} {
		*f.dst = f.val
		if m.mask(f.val) != f.val {
			*f.dst = masked
			res.Masked = append(res.Masked, f.name)
		}
	}
	return res
}
