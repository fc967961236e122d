package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestManualNamesExist checks that every Go name the manual (README.md and
// doc.go) gives with its package, as `server.Verifier` or as package
// `oauth1`'s `Verifier`, is declared in that package: a reader who looks
// it up finds it where the manual says.
func TestManualNamesExist(t *testing.T) {
	dirs := map[string]string{
		"oauth1": "oauth1", "server": "oauth1/server", "basestring": "oauth1/basestring",
		"providers": "oauth1/providers", "rsakey": "oauth1/rsakey", "sunset": "oauth1/sunset",
		"oauth1test": "oauth1/oauth1test", "percent": "percent", "redisstore": "redisstore",
	}
	declared := map[string]map[string]bool{}
	names := func(pkg string) map[string]bool {
		if m, ok := declared[pkg]; ok {
			return m
		}
		m := map[string]bool{}
		files, _ := filepath.Glob(filepath.Join(repoRoot, dirs[pkg], "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						m[d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							m[s.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range s.Names {
								m[n.Name] = true
							}
						}
					}
				}
			}
		}
		if len(m) == 0 {
			t.Fatalf("package %s (%s) declares nothing", pkg, dirs[pkg])
		}
		declared[pkg] = m
		return m
	}
	qualified := regexp.MustCompile("`([a-z0-9]+)\\.([A-Z][A-Za-z0-9]*)")
	possessive := regexp.MustCompile("package `([a-z0-9/]+)`'s `([A-Z][A-Za-z0-9]*)`")
	n := 0
	for _, file := range []string{"README.md", "doc.go"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ") // a name may be split over two lines
		var refs [][]string
		refs = append(refs, qualified.FindAllStringSubmatch(text, -1)...)
		refs = append(refs, possessive.FindAllStringSubmatch(text, -1)...)
		for _, r := range refs {
			pkg := r[1][strings.LastIndex(r[1], "/")+1:]
			if _, ok := dirs[pkg]; !ok {
				continue // a standard library package, or a Go expression
			}
			n++
			if !names(pkg)[r[2]] {
				t.Errorf("%s: %q names %s.%s, which package %s does not declare", file, r[0], pkg, r[2], dirs[pkg])
			}
		}
	}
	if n == 0 {
		t.Error("the manual names no Go name with its package: the check checks nothing")
	}
}
