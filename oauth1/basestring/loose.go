package basestring

import (
	"github.com/countersign/countersign/internal/ascii"
	"strings"
)

// parseLoose parses s as Parse does, but when s breaks the syntax of a
// base string in a way a client's bug explains, it parses on and reports
// each break as a Syntax difference, so that Diff can still compare the
// parts. side is "want" or "got", for the causes. flagged holds the decoded
// names of the parameters a Syntax difference already covers. It fails,
// with Parse's error, only when s does not have three parts, an absolute
// base string URI and a method: then there is nothing to compare.
func parseLoose(s, side string) (b *BaseString, issues []Difference, flagged map[string]bool, err error) {
	t := tokenizer{s: s, side: side}
	b, err = t.parse()
	return b, t.issues, t.flagged, err
}

func pick(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// looseDecode decodes the "%XX" escapes of s and keeps any other "%" as it
// is.
func looseDecode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]) {
				hi, _ := ascii.Unhex(s[i+1])
				lo, _ := ascii.Unhex(s[i+2])
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
