package verify

import (
	"fmt"
	"strings"

	"github.com/countersign/countersign/oauth1/basestring"
)

// printKeyCheck prints what the key check of the Verifier (DiagnoseKeys)
// found on a refused request. compared says whether the client's base
// string was compared with the expected one and found the same: only then
// does a signature that no mistake reproduces mean that the key differs.
func (c *report) printKeyCheck(m basestring.Mistake, compared bool) {
	if m.Kind == "" {
		return
	}
	w := c.stdout
	fmt.Fprintln(w)
	switch {
	case m.Kind == basestring.BaseStringDiffers:
		c.printReproduced(m)
	case m.Kind == basestring.KeyUnknown && !compared:
		c.rep.setMistake(m, nothingReproduced)
		fmt.Fprintln(w, nothingReproduced)
	default:
		kinds := string(m.Kind)
		for _, k := range m.Also {
			kinds += ", " + string(k)
		}
		c.rep.setMistake(m, sentence(m.Cause))
		fmt.Fprintln(w, "Key check: "+kinds+"\n"+sentence(m.Cause))
	}
}

// nothingReproduced is what verify says when no mistake reproduces the
// signature.
const nothingReproduced = "Nothing reproduced the signature: with the secrets given, none of the common key mistakes gives it, and no base string that " +
	"client libraries' bugs make of this request (each bug alone, and up to five together) does. What to try next: get the base string your " +
	"client signed (most libraries can log it) and compare both: oauth1 diff EXPECTED SIGNED, or run again with --base-string SIGNED. " +
	"If they are the same, the secrets differ."

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
