package countersign_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// readmeImports are the packages a README snippet may use; it is type-checked
// with all of them imported, unused ones being no error.
var readmeImports = []string{
	"context", "fmt", "log", "net/http", "os", "strings", "time",
	"github.com/countersign/countersign/oauth1",
	"github.com/countersign/countersign/oauth1/server",
	"github.com/countersign/countersign/oauth1/sunset",
}

// TestReadmeGoSnippets type-checks every Go block of README.md against the
// module as it is, so that the front page never shows an API that is gone.
// A block's paragraphs that declare a type or a func stay at the top level;
// the others are the body of a function. Unused variables and imports, which
// a snippet shown alone has, are no error.
func TestReadmeGoSnippets(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)\n```go\n(.*?)```").FindAllSubmatchIndex(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("README.md: no Go block")
	}
	imp := exportImporter(t, readmeImports)
	for _, b := range blocks {
		line := 1 + bytes.Count(readme[:b[2]], []byte("\n"))
		src := snippetFile(string(readme[b[2]:b[3]]))
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "snippet.go", src, 0)
		if err != nil {
			t.Errorf("README.md:%d: the Go block does not parse: %v\n%s", line, err, src)
			continue
		}
		conf := types.Config{Importer: imp, Error: func(err error) {
			if te := err.(types.Error); !te.Soft {
				t.Errorf("README.md:%d: the Go block does not compile: %s", line, te.Msg)
			}
		}}
		conf.Check("snippet", fset, []*ast.File{f}, nil)
	}
}

// snippetFile makes a Go file of a README block: its type and func
// paragraphs at the top level, the rest in the body of main.
func snippetFile(block string) string {
	var decls, body strings.Builder
	for _, para := range strings.Split(block, "\n\n") {
		first := ""
		for l := range strings.Lines(para) {
			if !strings.HasPrefix(l, "//") {
				first = l
				break
			}
		}
		if strings.HasPrefix(first, "type ") || strings.HasPrefix(first, "func ") {
			decls.WriteString(para + "\n\n")
		} else {
			body.WriteString(para + "\n")
		}
	}
	var src strings.Builder
	src.WriteString("package snippet\n\nimport (\n")
	for _, p := range readmeImports {
		fmt.Fprintf(&src, "\t%q\n", p)
	}
	fmt.Fprintf(&src, ")\n\n%s\nfunc main() {\n%s}\n", decls.String(), body.String())
	return src.String()
}

// exportImporter imports packages from the export data the go command
// builds for them, as the compiler would.
func exportImporter(t *testing.T, pkgs []string) types.Importer {
	t.Helper()
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build export data:", err)
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}"}, pkgs...)
	out, err := exec.Command(gocmd, args...).Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	files := map[string]string{}
	for l := range strings.Lines(string(out)) {
		if path, file, ok := strings.Cut(strings.TrimSpace(l), "="); ok {
			files[path] = file
		}
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
}

// TestExampleReadmes checks that every example has a README of its own
// that gives the command running it, as README.md promises.
func TestExampleReadmes(t *testing.T) {
	dirs, err := os.ReadDir("examples")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		n++
		b, err := os.ReadFile("examples/" + d.Name() + "/README.md")
		if err != nil {
			t.Errorf("examples/%s has no README.md: %v", d.Name(), err)
			continue
		}
		// An example with a go.mod of its own runs from its directory.
		cmd := "go run ./examples/" + d.Name()
		if _, err := os.Stat("examples/" + d.Name() + "/go.mod"); err == nil {
			cmd = "cd examples/" + d.Name() + " && go run ."
		}
		if !strings.Contains(string(b), cmd) {
			t.Errorf("examples/%s/README.md does not give the command that runs it (%s)", d.Name(), cmd)
		}
	}
	if n < 6 {
		t.Errorf("%d examples, want at least 6", n)
	}
}
