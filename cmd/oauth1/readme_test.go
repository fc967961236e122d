package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readme is the command's manual, cmd/oauth1/README.md; repoRoot is where
// its commands run, as a reader runs them from a clone.
const (
	readme   = "README.md"
	repoRoot = "../.."
)

// TestReadme runs the commands of every ```console block in
// cmd/oauth1/README.md and checks the output shown under each, so that the
// manual never shows output the command does not give. With -update it
// rewrites the outputs in place. The blocks use a tiny shell: "$ export
// NAME=value" and "$ NAME=value" set variables, "$VAR" and "${VAR}" expand,
// '...' and "..." quote, a trailing backslash continues the line,
// "< FILE" reads stdin from FILE relative to the repository root (a file
// that does not exist there fails the test), and "$ echo $?" prints the
// last exit status.
func TestReadme(t *testing.T) {
	doc, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(doc), "\n")
	var out []string
	vars := map[string]string{}
	status := 0
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if lines[i] != "```console" {
			continue
		}
		// One block: commands, each followed by its output.
		var got, want strings.Builder
		var block []string
		j := i + 1
		for ; j < len(lines) && lines[j] != "```"; j++ {
			block = append(block, lines[j])
		}
		for k := 0; k < len(block); k++ {
			l := block[k]
			if !strings.HasPrefix(l, "$ ") {
				want.WriteString(l + "\n")
				continue
			}
			cmdLine := strings.TrimPrefix(l, "$ ")
			got.WriteString(l + "\n")
			want.WriteString(l + "\n")
			for strings.HasSuffix(cmdLine, "\\") && k+1 < len(block) {
				k++
				cmdLine = strings.TrimSuffix(cmdLine, "\\") + "\n" + block[k]
				got.WriteString(block[k] + "\n")
				want.WriteString(block[k] + "\n")
			}
			got.WriteString(shell(t, cmdLine, vars, &status))
		}
		if *update {
			out = append(out, strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")...)
		} else if got.String() != want.String() {
			t.Errorf("%s:%d: console block output differs (-want +got):\n-%s\n+%s", readme, i+1, want.String(), got.String())
			out = append(out, block...)
		} else {
			out = append(out, block...)
		}
		i = j - 1
	}
	if *update {
		if err := os.WriteFile(readme, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shell runs one command line of a console block and returns its output.
func shell(t *testing.T, line string, vars map[string]string, status *int) string {
	t.Helper()
	words := splitWords(t, line, vars)
	if len(words) == 0 {
		return ""
	}
	if words[0] == "export" {
		words = words[1:]
	}
	if name, value, ok := strings.Cut(words[0], "="); ok && len(words) == 1 {
		vars[name] = value
		return ""
	}
	if len(words) == 2 && words[0] == "echo" && words[1] == "$?" {
		return fmt.Sprintln(*status)
	}
	if words[0] != "oauth1" {
		t.Fatalf("console block: cannot run %q", line)
	}
	var stdin []byte
	args := words[1:]
	if n := len(args); n >= 2 && args[n-2] == "<" {
		var err error
		if stdin, err = os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(args[n-1]))); err != nil {
			t.Fatalf("console block: %q: %v (paths are relative to the repository root)", line, err)
		}
		args = args[:n-2]
	}
	var stdout, stderr bytes.Buffer
	*status = run(args, bytes.NewReader(stdin), &stdout, &stderr, func(k string) string { return vars[k] })
	return stdout.String() + stderr.String()
}

// splitWords splits a command line into words as sh does, for the quoting
// the README uses; "$?" is kept as it is.
func splitWords(t *testing.T, s string, vars map[string]string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	expand := func(i int) int { // s[i] == '$'; returns the index after the name
		j := i + 1
		if j < len(s) && s[j] == '?' {
			w.WriteString("$?")
			return j + 1
		}
		brace := j < len(s) && s[j] == '{'
		if brace {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || 'A' <= s[k] && s[k] <= 'Z' || 'a' <= s[k] && s[k] <= 'z' || '0' <= s[k] && s[k] <= '9') {
			k++
		}
		w.WriteString(vars[s[j:k]])
		if brace {
			k++
		}
		return k
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			i++
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				t.Fatalf("unterminated ' in %q", s)
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 2
			inWord = true
		case c == '"':
			i++
			for i < len(s) && s[i] != '"' {
				if s[i] == '$' {
					i = expand(i)
					continue
				}
				w.WriteByte(s[i])
				i++
			}
			i++
			inWord = true
		case c == '$':
			i = expand(i)
			inWord = true
		default:
			w.WriteByte(c)
			i++
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}
