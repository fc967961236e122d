// Package terminal makes text safe to print on a terminal: the command
// prints values decoded from requests, base strings and providers' answers,
// which may hold escape sequences.
package terminal

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe returns s as a terminal may show it: valid UTF-8 without
// the control characters that a terminal acts on. A byte that is not part
// of valid UTF-8 is shown as \xE9, and a control character other than
// newline and tab (C0, DEL, C1) as \x1B or \u009B, so that a decoded
// value from a base string neither garbles the output nor sends escape
// sequences.
func Safe(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, isTerminalControl) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case r < 0x80 && isTerminalControl(r):
			fmt.Fprintf(&b, `\x%02X`, r)
		case isTerminalControl(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isTerminalControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7F || 0x80 <= r && r < 0xA0
}
