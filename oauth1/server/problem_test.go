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
