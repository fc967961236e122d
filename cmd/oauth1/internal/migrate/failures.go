package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/countersign/countersign/oauth1/exchange"
)

// The kinds of failure a --failures line names.
const (
	failInput     = "input"     // a line of the input that is not credentials
	failProvider  = "provider"  // the provider answered with an error
	failRequest   = "request"   // no usable answer: network, timeout, a malformed answer
	failUnwritten = "unwritten" // exchanged, but the result was not written
	failAbandoned = "abandoned" // cut off in flight by a second Ctrl-C
)

// A Failure is one token, or one line of the input, that was not exchanged.
type Failure struct {
	line int
	l    *Line // nil for a line that is not credentials
	kind string
	msg  string
	err  *exchange.Error // the provider's answer, for failProvider
}

// newFailure is l's failure of kind, or, when kind is "", the kind err,
// an exchange's error, is.
func newFailure(l Line, kind string, err error) Failure {
	f := Failure{line: l.N, l: &l, kind: kind, msg: err.Error()}
	if kind == "" {
		f.kind = failRequest
		if errors.As(err, &f.err) {
			f.kind = failProvider
		}
	}
	return f
}

// json is the --failures line of f: the input line's fields without the
// secret (so the application's own, such as a user id, name the user),
// and "failure", what went wrong. Its Token is what --only reads.
func (f Failure) json(consumerKey string) ([]byte, error) {
	out := map[string]any{}
	if f.l != nil {
		for k, v := range f.l.Fields {
			if !isSecretField(k) {
				out[k] = v
			}
		}
	}
	desc := map[string]any{"line": f.line, "kind": f.kind, "message": f.msg}
	if f.err != nil {
		desc["status"] = f.err.StatusCode
		if f.err.Code != "" {
			desc["error"] = f.err.Code
		}
	}
	if consumerKey != "" {
		desc["consumer_key"] = consumerKey
	}
	out["failure"] = desc
	return json.Marshal(out)
}

// Only keeps the lines whose token the file at path names: a --failures
// file of an earlier run, or any JSON lines with a Token. It says on
// stderr how many of those tokens the input lacks.
func Only(path string, lines []Line, stderr io.Writer) ([]Line, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var t struct{ Token string }
		if err := json.Unmarshal(line, &t); err != nil {
			return nil, fmt.Errorf("%s: line %d is not a JSON object", path, n)
		}
		if t.Token != "" { // a line of the input that was not credentials has none
			want[t.Token] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var kept []Line
	found := map[string]bool{}
	for _, l := range lines {
		if want[l.Cred.Token] {
			kept = append(kept, l)
			found[l.Cred.Token] = true
		}
	}
	if missing := len(want) - len(found); missing > 0 {
		fmt.Fprintf(stderr, "oauth1: migrate: --only: %d of the %d tokens %s names are not in the input\n", missing, len(want), path)
	}
	return kept, nil
}
