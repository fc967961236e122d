package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCommandSummaries checks that the manual's command summary (the
// first text block of README.md) lists the commands that doc.go's Usage
// lists, each with the same arguments: the manual lacked response,
// migrate and lti1p1 (issue 40, item 13).
func TestCommandSummaries(t *testing.T) {
	// A command and its arguments, single-spaced, then two spaces or more
	// and its description.
	line := regexp.MustCompile(`(?m)^(?://\t)?(oauth1(?: \S+)+)  +\S`)
	summary := func(file, text string) []string {
		var cmds []string
		for _, m := range line.FindAllStringSubmatch(text, -1) {
			cmds = append(cmds, m[1])
		}
		if len(cmds) < 5 {
			t.Fatalf("%s: found %d commands in its summary: %q", file, len(cmds), cmds)
		}
		return cmds
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	usage, _, ok := strings.Cut(string(doc), "\n//\n// sign --provider")
	if !ok {
		t.Fatal("doc.go: no usage block before its sign --provider paragraph")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```text\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("README.md: no text block")
	}
	want, got := summary("doc.go", usage), summary("README.md", block)
	for _, c := range want {
		if !slices.Contains(got, c) {
			t.Errorf("README.md's summary lacks %q, which doc.go lists", c)
		}
	}
	for _, c := range got {
		if !slices.Contains(want, c) {
			t.Errorf("README.md's summary lists %q, which doc.go does not", c)
		}
	}
}
