// Command apidump records the exported API of the modules users install, one
// line per exported identifier with its signature, in the manner of the Go
// project's api/*.txt files:
//
//	pkg github.com/countersign/countersign/oauth1, func NewTransport(*Config, *Credentials) *Transport
//	pkg github.com/countersign/countersign/oauth1, method (*Config) Sign(*http.Request, *Credentials) error
//	pkg github.com/countersign/countersign/oauth1, type Config struct, ConsumerKey string
//
// Run it from the repository's root to rewrite the records:
//
//	go run ./internal/apidump
//
// It writes api/countersign.txt for the main module and redisstore/api.txt
// for redisstore; .ci/run runs it and fails when a record changes, so that a
// change of the API is a visible, committed diff. Packages under internal/
// and commands are not API. The types come from the compiler's export data
// (go list -export) for linux/amd64, so the record does not depend on the
// machine it is made on. A struct type that == can compare has a line
// "type T struct, comparable" of its own, so that one made incomparable
// (by a new slice field, say) loses a line; the exported fields a struct
// promotes from an unexported struct it embeds have lines marked
// "(promoted)".
//
// # Compatibility
//
// The API released as v1 is frozen in api/v1.txt and redisstore/api-v1.txt,
// in the manner of the Go project's api/go1.txt, and
//
//	go run ./internal/apidump -check
//
// fails when the current API is not compatible with them: when a line of
// a frozen record is gone (an identifier removed; a signature, field type
// or constant value changed; a method moved from the value to the pointer
// receiver; a struct made incomparable), or when an interface of a frozen
// record has gained a method, which breaks the types users wrote to
// implement it (unless the interface has unexported methods, which no
// type outside its package can implement). Additions elsewhere pass. What
// the lines do not show (the methods and fields of an unexported type
// that an exported function returns) is left to
// golang.org/x/exp/cmd/apidiff, run against the tagged release. The
// frozen records are written, for the release to be tagged v1.0.0 once
// all of its API changes are in, by
//
//	go run ./internal/apidump -freeze
//
// and committed; at a later v1 minor release, once -check passes, run it
// again so that the release's additions are held too.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/constant"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// modules are the modules recorded: their directory, their record, and
// their frozen v1 record ("" for a module still at v0, such as sqlstore,
// whose record is kept but promises nothing yet).
var modules = []struct{ dir, file, frozen string }{
	{".", "api/countersign.txt", "api/v1.txt"},
	{"redisstore", "redisstore/api.txt", "redisstore/api-v1.txt"},
	{"sqlstore", "sqlstore/api.txt", ""},
}

const (
	header       = "# The exported API, one line per identifier. Generated: go run ./internal/apidump\n"
	frozenHeader = "# The v1 API, frozen: every line must stay (go run ./internal/apidump -check). Written by go run ./internal/apidump -freeze\n"
)

func main() {
	root := flag.String("C", ".", "the repository's root")
	check := flag.Bool("check", false, "check that the API is compatible with the frozen v1 records, and write nothing")
	freeze := flag.Bool("freeze", false, "write the frozen v1 records from the current API")
	flag.Parse()
	if *check && *freeze {
		fmt.Fprintln(os.Stderr, "apidump: -check and -freeze exclude each other")
		os.Exit(2)
	}
	failed := false
	for _, m := range modules {
		lines, err := dump(filepath.Join(*root, m.dir))
		if err != nil {
			fmt.Fprintf(os.Stderr, "apidump: %s: %v\n", m.dir, err)
			os.Exit(1)
		}
		switch {
		case (*check || *freeze) && m.frozen == "":
			// a v0 module: nothing frozen, nothing to check
		case *check:
			frozen, err := readRecord(filepath.Join(*root, m.frozen))
			if err != nil {
				fmt.Fprintf(os.Stderr, "apidump: %v (write it with go run ./internal/apidump -freeze)\n", err)
				os.Exit(1)
			}
			if problems := incompatible(frozen, lines); len(problems) > 0 {
				failed = true
				fmt.Fprintf(os.Stderr, "apidump: the API of %s is incompatible with the frozen %s:\n", m.dir, m.frozen)
				for _, p := range problems {
					fmt.Fprintln(os.Stderr, "\t"+p)
				}
			}
		case *freeze:
			write(filepath.Join(*root, m.frozen), frozenHeader, lines)
		default:
			write(filepath.Join(*root, m.file), header, lines)
		}
	}
	if failed {
		fmt.Fprintln(os.Stderr, "apidump: restore what the frozen records hold (add a new name rather than change an old one); "+
			"a v1 module may not break its users")
		os.Exit(1)
	}
}

