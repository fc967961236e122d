package wire

import (
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/redact"
	"github.com/countersign/countersign/percent"
)

// A HeaderError reports an Authorization header that is not a well-formed
// OAuth credentials field (RFC 5849 §3.5.1, RFC 9110 §11.4), and where.
type HeaderError struct {
	Offset int    // byte offset in the header value where parsing failed
	Reason string // what was expected or found there
	Err    error  // the underlying decoding error, such as a *percent.EscapeError
}

func (e *HeaderError) Error() string {
	s := "oauth1: malformed Authorization header at offset " + strconv.Itoa(e.Offset) + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *HeaderError) Unwrap() error { return e.Err }

// An AuthParam is one parameter of an OAuth Authorization header, decoded.
// Its value is Value, a substring of the header, unless InBuf: a value that
// had to be decoded or unescaped is Buf[Start:End] of the AuthParser, so
// that reading a header into a reused Buf allocates nothing.
type AuthParam struct {
	Name       string
	Value      string
	Start, End int
	InBuf      bool
}

// An AuthParser reads the parameters of an OAuth Authorization header one
// at a time, as oauth1.ParseAuthHeader documents: names and values (but
// realm's) percent-decoded strictly, realm a quoted string with its
// escapes undone, a value quoted or a bare token, empty list elements
// skipped.
type AuthParser struct {
	v   string
	i   int
	Buf []byte // the values of InBuf parameters, appended by Next
}

// NewAuthParser starts reading the header value v, refusing one whose
// scheme is not OAuth; Next appends to buf.
func NewAuthParser(v string, buf []byte) (AuthParser, error) {
	const scheme = "OAuth"
	i := skipSpace(v, 0)
	if len(v)-i < len(scheme) || !strings.EqualFold(v[i:i+len(scheme)], scheme) {
		return AuthParser{}, &HeaderError{Offset: i, Reason: `scheme is not "OAuth"`}
	}
	i += len(scheme)
	if i < len(v) && v[i] != ' ' && v[i] != '\t' {
		return AuthParser{}, &HeaderError{Offset: i, Reason: `scheme is not "OAuth"`}
	}
	return AuthParser{v: v, i: i, Buf: buf}, nil
}

// MaxParams bounds the parameters left: every one has an "=" and takes
// three bytes at least ("a=,"), so that room for them all costs a few
// times the header's size.
func (a *AuthParser) MaxParams() int {
	rest := a.v[a.i:]
	return min(strings.Count(rest, "="), len(rest)/3+1)
}

// Next returns the next parameter, and false at the end of the header.
func (a *AuthParser) Next() (AuthParam, bool, error) {
	v, i := a.v, a.i
	// Skip list separators and whitespace: "a=1 , ,b=2" is a valid list.
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
		i++
	}
	if i == len(v) {
		a.i = i
		return AuthParam{}, false, nil
	}
	start := i
	for i < len(v) && ascii.TokenChar(v[i]) {
		i++
	}
	if i == start {
		return AuthParam{}, false, &HeaderError{Offset: i, Reason: "expected a parameter name, found " + strconv.QuoteRune(rune(v[i]))}
	}
	// Names are percent-encoded too (§3.5.1); "%" is a token character,
	// so an encoded name reads as one token and decodes here.
	name, err := percent.Decode(v[start:i])
	if err != nil {
		return AuthParam{}, false, &HeaderError{Offset: start, Reason: "bad percent-encoding in a parameter name", Err: err}
	}
	i = skipSpace(v, i)
	if i == len(v) || v[i] != '=' {
		return AuthParam{}, false, &HeaderError{Offset: i, Reason: "expected \"=\" after " + redact.Quote(name)}
	}
	i = skipSpace(v, i+1)
	valueAt := i
	var raw string // the value before percent-decoding, unless unescaped into Buf
	// The value is raw, or Buf[start:end] when inBuf: locals rather than
	// an AuthParam's fields, which the return would copy through memory.
	start, end, inBuf := 0, 0, false
	if i < len(v) && v[i] == '"' {
		open := i
		i++
		n := strings.IndexByte(v[i:], '"')
		if n >= 0 && strings.IndexByte(v[i:i+n], '\\') < 0 {
			raw, i = v[i:i+n], i+n+1 // the common case: no escapes, no copy
		} else {
			var herr *HeaderError
			start = len(a.Buf)
			if a.Buf, i, herr = unquote(a.Buf, v, open); herr != nil {
				return AuthParam{}, false, herr
			}
			end, inBuf = len(a.Buf), true
		}
	} else {
		// '%' is a tchar, so an unquoted percent-encoded value is one token.
		for i < len(v) && ascii.TokenChar(v[i]) {
			i++
		}
		raw = v[valueAt:i]
	}
	if name != "realm" {
		if inBuf {
			// Rare: a backslash in a value that is percent-encoded.
			raw, a.Buf = string(a.Buf[start:end]), a.Buf[:start]
			inBuf = false
		}
		if strings.IndexByte(raw, '%') >= 0 {
			start = len(a.Buf)
			if a.Buf, err = percent.AppendDecode(a.Buf, raw); err != nil {
				return AuthParam{}, false, &HeaderError{Offset: valueAt, Reason: "bad percent-encoding in " + redact.Quote(name), Err: err}
			}
			end, inBuf = len(a.Buf), true
		}
	}
	if inBuf {
		raw = ""
	}
	i = skipSpace(v, i)
	if i < len(v) && v[i] != ',' {
		return AuthParam{}, false, &HeaderError{Offset: i, Reason: "expected \",\" after the value of " + redact.Quote(name)}
	}
	a.i = i
	return AuthParam{Name: name, Value: raw, Start: start, End: end, InBuf: inBuf}, true, nil
}

// unquote appends the content of the quoted-string starting at v[open] ==
// '"', with quoted-pairs undone, and returns the offset after the closing
// quote.
func unquote(buf []byte, v string, open int) ([]byte, int, *HeaderError) {
	for i := open + 1; i < len(v); {
		switch c := v[i]; c {
		case '"':
			return buf, i + 1, nil
		case '\\':
			if i+1 == len(v) {
				return buf, i, &HeaderError{Offset: i, Reason: "backslash at end of quoted string"}
			}
			buf = append(buf, v[i+1])
			i += 2
		default:
			buf = append(buf, c)
			i++
		}
	}
	return buf, open, &HeaderError{Offset: open, Reason: "unterminated quoted string"}
}

func skipSpace(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	return i
}
