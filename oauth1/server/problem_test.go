package server

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
)

// namedProblems returns the values of the Problem constants of package
// oauth1, read from its source.
func namedProblems(t *testing.T) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../problem.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					named[s] = true
				}
			}
		}
		return true
	})
	return named
}

// TestWrittenProblemsAreNamed checks that every oauth_problem WriteError
// sends, the 500 and 503 answers' included, is a Problem constant, so that
// a client can compare it with one.
func TestWrittenProblemsAreNamed(t *testing.T) {
	named := namedProblems(t)
	for _, err := range []error{
		errors.New("a store failed"),
		fmt.Errorf("%w: down", ErrStoreUnavailable),
		ErrStoreFull,
		fmt.Errorf("oauth1: storing temporary credentials: %w", ErrStoreFull),
		fmt.Errorf("%w: limit", oauth1.ErrBodyTooLarge),
		problem(oauth1.ProblemNonceUsed, nil),
	} {
		w := httptest.NewRecorder()
		new(Verifier).WriteError(w, err)
		q, perr := url.ParseQuery(w.Body.String())
		if code := q.Get("oauth_problem"); perr != nil || !named[code] {
			t.Errorf("WriteError(%v): %d %q: oauth_problem %q is no Problem constant", err, w.Code, w.Body, code)
		}
		if code := oauth1.Problem(q.Get("oauth_problem")); w.Code >= 500 && code != oauth1.ProblemInternalError {
			t.Errorf("WriteError(%v): %d with oauth_problem %q, want %q", err, w.Code, code, oauth1.ProblemInternalError)
		}
	}
}

// TestProblemErrorNamesEveryKeyMistake checks that Error names each key
// mistake a refusal found, not only the first: an operator reading a log
// line must see both halves of two mistakes made at once.
func TestProblemErrorNamesEveryKeyMistake(t *testing.T) {
	e := &ProblemError{ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemSignatureInvalid},
		KeyMistake: basestring.Mistake{Kind: basestring.EmptyTokenSecret, Also: []basestring.MistakeKind{basestring.SecretWhitespace}}}
	want := "(key mistake: empty-token-secret, secret-whitespace)"
	if got := e.Error(); !strings.Contains(got, want) {
		t.Errorf("Error() = %q, want it to contain %q", got, want)
	}
}

// TestProblemErrorTextIsBounded checks that Error prints the names a
// client chose on one line of bounded size: a name with CR/LF or an ANSI
// escape is quoted with them escaped, so that it cannot forge a log line
// or colour a terminal, and a request with many long names, or an error
// that quotes one, prints at most a fixed amount of text.
func TestProblemErrorTextIsBounded(t *testing.T) {
	forged := "oauth_x\r\ntime=2026-12-04T00:00:00Z level=INFO msg=\"admin login\" user=root"
	ansi := "oauth_y\x1b[2K\x1b[1Goauth_problem=none"
	long := "oauth_" + strings.Repeat("z", 10000)
	many := make([]string, 1000)
	for i := range many {
		many[i] = long
	}
	// The limits that Error documents: 8 names of 64 bytes, quoted, and
	// 1 KiB of Err; 3 KiB leaves room for the fixed words and the escapes.
	const bound = 3 << 10
	for _, tt := range []struct {
		name string
		e    *ProblemError
		want []string // strconv.Quote of the cut name, as an operator reads it
	}{
		{"CR/LF name", problem(oauth1.ProblemParameterRejected, errors.New("duplicated protocol parameter"), forged),
			[]string{`"oauth_x\r\ntime=2026-12-04T00:00:00Z level=INFO msg=\"admin login\" "...`}},
		{"ANSI name", problem(oauth1.ProblemParameterAbsent, nil, ansi), []string{`"oauth_y\x1b[2K\x1b[1Goauth_problem=none"`}},
		{"many long names", problem(oauth1.ProblemParameterRejected, nil, many...), []string{", and 992 more"}},
		{"long error", problem(oauth1.ProblemSignatureMethodRejected, fmt.Errorf("method %s is not supported", long+"\n")), nil},
		{"plain names stay plain", problem(oauth1.ProblemParameterAbsent, nil, "oauth_nonce", "oauth_timestamp"), []string{"(oauth_nonce, oauth_timestamp)"}},
	} {
		got := tt.e.Error()
		if strings.ContainsAny(got, "\r\n\x1b") || len(got) > bound {
			t.Errorf("%s: Error() = %d bytes %q, want one line of at most %d bytes without control characters", tt.name, len(got), got[:min(len(got), 200)], bound)
		}
		// fmt prints an error's Error under these verbs, and %#v in Go
		// syntax, with strings quoted.
		for _, verb := range []string{"%v", "%+v", "%s", "%q", "%#v"} {
			if out := fmt.Sprintf(verb, tt.e); strings.ContainsAny(out, "\r\n\x1b") {
				t.Errorf("%s: Sprintf(%q) = %.200q holds a control character", tt.name, verb, out)
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: Error() = %q, want it to contain %s", tt.name, got[:min(len(got), 300)], w)
			}
		}
	}
}

// TestVerifyRefusalNameIsQuoted sends a duplicated protocol parameter
// whose percent-encoded name decodes to CR/LF: the refusal names it, and
// its Error escapes them.
func TestVerifyRefusalNameIsQuoted(t *testing.T) {
	r := xRequest(`OAuth oauth_consumer_key="` + xConsumerKey + `", oauth_x%0D%0Alevel%3DINFO="1", oauth_x%0D%0Alevel%3DINFO="2"`)
	_, err := xVerifier().Verify(r)
	var pe *ProblemError
	if !errors.As(err, &pe) || len(pe.ParamsRejected) != 1 || pe.ParamsRejected[0] != "oauth_x\r\nlevel=INFO" {
		t.Fatalf("Verify = %v, want the duplicated name rejected", err)
	}
	if got, want := err.Error(), `"oauth_x\r\nlevel=INFO"`; strings.ContainsAny(got, "\r\n") || !strings.Contains(got, want) {
		t.Errorf("Error() = %q, want %s quoted on one line", got, want)
	}
}
