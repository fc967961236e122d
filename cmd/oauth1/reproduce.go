package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/basestring"
)

// signedMarker ends the cause of a BaseStringDiffers mistake of the
// Verifier, before the quoted base string the client signed.
const signedMarker = ". The base string it signed: "

// printReproduced prints the bug in the client's base string that the
// Verifier's base-string check (basestring.Reproduce) found, addressed to
// the developer who runs verify, and the base string the client signed,
// which the check reproduced from the signature.
func (c *cmd) printReproduced(m basestring.Mistake) {
	w := c.stdout
	cause, signed := m.Cause, ""
	if i := strings.LastIndex(cause, signedMarker); i >= 0 {
		if s, err := strconv.Unquote(cause[i+len(signedMarker):]); err == nil {
			cause, signed = cause[:i], s
		}
	}
	cause = strings.Replace(cause, "the client signed another base string", "your client signed another base string", 1)
	kinds := string(m.Kind)
	for _, k := range m.Also {
		kinds += ", " + string(k)
	}
	fmt.Fprintln(w, "Base string check: "+kinds+"\n"+terminalSafe(sentence(cause)))
	if signed != "" {
		fmt.Fprintln(w, "\nThe base string your client signed (reproduced: its HMAC with the secrets given is the signature):\n"+terminalSafe(signed))
	}
}
