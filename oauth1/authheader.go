package oauth1

import (
	"strconv"
	"strings"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/percent"
)

// A headerError reports an Authorization header that is not a well-formed
// OAuth credentials field (RFC 5849 §3.5.1, RFC 9110 §11.4), and where.
type headerError struct {
	offset int    // byte offset in the header value where parsing failed
	reason string // what was expected or found there
	err    error  // the underlying decoding error, such as a *percent.EscapeError
}

func (e *headerError) Error() string {
	s := "oauth1: malformed Authorization header at offset " + strconv.Itoa(e.offset) + ": " + e.reason
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *headerError) Unwrap() error { return e.err }

// ParseAuthHeader parses the value of an Authorization header that uses the
// OAuth scheme (RFC 5849 §3.5.1) and returns its parameters in the order
// they appear, decoded. The scheme name is matched without regard to case;
// parameters are name=value pairs separated by commas, with optional
// whitespace around names, "=" and commas, and empty list elements allowed
// (RFC 9110 §5.6.1). A value may be a quoted string, as RFC 5849 requires,
// or, leniently, a bare token.
//
// Values other than realm are percent-decoded strictly with
// [percent.Decode] ("+" stays "+"); realm is an RFC 9110 quoted string, not
// signed, and is returned as it is written, with backslash escapes undone.
// Duplicate names are returned as they are: rejecting them is the caller's
// decision. A value that is not an OAuth header, or is malformed, is an
// error that names the byte offset where parsing failed and what was wrong
// there, and wraps the decoding error of a bad percent-encoding (a
// [*percent.EscapeError]).
func ParseAuthHeader(v string) ([]Param, error) {
	const scheme = "OAuth"
	i := skipSpace(v, 0)
	if len(v)-i < len(scheme) || !strings.EqualFold(v[i:i+len(scheme)], scheme) {
		return nil, &headerError{offset: i, reason: `scheme is not "OAuth"`}
	}
	i += len(scheme)
	if i < len(v) && v[i] != ' ' && v[i] != '\t' {
		return nil, &headerError{offset: i, reason: `scheme is not "OAuth"`}
	}
	// Every parameter has an "=" and takes three bytes at least ("a=,"):
	// room for them all at once, so that a hostile header costs a few times
	// its size, not a chain of regrown slices.
	params := make([]Param, 0, min(strings.Count(v[i:], "="), (len(v)-i)/3+1))
	for {
		// Skip list separators and whitespace: "a=1 , ,b=2" is a valid list.
		for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
			i++
		}
		if i == len(v) {
			if len(params) == 0 {
				return nil, nil
			}
			return params, nil
		}
		start := i
		for i < len(v) && ascii.TokenChar(v[i]) {
			i++
		}
		if i == start {
			return nil, &headerError{offset: i, reason: "expected a parameter name, found " + strconv.QuoteRune(rune(v[i]))}
		}
		// Names are percent-encoded too (§3.5.1); "%" is a token character,
		// so an encoded name reads as one token and decodes here.
		name, err := percent.Decode(v[start:i])
		if err != nil {
			return nil, &headerError{offset: start, reason: "bad percent-encoding in a parameter name", err: err}
		}
		i = skipSpace(v, i)
		if i == len(v) || v[i] != '=' {
			return nil, &headerError{offset: i, reason: "expected \"=\" after " + strconv.Quote(name)}
		}
		i = skipSpace(v, i+1)
		valueAt := i
		var raw string
		if i < len(v) && v[i] == '"' {
			var err *headerError
			raw, i, err = quotedString(v, i)
			if err != nil {
				return nil, err
			}
		} else {
			// '%' is a tchar, so an unquoted percent-encoded value is one token.
			for i < len(v) && ascii.TokenChar(v[i]) {
				i++
			}
			raw = v[valueAt:i]
		}
		value := raw
		if name != "realm" {
			d, err := percent.Decode(raw)
			if err != nil {
				return nil, &headerError{offset: valueAt, reason: "bad percent-encoding in " + strconv.Quote(name), err: err}
			}
			value = d
		}
		params = append(params, Param{Name: name, Value: value})
		i = skipSpace(v, i)
		if i < len(v) && v[i] != ',' {
			return nil, &headerError{offset: i, reason: "expected \",\" after the value of " + strconv.Quote(name)}
		}
	}
}

// quotedString reads the quoted-string starting at v[i] == '"' and returns
// its content with quoted-pairs undone, and the offset after the closing
// quote.
func quotedString(v string, i int) (string, int, *headerError) {
	open := i
	i++
	start := i
	for i < len(v) && v[i] != '"' && v[i] != '\\' {
		i++
	}
	if i < len(v) && v[i] == '"' {
		return v[start:i], i + 1, nil // the common case: no escapes, no copy
	}
	var b strings.Builder
	b.WriteString(v[start:i])
	for i < len(v) {
		switch c := v[i]; c {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 == len(v) {
				return "", i, &headerError{offset: i, reason: "backslash at end of quoted string"}
			}
			b.WriteByte(v[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", open, &headerError{offset: open, reason: "unterminated quoted string"}
}

func skipSpace(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	return i
}
