// Readpath measures how a reader follows a call path through one package:
// from a root function, depth first, each function read once, it lists
// the files visited (rooms), the stays (runs of steps in one file, a
// return to the caller included) and the climbs (a call into a definition
// earlier in reading order: an earlier file of the directory's
// alphabetical listing, or higher up in the same file). With -refs it
// counts instead the pairs of files in which one calls a function of an
// earlier one. Only the package's own non-test files are rooms; calls into
// other packages are not followed.
//
//	go run ./internal/readpath -dir oauth1/server -root Verifier.checkSigned [-v]
//	go run ./internal/readpath -dir oauth1/server -refs [-v]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"path/filepath"
	"sort"
	"strings"
)

type pos struct {
	file string
	line int
}

func main() {
	dir := flag.String("dir", ".", "package directory")
	root := flag.String("root", "Verifier.checkSigned", "root function: Func or Type.Method")
	refs := flag.Bool("refs", false, "count the file pairs with a call to a function of an earlier file")
	verbose := flag.Bool("v", false, "print the path, or the pairs")
	flag.Parse()

	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(*dir, "*.go"))
	if err != nil {
		log.Fatal(err)
	}
	sort.Strings(names)
	var files []*ast.File
	order := map[string]int{}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			log.Fatal(err)
		}
		order[filepath.Base(n)] = len(files)
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil), Error: func(error) {}}
	pkg, _ := conf.Check("p", fset, files, info)

	at := func(p token.Pos) pos {
		q := fset.Position(p)
		return pos{filepath.Base(q.Filename), q.Line}
	}
	earlier := func(a, b pos) bool {
		if a.file != b.file {
			return order[a.file] < order[b.file]
		}
		return a.line < b.line
	}
	decls := map[types.Object]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls[info.Defs[fd.Name]] = fd
			}
		}
	}

	if *refs {
		n := 0
		for _, f := range files {
			from := at(f.Pos()).file
			seen := map[string]bool{}
			ast.Inspect(f, func(x ast.Node) bool {
				id, ok := x.(*ast.Ident)
				if !ok {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || fn.Pkg() != pkg {
					return true
				}
				to := at(fn.Pos()).file
				if order[to] < order[from] && !seen[to] {
					seen[to] = true
					n++
					if *verbose {
						fmt.Printf("%s -> %s (%s)\n", from, to, fn.Name())
					}
				}
				return true
			})
		}
		fmt.Printf("%s: %d file pairs with a call to a function of an earlier file\n", *dir, n)
		return
	}

	var start *ast.FuncDecl
	for obj, fd := range decls {
		name := obj.Name()
		if recv := obj.Type().(*types.Signature).Recv(); recv != nil {
			name = strings.TrimPrefix(types.TypeString(recv.Type(), func(*types.Package) string { return "" }), "*") + "." + name
		}
		if name == *root {
			start = fd
		}
	}
	if start == nil {
		log.Fatalf("no function %s in %s", *root, *dir)
	}
	var steps []pos
	stays, climbs := 0, 0
	rooms := map[string]bool{}
	step := func(p pos, name string, call bool) {
		if len(steps) == 0 || p.file != steps[len(steps)-1].file {
			stays++
		}
		rooms[p.file] = true
		climb := call && len(steps) > 0 && earlier(p, steps[len(steps)-1])
		if climb {
			climbs++
		}
		if *verbose {
			mark := "  "
			if climb {
				mark = "^ "
			}
			fmt.Printf("%s%s:%d %s\n", mark, p.file, p.line, name)
		}
		steps = append(steps, p)
	}
	read := map[*ast.FuncDecl]bool{}
	var visit func(fd *ast.FuncDecl)
	visit = func(fd *ast.FuncDecl) {
		read[fd] = true
		step(at(fd.Pos()), fd.Name.Name, true)
		ast.Inspect(fd.Body, func(x ast.Node) bool {
			id, ok := x.(*ast.Ident)
			if !ok {
				return true
			}
			if fn, ok := info.Uses[id].(*types.Func); ok {
				if callee := decls[fn]; callee != nil && !read[callee] {
					visit(callee)
					step(at(fd.Pos()), fd.Name.Name, false) // back in the caller
				}
			}
			return true
		})
	}
	visit(start)
	fmt.Printf("%s: %d steps, %d stays in %d files, %d climbs\n", *root, len(steps), stays, len(rooms), climbs)
}