// write writes a record, or exits.
func write(file, header string, lines []string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "apidump:", err)
		os.Exit(1)
	}
	data := header + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "apidump:", err)
		os.Exit(1)
	}
}

// readRecord returns the lines of a record, without comments and blank
// lines.
func readRecord(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var lines []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines, nil
}

type listed struct {
	ImportPath string
	Name       string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
}

// dump returns the API lines of the module in dir, sorted.
func dump(dir string) ([]string, error) {
	modPath, err := goCmd(dir, "list", "-m", "-f", "{{.Path}}")
	if err != nil {
		return nil, err
	}
	modPath = strings.TrimSpace(modPath)
	out, err := goCmd(dir, "list", "-export", "-deps", "-json=ImportPath,Name,Export,GoFiles,Module", "./...")
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	var pkgs []string
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		exports[p.ImportPath] = p.Export
		if p.Module == nil || p.Module.Path != modPath || p.Name == "main" || len(p.GoFiles) == 0 ||
			slices.Contains(strings.Split(p.ImportPath, "/"), "internal") {
			continue
		}
		pkgs = append(pkgs, p.ImportPath)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, path := range pkgs {
		pkg, err := imp.Import(path)
		if err != nil {
			return nil, err
		}
		lines = append(lines, pkgLines(pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// pkgLines returns the API lines of one package.
func pkgLines(pkg *types.Package) []string {
	w := &writer{pkg: pkg}
	prefix := "pkg " + pkg.Path() + ", "
	var lines []string
	add := func(s string) { lines = append(lines, prefix+s) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			s := "const " + name
			if b, ok := obj.Type().(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
				s += " " + w.typ(obj.Type())
			}
			add(s + " = " + constValue(obj.Val()))
		case *types.Var:
			add("var " + name + " " + w.typ(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func " + name + w.typeParams(sig.TypeParams()) + w.signature(sig))
		case *types.TypeName:
			for _, s := range w.typeLines(obj) {
				add(s)
			}
		}
	}
	return lines
}

// typeLines returns the lines of a type declaration: the type, its fields
// or interface methods, and its methods.
func (w *writer) typeLines(obj *types.TypeName) []string {
	name := obj.Name()
	if obj.IsAlias() {
		return []string{"type " + name + " = " + w.typ(types.Unalias(obj.Type()))}
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return []string{"type " + name + " " + w.typ(obj.Type())}
	}
	decl := "type " + name + w.typeParams(named.TypeParams())
	var lines []string
	switch u := named.Underlying().(type) {
	case *types.Struct:
		lines = append(lines, decl+" struct")
		if types.Comparable(named) {
			lines = append(lines, decl+" struct, comparable")
		}
		for f := range u.Fields() {
			switch {
			case f.Embedded() && f.Exported():
				lines = append(lines, decl+" struct, embedded "+w.typ(f.Type()))
			case f.Exported():
				lines = append(lines, decl+" struct, "+f.Name()+" "+w.typ(f.Type()))
			}
		}
		// The exported fields of an unexported embedded struct are
		// promoted: users can name them.
		for _, name := range promotedFields(u, 0) {
			// The field the name selects, if no shallower one hides it
			// and no other at its depth makes it ambiguous.
			sel, index, _ := types.LookupFieldOrMethod(named, false, obj.Pkg(), name)
			if f, ok := sel.(*types.Var); ok && f.IsField() && len(index) > 1 {
				lines = append(lines, decl+" struct, "+name+" "+w.typ(f.Type())+" (promoted)")
			}
		}
	case *types.Interface:
		var names []string
		unexported := false
		for m := range u.Methods() {
			if !m.Exported() {
				unexported = true
				continue
			}
			names = append(names, m.Name())
			lines = append(lines, decl+" interface, "+m.Name()+w.signature(m.Type().(*types.Signature)))
		}
		if unexported {
			names = append(names, "unexported methods")
		}
		if u.IsMethodSet() {
			lines = append(lines, decl+" interface { "+strings.Join(names, ", ")+" }")
		} else {
			lines = append(lines, decl+" "+w.typ(u))
		}
		return lines
	default:
		lines = append(lines, decl+" "+w.typ(u))
	}

	// Methods, declared and promoted: on the value receiver when the value's
	// method set has them, else on the pointer.
	recv := name
	if tp := named.TypeParams(); tp.Len() > 0 {
		var args []string
		for p := range tp.TypeParams() {
			args = append(args, p.Obj().Name())
		}
		recv += "[" + strings.Join(args, ", ") + "]"
	}
	valueSet := types.NewMethodSet(named)
	ptrSet := types.NewMethodSet(types.NewPointer(named))
	for sel := range ptrSet.Methods() {
		m := sel.Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		r := "*" + recv
		if valueSet.Lookup(m.Pkg(), m.Name()) != nil {
			r = recv
		}
		lines = append(lines, "method ("+r+") "+m.Name()+w.signature(m.Type().(*types.Signature)))
	}
	return lines
}

// promotedFields returns the names of the exported fields of the
// unexported structs s embeds, and of the unexported structs those embed.
func promotedFields(s *types.Struct, depth int) []string {
	var names []string
	for f := range s.Fields() {
		if !f.Embedded() || f.Exported() || depth > 8 {
			continue
		}
		t := f.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		inner, ok := t.Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for g := range inner.Fields() {
			if g.Exported() {
				names = append(names, g.Name())
			}
		}
		names = append(names, promotedFields(inner, depth+1)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func constValue(v constant.Value) string {
	if v.Kind() == constant.Float {
		return v.String()
	}
	return v.ExactString()
}

// writer prints types without parameter names, qualified by package name
// outside the package recorded.
type writer struct{ pkg *types.Package }

func (w *writer) qualifier(p *types.Package) string {
	if p == w.pkg {
		return ""
	}
	return p.Name()
}

func (w *writer) typeParams(tp *types.TypeParamList) string {
	if tp.Len() == 0 {
		return ""
	}
	var parts []string
	for p := range tp.TypeParams() {
		parts = append(parts, p.Obj().Name()+" "+w.typ(p.Constraint()))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature prints (params) results.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	b.WriteString("(")
	params := sig.Params()
	for i := range params.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := params.At(i).Type()
		if sig.Variadic() && i == params.Len()-1 {
			b.WriteString("..." + w.typ(t.(*types.Slice).Elem()))
		} else {
			b.WriteString(w.typ(t))
		}
	}
	b.WriteString(")")
	res := sig.Results()
	switch res.Len() {
	case 0:
	case 1:
		b.WriteString(" " + w.typ(res.At(0).Type()))
	default:
		b.WriteString(" (")
		for i := range res.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(w.typ(res.At(i).Type()))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (w *writer) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Signature:
		return "func" + w.signature(t)
	case *types.Pointer:
		return "*" + w.typ(t.Elem())
	case *types.Slice:
		return "[]" + w.typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), w.typ(t.Elem()))
	case *types.Map:
		return "map[" + w.typ(t.Key()) + "]" + w.typ(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + w.typ(t.Elem())
		case types.RecvOnly:
			return "<-chan " + w.typ(t.Elem())
		}
		return "chan " + w.typ(t.Elem())
	}
	return types.TypeString(t, w.qualifier)
}
