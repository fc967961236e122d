package main

import (
	"fmt"
	"strings"

	"github.com/countersign/countersign/oauth1/basestring"
)

// printKeyCheck prints what the key check of the Verifier (DiagnoseKeys)
// found on a refused request. compared says whether the client's base
// string was compared with the expected one and found the same: only then
// does a signature that no mistake reproduces mean that the key differs.
func (c *cmd) printKeyCheck(m basestring.Mistake, compared bool) {
	if m.Kind == "" {
		return
	}
	w := c.stdout
	fmt.Fprintln(w)
	switch {
	case m.Kind == basestring.BaseStringDiffers:
		c.printReproduced(m)
	case m.Kind == basestring.KeyUnknown && !compared:
		fmt.Fprintln(w, "Key check: none of the common key mistakes reproduces the signature with the base string above. Either the client signed another base string "+
			"(give it with --base-string, or compare it with oauth1 diff), or the key differs in a way the check does not know.")
	default:
		kinds := string(m.Kind)
		for _, k := range m.Also {
			kinds += ", " + string(k)
		}
		fmt.Fprintln(w, "Key check: "+kinds+"\n"+sentence(m.Cause))
	}
}

// named reports whether m names a mistake that reproduces the signature.
func named(m basestring.Mistake) bool {
	return m.Kind != "" && m.Kind != basestring.KeyUnknown && m.Kind != basestring.KeyUnchecked
}

// sentence capitalizes s and ends it with a period.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}
