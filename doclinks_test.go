package countersign_test

import (
	"go/ast"
	"go/build"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestDocNames checks that every name a comment of this repository's Go
// files gives as a doc link (a name in square brackets: Name, Type.Method,
// pkg.Name, pkg.Type.Field or an import path), and every plain "pkg.Name"
// of a package of this repository ("server.Verifier",
// "oauth1.Config.Sign"), names something that exists: a doc link to a name
// that does not is printed as plain text by go doc, and a renamed or
// removed name otherwise lingers in the docs unseen. Names are looked up
// in the source of the packages (this repository's, the standard
// library's and those of the modules required), fields, methods and the
// members of embedded types included.
func TestDocNames(t *testing.T) {
	t.Parallel()
	idx := newDocIndex(t)
	var problems []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		ip := modulePath
		if dir := filepath.ToSlash(filepath.Dir(p)); dir != "." {
			ip += "/" + dir
		}
		problems = append(problems, checkFileDocs(idx, p, ip)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// modulePath is the import path of the repository's root; redisstore and
// the other nested modules sit under it.
const modulePath = "github.com/countersign/countersign"

// checkFileDocs returns the names in the comments of the Go file p, of the
// package whose import path is self, that do not resolve.
func checkFileDocs(idx *docIndex, p, self string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return []string{err.Error()}
	}
	imports := map[string]string{}
	for _, s := range f.Imports {
		ip, _ := strconv.Unquote(s.Path.Value)
		name := path.Base(ip)
		if s.Name != nil {
			name = s.Name.Name
		}
		imports[name] = ip
	}
	var problems []string
	report := func(pos token.Pos, what string) {
		problems = append(problems, fset.Position(pos).String()+": "+what)
	}
	parserFor := &comment.Parser{
		LookupPackage: func(name string) (string, bool) {
			if ip, ok := imports[name]; ok {
				return ip, true
			}
			if ip, ok := idx.modulePackage(name); ok {
				return ip, true
			}
			if name == f.Name.Name {
				return self, true
			}
			return comment.DefaultLookupPackage(name)
		},
		// Every name in brackets becomes a link, so that it is checked
		// below: go doc's own lookup makes one that does not resolve plain
		// text.
		LookupSym: func(recv, name string) bool { return true },
	}
	for _, cg := range f.Comments {
		text := cg.Text()
		for _, m := range idx.plainName.FindAllStringSubmatch(text, -1) {
			ip, _ := idx.modulePackage(m[1]) // plainName matches these names only
			recv, name := "", m[2]
			if m[3] != "" {
				recv, name = m[2], m[3]
			}
			if !idx.resolves(ip, recv, name) {
				report(cg.Pos(), "comment names "+strings.Join(slices.DeleteFunc(m[1:], func(s string) bool { return s == "" }), ".")+", which does not exist")
			}
		}
		for _, l := range docLinks(parserFor.Parse(text)) {
			ip := l.ImportPath
			if ip == "" {
				ip = self
			}
			if l.Name == "" {
				if _, ok := idx.load(ip); !ok {
					report(cg.Pos(), "doc link to package "+ip+", which does not exist")
				}
				continue
			}
			if !idx.resolves(ip, l.Recv, l.Name) {
				report(cg.Pos(), "doc link ["+linkText(l)+"] names nothing in "+ip)
			}
		}
	}
	return problems
}

func linkText(l *comment.DocLink) string {
	var parts []string
	if l.ImportPath != "" {
		parts = append(parts, path.Base(l.ImportPath))
	}
	if l.Recv != "" {
		parts = append(parts, l.Recv)
	}
	return strings.Join(append(parts, l.Name), ".")
}

// docLinks returns the doc links of a parsed comment.
func docLinks(d *comment.Doc) []*comment.DocLink {
	var links []*comment.DocLink
	var walk func([]comment.Text)
	walk = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case *comment.DocLink:
				links = append(links, t)
			case *comment.Link:
				walk(t.Text)
			case comment.Italic, comment.Plain:
			}
		}
	}
	var blocks func([]comment.Block)
	blocks = func(bs []comment.Block) {
		for _, b := range bs {
			switch b := b.(type) {
			case *comment.Paragraph:
				walk(b.Text)
			case *comment.Heading:
				walk(b.Text)
			case *comment.List:
				for _, it := range b.Items {
					blocks(it.Content)
				}
			}
		}
	}
	blocks(d.Content)
	return links
}

