package migrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
)

// An Exchanger is what both shapes of exchange (exchange.TokenExchange,
// exchange.Signed) do.
type Exchanger interface {
	Exchange(context.Context, oauth1.Credentials) (*oauth2.Token, error)
}

// A Line is one line of the input: its credentials and the rest of its
// fields, kept.
type Line struct {
	N      int // its number in the input, from 1
	Cred   oauth1.Credentials
	Fields map[string]json.RawMessage
}

// Extras are the fields of an answer written with the token, beside
// those x/oauth2 marshals: the grant's scope, Intuit's realmId, Xero's
// tenant, which a client needs to use the token.
var Extras = []string{"scope", "realmId", "xero_tenant_id", "x_refresh_token_expires_in", "id_token"}

// ReadLines reads one JSON oauth1.Credentials per line; a line that is
// not one is reported on stderr, without its content (it may hold a
// secret), and returned as a failure, for Run.Record.
func ReadLines(in io.Reader, stderr io.Writer) ([]Line, []Failure) {
	var lines []Line
	var failed []Failure
	bad := func(n int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		fmt.Fprintf(stderr, "oauth1: migrate: %s\n", msg)
		failed = append(failed, Failure{line: n, kind: failInput, msg: msg})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		l := Line{N: n}
		if err := json.Unmarshal(b, &l.Fields); err != nil {
			bad(n, "line %d is not a JSON object", n)
			continue
		}
		if err := json.Unmarshal(b, &l.Cred); err != nil || l.Cred.Token == "" {
			bad(n, "line %d has no Token (want oauth1.Credentials as json.Marshal writes it, with Token and Secret)", n)
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		bad(n+1, "reading the input after line %d: %v", n, err)
	}
	return lines, failed
}

// result is the output line of l: its fields without the secret, and the
// OAuth 2.0 token as x/oauth2 marshals it, with the answer's extras kept.
func (l Line) result(tok *oauth2.Token, keep []string) ([]byte, error) {
	out := make(map[string]any, len(l.Fields)+2)
	for k, v := range l.Fields {
		if !isSecretField(k) {
			out[k] = v
		}
	}
	out["oauth2"] = tok
	extra := map[string]any{}
	for _, k := range keep {
		if v := tok.Extra(k); v != nil {
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		out["oauth2_extra"] = extra
	}
	return json.Marshal(out)
}

// isSecretField reports whether k is the input's Secret: json.Unmarshal
// matches names without regard to case, and so does this.
func isSecretField(k string) bool { return strings.EqualFold(k, "Secret") }
