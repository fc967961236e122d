package oauth1

import (
	"strconv"

	"github.com/countersign/countersign/oauth1/internal/wire"
)

// An AuthHeaderError reports an Authorization header value that is not a
// well-formed OAuth credentials field (RFC 5849 §3.5.1, RFC 9110 §11.4), and
// where. [ParseAuthHeader] returns it, and the
// [github.com/countersign/countersign/oauth1/server.ProblemError] refusing a
// request with a malformed header wraps it.
type AuthHeaderError struct {
	Offset int    // byte offset in the header value where parsing failed
	Reason string // what was expected or found there
	Err    error  // the decoding error of a bad percent-encoding (a *percent.EscapeError), or nil
}

func (e *AuthHeaderError) Error() string {
	s := "oauth1: malformed Authorization header at offset " + strconv.Itoa(e.Offset) + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *AuthHeaderError) Unwrap() error { return e.Err }

// headerError returns err as an *AuthHeaderError when it is the internal
// parser's, and err otherwise.
func headerError(err error) error {
	if he, ok := err.(*wire.HeaderError); ok {
		return &AuthHeaderError{Offset: he.Offset, Reason: he.Reason, Err: he.Err}
	}
	return err
}

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
// [*AuthHeaderError].
func ParseAuthHeader(v string) ([]Param, error) {
	a, err := wire.NewAuthParser(v, nil)
	if err != nil {
		return nil, headerError(err)
	}
	// Room for every parameter at once, so that a hostile header costs a
	// few times its size, not a chain of regrown slices.
	params := make([]Param, 0, a.MaxParams())
	for {
		p, ok, err := a.Next()
		if err != nil {
			return nil, headerError(err)
		}
		if !ok {
			break
		}
		if p.InBuf {
			p.Value = string(a.Buf[p.Start:p.End])
			a.Buf = a.Buf[:0] // copied: room for the next one
		}
		params = append(params, Param{Name: p.Name, Value: p.Value})
	}
	if len(params) == 0 {
		return nil, nil
	}
	return params, nil
}
