package redact

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Bounds on the text a peer chose that an Error method prints: a
// client's parameter names in a server.ProblemError, a provider's problem
// report in an oauth1.ResponseError. A log line stays one line of bounded
// size, whatever the peer sent.
const (
	MaxNames   = 8    // names of a list; the rest are counted
	MaxNameLen = 64   // bytes of one name or code
	MaxTextLen = 256  // bytes of one piece of free text (advice, a cause)
	MaxErrLen  = 1024 // bytes of a wrapped error's message
)

// Name returns a name or code a peer chose, as an error message prints it:
// as it is when it is made of letters, digits and "-._~:/" and at most
// MaxNameLen bytes; otherwise cut to MaxNameLen bytes and quoted as
// [strconv.QuoteToASCII] does, so that a CR, LF, escape sequence or quote
// is printed escaped and cannot forge a log line or the rest of the message.
func Name(s string) string {
	if len(s) <= MaxNameLen && plainName(s) {
		return s
	}
	return quoteCut(s, MaxNameLen)
}

// Names returns a list of names as Name prints each, joined with ", ": at
// most MaxNames of them, then "and N more".
func Names(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i == MaxNames {
			b.WriteString(", and " + strconv.Itoa(len(names)-MaxNames) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Name(n))
	}
	return b.String()
}

// Printable returns free text a peer chose (a provider's advice), as an error
// message prints it: as it is when it is valid UTF-8 of printable
// characters and spaces and at most max bytes; otherwise cut to max bytes and quoted as [strconv.QuoteToASCII]
// does.
func Printable(s string, max int) string {
	if len(s) <= max && plainText(s) {
		return s
	}
	return quoteCut(s, max)
}

func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~:/", c) >= 0) {
			return false
		}
	}
	return true
}

func plainText(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r != ' ' && !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// quoteCut quotes s, cut to max bytes at a character boundary with "..."
// after the closing quote when anything was cut.
func quoteCut(s string, max int) string {
	if len(s) <= max {
		return strconv.QuoteToASCII(s)
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return strconv.QuoteToASCII(s[:i]) + "..."
}

// Quote returns a name a peer chose, always quoted, as Name prints one
// that is not plain: cut to MaxNameLen bytes.
func Quote(s string) string {
	return quoteCut(s, MaxNameLen)
}

// Field returns a field of a value that prints itself (a token, a key, a
// user name): as it is when Printable would leave it, and otherwise quoted,
// never cut, so that a peer's CR/LF cannot forge a log line.
func Field(s string) string {
	if plainText(s) {
		return s
	}
	return strconv.QuoteToASCII(s)
}