// A docIndex knows the names each package declares, from its source: the
// top-level names, and for each type its fields and methods and the types
// it embeds.
type docIndex struct {
	// plainName matches a plain mention of a name of one of this
	// repository's packages, by the package's name: "server.Verifier",
	// "oauth1.Config.Sign".
	plainName *regexp.Regexp

	mu      sync.Mutex
	pkgs    map[string]*pkgNames // by import path; nil when not found
	byName  map[string]string    // this repository's packages by name
	modDirs map[string]string    // import path of this repository's packages → directory
}

type pkgNames struct {
	top      map[string]bool
	members  map[string]map[string]bool // type → fields and methods
	embedded map[string][][2]string     // type → embedded types, as import path and name
}

// newDocIndex returns an index of the packages of the repository, whose
// root is the working directory, and of those they name.
func newDocIndex(t *testing.T) *docIndex {
	idx := &docIndex{pkgs: map[string]*pkgNames{}, byName: map[string]string{}, modDirs: map[string]string{}}
	dup := map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		ip := modulePath
		if p != "." {
			ip += "/" + filepath.ToSlash(p)
		}
		idx.modDirs[ip] = p
		if pkg, err := build.ImportDir(p, 0); err == nil && pkg.Name != "main" && !strings.Contains(ip, "/internal/") {
			if _, ok := idx.byName[pkg.Name]; ok {
				dup[pkg.Name] = true
			}
			idx.byName[pkg.Name] = ip
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A name two packages have is not looked up by name.
	for name := range dup {
		delete(idx.byName, name)
	}
	names := slices.Sorted(maps.Keys(idx.byName))
	idx.plainName = regexp.MustCompile(`(?:^|[^\w./\[-])(` + strings.Join(names, "|") + `)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)
	return idx
}

func (idx *docIndex) modulePackage(name string) (string, bool) {
	ip, ok := idx.byName[name]
	return ip, ok
}

// load returns the names of the package at import path ip: one of this
// repository, of the standard library or of a module this one requires.
func (idx *docIndex) load(ip string) (*pkgNames, bool) {
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if p, ok := idx.pkgs[ip]; ok {
		return p, p != nil
	}
	dir, ok := idx.modDirs[ip]
	ours := ok
	if !ok {
		// The standard library, or a module this one requires (go/build
		// asks the go command where it is).
		if bp, err := build.Import(ip, ".", build.FindOnly); err == nil {
			dir, ok = bp.Dir, true
		}
	}
	var p *pkgNames
	if ok {
		p = parsePkgNames(dir, ours)
	}
	idx.pkgs[ip] = p
	return p, p != nil
}

// parsePkgNames reads the names declared in the Go files of dir, whatever
// their build constraints, and with tests its test files (for the
// comments of tests); nil if there are none.
func parsePkgNames(dir string, tests bool) *pkgNames {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	p := &pkgNames{top: map[string]bool{}, members: map[string]map[string]bool{}, embedded: map[string][][2]string{}}
	found := false
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || !tests && strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		found = true
		imports := map[string]string{}
		for _, s := range f.Imports {
			ip, _ := strconv.Unquote(s.Path.Value)
			name := path.Base(ip)
			if s.Name != nil {
				name = s.Name.Name
			}
			imports[name] = ip
		}
		member := func(typ, name string) {
			if p.members[typ] == nil {
				p.members[typ] = map[string]bool{}
			}
			p.members[typ][name] = true
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.top[d.Name.Name] = true
					continue
				}
				member(recvName(d.Recv.List[0].Type), d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							p.top[n.Name] = true
						}
					case *ast.TypeSpec:
						typ := s.Name.Name
						p.top[typ] = true
						var fields *ast.FieldList
						switch u := s.Type.(type) {
						case *ast.StructType:
							fields = u.Fields
						case *ast.InterfaceType:
							fields = u.Methods
						}
						if fields == nil {
							// An alias, or a type defined as another:
							// look in that one too (for a defined type,
							// its methods are not the other's, but its
							// fields are).
							if ip, name := embeddedType(s.Type, imports); name != "" {
								p.embedded[typ] = append(p.embedded[typ], [2]string{ip, name})
							}
							continue
						}
						for _, fld := range fields.List {
							for _, n := range fld.Names {
								member(typ, n.Name)
							}
							if len(fld.Names) == 0 {
								ip, name := embeddedType(fld.Type, imports)
								if name != "" {
									member(typ, name)
									p.embedded[typ] = append(p.embedded[typ], [2]string{ip, name})
								}
							}
						}
					}
				}
			}
		}
	}
	if !found {
		return nil
	}
	return p
}

// recvName returns the type name of a method's receiver.
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// embeddedType returns the import path ("" for the same package) and
// name of an embedded field's type.
func embeddedType(e ast.Expr, imports map[string]string) (string, string) {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return "", x.Name
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return imports[id.Name], x.Sel.Name
			}
			return "", ""
		default:
			return "", ""
		}
	}
}

// resolves reports whether the package at import path ip declares name
// (recv == "") or a type recv with a field or method name, its own or
// promoted from the types it embeds.
func (idx *docIndex) resolves(ip, recv, name string) bool {
	p, ok := idx.load(ip)
	if !ok {
		return false
	}
	if recv == "" {
		return p.top[name]
	}
	if !p.top[recv] {
		return false
	}
	seen := map[[2]string]bool{}
	var member func(ip, typ string) bool
	member = func(ip, typ string) bool {
		if seen[[2]string{ip, typ}] {
			return false
		}
		seen[[2]string{ip, typ}] = true
		p, ok := idx.load(ip)
		if !ok {
			return false
		}
		if p.members[typ][name] {
			return true
		}
		for _, e := range p.embedded[typ] {
			eip := e[0]
			if eip == "" {
				eip = ip
			}
			if member(eip, e[1]) {
				return true
			}
		}
		return false
	}
	return member(ip, recv)
}

// TestDocNamesCatches checks the check: on a file of comments, it reports
// the names that do not exist, and only those.
func TestDocNamesCatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		comment string
		bad     bool
	}{
		{"[oauth1.Config.Sign] signs.", false},
		{"[oauth1.Config.Signn] signs.", true},
		{"[oauth1.Config.MaxBodyBytes], a field.", false},
		{"zero means oauth1.DefaultMaxBodyBytes.", true},
		{"zero means oauth1.Config.MaxBodyBytes.", false},
		{"as server.Verifier does.", false},
		{"as server.Verifierr does.", true},
		{"as redisstore.NoSuchStore does.", true},
		{"see [server.ProblemError.Problem], promoted from oauth1.ProblemReport.", false},
		{"see [server.ProblemError.Nope].", true},
		{"[http.Request] and [net/http.Handler.ServeHTTP].", false},
		{"[http.Request.Nope].", true},
		{"[basestring.Mistake.Includes] and [percent.Encode].", false},
		{"the package [github.com/countersign/countersign/oauth1/server].", false},
		{"the package [github.com/countersign/countersign/oauth1/nope].", true},
		{"[Config] and [Config.Sign] in this file's package, oauth1.", false},
		{"[NoSuchName] in this file's package.", true},
		{"b[0] and [RFC 5849] and oauth1.0a are not names.", false},
	}
	dir := t.TempDir()
	idx := newDocIndex(t)
	for i, tt := range tests {
		p := filepath.Join(dir, "c"+strconv.Itoa(i)+".go")
		src := "package x\n\nimport \"net/http\"\n\n// " + tt.comment + "\nvar _ http.Handler\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		got := checkFileDocs(idx, p, modulePath+"/oauth1")
		if bad := len(got) > 0; bad != tt.bad {
			t.Errorf("%q: reported %q; want a report: %v", tt.comment, got, tt.bad)
		}
	}
}
