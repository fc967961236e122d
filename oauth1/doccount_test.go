package oauth1_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exportedNames counts the exported identifiers of the package in dir as
// the package docs do: types, functions, methods on exported types, vars
// and consts, from the non-test files.
func exportedNames(t *testing.T, dir string) int {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	types := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if n := s.(*ast.TypeSpec).Name; n.IsExported() {
						types[n.Name] = true
					}
				}
			}
		}
	}
	n := len(types)
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					n++
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && types[id.Name] {
					n++
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR && d.Tok != token.CONST {
					continue
				}
				for _, s := range d.Specs {
					for _, name := range s.(*ast.ValueSpec).Names {
						if name.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// The "Who uses what" sections of both package docs state how many names
// each package exports; they stay true.
func TestDocCountsExportedNames(t *testing.T) {
	client, server := exportedNames(t, "."), exportedNames(t, "server")
	for _, c := range []struct {
		file string
		re   string
		want int
	}{
		{"doc.go", `reads its (\d+) exported`, client},
		{"doc.go", `oauth1/server\] \((\d+) names\)`, server},
		{"server/doc.go", `this package \((\d+) exported names`, server},
		{"server/doc.go", `reads only package oauth1 \((\d+)\)`, client},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(c.re).FindSubmatch([]byte(strings.ReplaceAll(string(b), "\n//", "")))
		if m == nil {
			t.Errorf("%s: no count matching %q", c.file, c.re)
			continue
		}
		got := string(m[1])
		if n, _ := strconv.Atoi(got); n != c.want {
			t.Errorf("%s says %s names, the package exports %d", c.file, got, c.want)
		}
	}
}

// TestDocCountsProblemCodes checks the number of Problem codes the package
// doc spells out against the constants of type Problem.
func TestDocCountsProblemCodes(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					if v := s.(*ast.ValueSpec); v.Type != nil {
						if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Problem" {
							want += len(v.Names)
						}
					}
				}
			}
		}
	}
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\[Problem\] and its (\w+) codes`).FindSubmatch([]byte(strings.ReplaceAll(string(b), "\n//", "")))
	if m == nil {
		t.Fatal("doc.go: no count of the Problem codes")
	}
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
		"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	if want >= len(words) || string(m[1]) != words[want] {
		t.Errorf("doc.go says %q Problem codes, the package declares %d", m[1], want)
	}
}
