package main

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linesOf type-checks src, the source of a package p, and returns its API
// lines as the records hold them.
func linesOf(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	pkg, err := conf.Check("example.com/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkgLines(pkg)
}

// TestIncompatible checks the compatibility check on the changes that
// break a user of the old API and those that do not, each written as Go
// source before and after.
func TestIncompatible(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     string // a part of the one problem reported; "" for none
	}{
		{"nothing changed", "func F(int) error { return nil }", "func F(int) error { return nil }", ""},
		{"function removed", "func F() {}\nfunc G() {}", "func G() {}", "removed: pkg example.com/p, func F()"},
		{"parameter added", "func F(int) {}", "func F(int, string) {}", "changed: pkg example.com/p, func F(int); now: pkg example.com/p, func F(int, string)"},
		{"made variadic", "func F(int) {}", "func F(...int) {}", "changed: pkg example.com/p, func F(int)"},
		{"result changed", "func F() int { return 0 }", "func F() int64 { return 0 }", "now: pkg example.com/p, func F() int64"},
		{"function added", "func F() {}", "func F() {}\nfunc G() {}", ""},
		{"method added", "type T struct{}\nfunc (T) M() {}", "type T struct{}\nfunc (T) M() {}\nfunc (T) N() {}", ""},
		{"field added", "type T struct{ A int }", "type T struct{ A, B int }", ""},
		{"value to pointer receiver", "type T struct{}\nfunc (T) M() {}", "type T struct{}\nfunc (*T) M() {}",
			"changed: pkg example.com/p, method (T) M(); now: pkg example.com/p, method (*T) M()"},
		{"pointer to value receiver", "type T struct{}\nfunc (*T) M() {}", "type T struct{}\nfunc (T) M() {}", ""},
		{"method removed", "type T struct{}\nfunc (T) M() {}", "type T struct{}", "removed: pkg example.com/p, method (T) M()"},
		{"field type changed", "type T struct{ A int }", "type T struct{ A int64 }", "now: pkg example.com/p, type T struct, A int64"},
		{"field removed", "type T struct{ A, B int }", "type T struct{ A int }", "removed: pkg example.com/p, type T struct, B int"},
		{"struct made incomparable", "type T struct{ A int }", "type T struct{ A int; B []int }", "no longer comparable with ==: pkg example.com/p, type T struct"},
		{"unexported incomparable field", "type T struct{ A int }", "type T struct{ A int; b map[int]int }", "no longer comparable"},
		{"struct made comparable", "type T struct{ A []int }", "type T struct{ A [2]int }", "now: pkg example.com/p, type T struct, A [2]int"},
		{"method added to an interface", "type I interface{ M() }", "type I interface{ M(); N() }",
			"methods added to an interface users may implement: N, to pkg example.com/p, type I"},
		{"unexported method added to an interface", "type I interface{ M() }", "type I interface{ M(); n() }", "methods added to an interface users may implement: unexported methods"},
		{"method added to a sealed interface", "type I interface{ M(); n() }", "type I interface{ M(); N(); n() }", ""},
		{"interface method changed", "type I interface{ M() }", "type I interface{ M(int) }", "changed: pkg example.com/p, type I interface, M()"},
		{"interface method removed", "type I interface{ M(); N() }", "type I interface{ M() }", "removed: pkg example.com/p, type I interface, N()"},
		{"constant value changed", "const C = 1", "const C = 2", "changed: pkg example.com/p, const C = 1; now: pkg example.com/p, const C = 2"},
		{"constant typed", "const C = 1", "const C int = 1", "changed: pkg example.com/p, const C = 1"},
		{"variable type changed", "var V int", "var V int64", "changed: pkg example.com/p, var V int"},
		{"type kind changed", "type T struct{}", "type T int", "now: pkg example.com/p, type T int"},
		{"type parameter constraint narrowed", "func F[T any](T) {}", "func F[T comparable](T) {}", "changed: pkg example.com/p, func F[T any](T)"},
		{"promoted field removed", "type T struct{ inner }\ntype inner struct{ A, B int }", "type T struct{ inner }\ntype inner struct{ A int }",
			"removed: pkg example.com/p, type T struct, B int (promoted)"},
		{"promoted field hidden", "type T struct{ inner }\ntype inner struct{ A int }", "type T struct{ inner; b }\ntype inner struct{ A int }\ntype b struct{ A int }",
			"removed: pkg example.com/p, type T struct, A int (promoted)"},
		{"promoted field made direct", "type T struct{ inner }\ntype inner struct{ A int }", "type T struct{ A int }", ""},
		{"field made promoted", "type T struct{ A int }", "type T struct{ inner }\ntype inner struct{ A int }", "changed: pkg example.com/p, type T struct, A int; now: pkg example.com/p, type T struct, A int (promoted)"},
		{"type made an alias", "type T struct{ A int }\ntype U struct{ A int }", "type T = U\ntype U struct{ A int }", "pkg example.com/p, type T struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := incompatible(linesOf(t, tt.old), linesOf(t, tt.new))
			switch {
			case tt.want == "" && len(problems) > 0:
				t.Errorf("compatible change reported: %q", problems)
			case tt.want != "" && len(problems) == 0:
				t.Errorf("incompatible change not reported; want %q", tt.want)
			case tt.want != "" && !strings.Contains(strings.Join(problems, "\n"), tt.want):
				t.Errorf("reported %q; want %q", problems, tt.want)
			}
		})
	}
}

// TestFrozenRecords checks that the frozen v1 records exist and hold API
// lines, as -check reads them: an empty or missing record would hold
// nothing to.
func TestFrozenRecords(t *testing.T) {
	for _, m := range modules {
		if m.frozen == "" {
			continue // a v0 module
		}
		lines, err := readRecord(filepath.Join("../..", m.frozen))
		if err != nil {
			t.Fatalf("%v: write it with go run ./internal/apidump -freeze", err)
		}
		if len(lines) < 10 {
			t.Errorf("%s holds %d lines", m.frozen, len(lines))
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "pkg ") {
				t.Errorf("%s: not an API line: %q", m.frozen, l)
			}
		}
	}
	if _, err := os.Stat("../../api/countersign.txt"); err != nil {
		t.Error(err)
	}
}
