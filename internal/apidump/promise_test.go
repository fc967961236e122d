package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// changeable matches a doc that says a value may change within v1.
var changeable = regexp.MustCompile(`(?i)(value may change|may change in a minor|minor release may|` +
	`not part of the compatibility promise|its value is not|value is not a promise)`)

// TestConstantValuesArePromises checks that no exported constant of the
// modules users install says its value may change: -check and apidiff
// refuse every change of an exported constant's value (the records hold
// it), so such a doc would promise what the checks forbid. A bound that
// may change is unexported, with its default documented on the field that
// uses it; an exported Default* or Max* constant says that its value is a
// promise of v1, as RELEASING.md ("What the promise covers") requires.
func TestConstantValuesArePromises(t *testing.T) {
	// The checker this test holds the docs to: a constant's value is part
	// of its line, so a changed value is a frozen line gone.
	if p := incompatible([]string{"pkg p, const MaxN = 1"}, []string{"pkg p, const MaxN = 2"}); len(p) == 0 {
		t.Fatal("the compatibility check accepts a constant's new value; this test's premise is gone")
	}
	found := 0
	for _, m := range modules {
		for name, c := range exportedConsts(t, "../..", filepath.Join("../..", m.dir)) {
			found++
			doc := c.doc
			if changeable.MatchString(doc) {
				t.Errorf("%s: its doc says its value may change, but -check and apidiff refuse that change: "+
					"make its value a promise of v1 and say so, or unexport it and document the default on the field that uses it:\n\t%s",
					name, doc)
				continue
			}
			base := name[strings.LastIndex(name, ".")+1:]
			if c.bound && (strings.HasPrefix(base, "Default") || strings.HasPrefix(base, "Max")) && !strings.Contains(doc, "promise of v1") {
				t.Errorf("%s: an exported bound whose doc does not say its value is a promise of v1", name)
			}
		}
	}
	if found < 10 {
		t.Fatalf("found %d exported constants; the walk missed the packages", found)
	}
}

// A constant as exportedConsts finds it: its doc, and whether it is a
// number or string given by an untyped expression of its own (a bound,
// not one of an enumeration's iota values).
type constDoc struct {
	doc   string
	bound bool
}

// exportedConsts returns every exported package-level constant of the
// module in root, by "dir.Name" with dir relative to repo, outside internal
// packages, commands, testdata and nested modules. A constant of a group
// without a doc of its own has the group's.
func exportedConsts(t *testing.T, repo, root string) map[string]constDoc {
	t.Helper()
	docs := map[string]constDoc{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if path != root && (base == "internal" || base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		rel, _ := filepath.Rel(repo, filepath.Dir(path)) // the package's directory in the repository
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				doc := vs.Doc
				if doc == nil {
					doc = gd.Doc
				}
				for _, n := range vs.Names {
					if n.IsExported() {
						docs[rel+"."+n.Name] = constDoc{strings.Join(strings.Fields(doc.Text()), " "), vs.Type == nil && len(vs.Values) > 0}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}
