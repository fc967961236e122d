package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
)

// budgets are the most exported identifiers the two main packages may
// declare, as countExported counts them: anything added pays with
// something removed or merged, and a separable feature gets a package of
// its own.
var budgets = []struct {
	dir string // from the repository's root
	max int
}{
	{"oauth1", 67},
	{"oauth1/server", 56},
}

// An apiCount is the exported identifiers of one package: types,
// functions, methods on exported types, vars and consts.
type apiCount struct{ types, funcs, methods, vars, consts int }

func (c apiCount) total() int { return c.types + c.funcs + c.methods + c.vars + c.consts }

// countExported counts the exported identifiers declared by the non-test
// Go files of dir in fsys, whatever their build constraints, as the
// project's apicount tool does: every exported type (an interface's
// methods are not counted), function, var and const, and every exported
// method whose receiver is an exported type; fields are not counted.
func countExported(fsys fs.FS, dir string) (apiCount, error) {
	var c apiCount
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return c, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, dir+"/"+name)
		if err != nil {
			return c, err
		}
		f, err := parser.ParseFile(fset, dir+"/"+name, src, parser.SkipObjectResolution)
		if err != nil {
			return c, err
		}
		files = append(files, f)
	}
	exportedTypes := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); ts.Name.IsExported() {
						exportedTypes[ts.Name.Name] = true
					}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					c.funcs++
					continue
				}
				t := d.Recv.List[0].Type
				if s, ok := t.(*ast.StarExpr); ok {
					t = s.X
				}
				switch x := t.(type) {
				case *ast.IndexExpr:
					t = x.X
				case *ast.IndexListExpr:
					t = x.X
				}
				if id, ok := t.(*ast.Ident); ok && exportedTypes[id.Name] {
					c.methods++
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							c.types++
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							if d.Tok == token.CONST {
								c.consts++
							} else {
								c.vars++
							}
						}
					}
				}
			}
		}
	}
	return c, nil
}
