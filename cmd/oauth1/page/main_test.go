package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"regexp"
	"strings"
	"testing"
)

// The page built from a stand-in program: each inline script and the style
// are allowed by the policy under their own SHA-256, computed here from the
// built file, and nothing else is; nothing in the page loads anything; and
// the data block unpacks to the program. The page's behaviour in a browser
// is tested in pagetest, with Chromium.
func TestAssemble(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm stand-in program "), 1000)
	const wasmExec = `"use strict"; globalThis.Go = class {};`
	page, err := assemble(wasm, wasmExec)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)

	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no Content-Security-Policy meta tag")
	}
	directives := map[string][]string{}
	for _, d := range strings.Split(m[1], ";") {
		f := strings.Fields(d)
		directives[f[0]] = f[1:]
	}
	sources := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	var scripts []string
	for _, s := range regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		scripts = append(scripts, sources(s[1]))
	}
	if len(scripts) != 2 {
		t.Fatalf("%d inline scripts, want page.js and wasm_exec.js", len(scripts))
	}
	want := append(scripts, "'wasm-unsafe-eval'")
	if got := strings.Join(directives["script-src"], " "); got != strings.Join(want, " ") {
		t.Errorf("script-src %s, want %s", got, strings.Join(want, " "))
	}
	styles := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(html, -1)
	if len(styles) != 1 || strings.Join(directives["style-src"], " ") != sources(styles[0][1]) {
		t.Errorf("style-src %v does not allow the one style", directives["style-src"])
	}
	for _, d := range []string{"default-src", "connect-src", "img-src", "form-action", "base-uri"} {
		if got := strings.Join(directives[d], " "); got != "'none'" {
			t.Errorf("%s %q, want 'none'", d, got)
		}
	}
	if len(directives) != 7 {
		t.Errorf("directives %v, want the 7 above", directives)
	}
	// Nothing that loads: no src or href attribute, no form, no link.
	if loads := regexp.MustCompile(`(?i)<[a-z]+[^>]*\s(src|href|action|formaction|srcset)=|<form|<link`).FindAllString(html, -1); len(loads) > 0 {
		t.Errorf("elements that load or send: %q", loads)
	}
	// Every field is kept out of autofill and spellcheck.
	for _, f := range regexp.MustCompile(`<(textarea|input)[^>]*>`).FindAllString(html, -1) {
		if strings.Contains(f, `type="checkbox"`) {
			continue
		}
		if !strings.Contains(f, `autocomplete="off"`) || !strings.Contains(f, `spellcheck="false"`) {
			t.Errorf("%s lacks autocomplete=\"off\" or spellcheck=\"false\"", f)
		}
	}

	data := regexp.MustCompile(`<script type="application/octet-stream" id="oauth1-wasm">([A-Za-z0-9+/=]*)</script>`).FindStringSubmatch(html)
	if data == nil {
		t.Fatal("no data block holding the program in base64")
	}
	gz, err := base64.StdEncoding.DecodeString(data[1])
	if err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wasm) || !r.Header.ModTime.IsZero() || r.Header.Name != "" {
		t.Errorf("the data block unpacks to %d bytes (want the %d of the program), name %q, time %v (want none)", len(got), len(wasm), r.Header.Name, r.Header.ModTime)
	}

	again, err := assemble(wasm, wasmExec)
	if err != nil || !bytes.Equal(again, page) {
		t.Errorf("a second build differs (err %v)", err)
	}
}

// A script or style that would end its element early is refused: the
// page would run what follows it as markup.
func TestAssembleRefusesEndTag(t *testing.T) {
	if _, err := assemble([]byte("x"), "var s = '</SCRIPT>';"); err == nil {
		t.Error("a wasm_exec.js holding </SCRIPT> was inlined")
	}
}
