// Command page builds the OAuth 1.0a debugging page: one HTML file that
// runs "oauth1 verify" and "oauth1 diff" in the browser, built from
// cmd/oauth1 for WebAssembly, with nothing leaving the page.
//
// Run it from the module's root, or anywhere at a released version:
//
//	go run ./cmd/oauth1/page            # writes oauth1-debugger.html
//	go run ./cmd/oauth1/page -o FILE
//	go run github.com/countersign/countersign/cmd/oauth1/page@latest
//
// The file holds everything: the page (index.html, page.css, page.js), Go's
// wasm_exec.js and the WebAssembly program, gzipped and base64-encoded, so
// that it works opened from a file, offline, or from any static host. Its
// Content-Security-Policy allows its own inline scripts and style by hash,
// WebAssembly, and nothing else: no network request, no form, no frame.
//
// The build is reproducible: the same commit and Go version give the same
// file (-trimpath, no build id, no VCS stamp, a gzip header without a time).
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

var (
	//go:embed index.html
	indexHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

// command is the package the page runs, built for js/wasm.
const command = "github.com/countersign/countersign/cmd/oauth1"

func main() {
	out := flag.String("o", "oauth1-debugger.html", "`file` to write the page to")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./cmd/oauth1/page [-o FILE]\n\nBuilds the OAuth 1.0a debugging page, one self-contained HTML file.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := build(*out); err != nil {
		fmt.Fprintln(os.Stderr, "page:", err)
		os.Exit(1)
	}
}

func build(out string) error {
	tmp, err := os.MkdirTemp("", "oauth1-page-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir, err := sourceDir()
	if err != nil {
		return err
	}
	wasmPath := filepath.Join(tmp, "oauth1.wasm")
	gobuild := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid=", "-o", wasmPath, command)
	gobuild.Dir = dir
	gobuild.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	gobuild.Stdout, gobuild.Stderr = os.Stderr, os.Stderr
	if err := gobuild.Run(); err != nil {
		return fmt.Errorf("go build %s for js/wasm: %w", command, err)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return err
	}
	wasmExec, err := readWasmExec()
	if err != nil {
		return err
	}
	page, err := assemble(wasm, wasmExec)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, page, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d bytes (%d gzipped); WebAssembly %d bytes (%d gzipped)\n",
		out, len(page), len(gz(page)), len(wasm), len(gz(wasm)))
	return nil
}

// sourceDir returns the directory to build the command in: the module's
// copy in the module cache when this program was downloaded at a version
// (go run .../cmd/oauth1/page@v1.0.0), so that the page is built from that
// same version; else "", the current directory, in a clone of the module.
func sourceDir() (string, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Sum == "" { // a main module with a sum was downloaded
		return "", nil
	}
	out, err := exec.Command("go", "mod", "download", "-json", bi.Main.Path+"@"+bi.Main.Version).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", bi.Main.Path, bi.Main.Version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory in %.200q", bi.Main.Path, bi.Main.Version, out)
	}
	return m.Dir, nil
}

// readWasmExec reads the JavaScript support file of the Go that builds the
// program: they must match.
func readWasmExec() (string, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(goroot))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} { // Go 1.24 moved it to lib
		if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			return string(b), nil
		}
	}
	return "", fmt.Errorf("no wasm_exec.js in %s/lib/wasm or %s/misc/wasm", root, root)
}

// assemble fills index.html: the style and scripts inline, the program as
// gzip in base64, and a Content-Security-Policy that allows exactly those
// inline scripts and that style, by their SHA-256.
func assemble(wasm []byte, wasmExec string) ([]byte, error) {
	for name, s := range map[string]string{"page.js": pageJS, "wasm_exec.js": wasmExec, "page.css": pageCSS} {
		if strings.Contains(strings.ToLower(s), "</script") || strings.Contains(strings.ToLower(s), "</style") {
			return nil, fmt.Errorf("%s would end its element early", name)
		}
	}
	csp := strings.Join([]string{
		"default-src 'none'",
		"script-src " + hash(pageJS) + " " + hash(wasmExec) + " 'wasm-unsafe-eval'",
		"style-src " + hash(pageCSS),
		"connect-src 'none'",
		"img-src 'none'",
		"form-action 'none'",
		"base-uri 'none'",
	}, "; ")
	r := strings.NewReplacer(
		"{{CSP}}", csp,
		"{{STYLE}}", pageCSS,
		"{{PAGE_JS}}", pageJS,
		"{{WASM_EXEC_JS}}", wasmExec,
		"{{WASM}}", base64.StdEncoding.EncodeToString(gz(wasm)),
	)
	for _, marker := range []string{"{{CSP}}", "{{STYLE}}", "{{PAGE_JS}}", "{{WASM_EXEC_JS}}", "{{WASM}}"} {
		if strings.Count(indexHTML, marker) != 1 {
			return nil, errors.New("index.html must hold " + marker + " once")
		}
	}
	return []byte(r.Replace(indexHTML)), nil
}

// hash is a CSP source that allows an inline element whose text is s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// gz compresses b at the best level, with no name or time in its header.
func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	w.Write(b)
	w.Close()
	return buf.Bytes()
}
