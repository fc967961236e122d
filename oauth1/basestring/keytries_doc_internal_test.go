package basestring

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// hmacCount finds "N HMACs" in flattened text.
var hmacCount = regexp.MustCompile(`\b(\d[\d,]*) HMACs\b`)

// TestKeyTriesDocumented checks that the docs give KeyMistake's bound as
// it is, mac.MaxKeyTries: KeyMistake's own doc says it, and every
// sentence of the repository's Go comments and Markdown that gives a
// number of HMACs next to KeyMistake's name (in it, or in the sentence
// before or after) gives a bound this package has: KeyMistake's, or those
// of Reproduce and ReproduceWide that the same paragraphs describe. The
// bound grew from 23 to 25 while three docs still said 23 (issue 40, item
// 13). CHANGELOG.md and changes/ tell history and are left out.
func TestKeyTriesDocumented(t *testing.T) {
	want := strconv.Itoa(mac.MaxKeyTries)
	bounds := map[string]bool{want: true, strconv.Itoa(maxReproduceTries): true,
		strconv.Itoa(wideBudget.hmacs): true, "2,048": wideBudget.hmacs == 2048}
	found := 0
	check := func(where, sentence string, ok func(n string) bool) {
		for _, m := range hmacCount.FindAllStringSubmatch(sentence, -1) {
			if m[1] == want {
				found++
			}
			if !ok(m[1]) {
				t.Errorf("%s: %q gives %s HMACs next to KeyMistake, whose bound is mac.MaxKeyTries = %s", where, sentence, m[1], want)
			}
		}
	}
	src, err := os.ReadFile("keys.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, ok := funcDoc(string(src), "KeyMistake")
	if !ok {
		t.Fatal("keys.go: no doc comment on func KeyMistake")
	}
	check("keys.go, KeyMistake's doc", doc, func(n string) bool { return n == want })

	root := filepath.Join("..", "..")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "changes" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "CHANGELOG.md" || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sentences := splitSentences(flatten(string(b)))
		for i, s := range sentences {
			if !hmacCount.MatchString(s) {
				continue
			}
			near := s
			if i > 0 {
				near = sentences[i-1] + " " + near
			}
			if i+1 < len(sentences) {
				near += " " + sentences[i+1]
			}
			if strings.Contains(near, "KeyMistake") {
				check(p, s, func(n string) bool { return bounds[n] })
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 3 {
		t.Errorf("found %d statements of KeyMistake's bound, %s HMACs; its doc and two others give it", found, want)
	}
}

// funcDoc returns the doc comment of the function name in src, flattened.
func funcDoc(src, name string) (string, bool) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "func "+name+"(") {
			continue
		}
		j := i
		for j > 0 && strings.HasPrefix(lines[j-1], "//") {
			j--
		}
		return flatten(strings.Join(lines[j:i], "\n")), j < i
	}
	return "", false
}

// flatten joins text's lines into one, without comment markers, so that
// a sentence wrapped across lines is found whole.
func flatten(text string) string {
	var b strings.Builder
	for l := range strings.Lines(text) {
		l = strings.TrimSpace(l)
		l = strings.TrimSpace(strings.TrimPrefix(l, "//"))
		if l == "" {
			b.WriteString("\n") // a paragraph ends a sentence
			continue
		}
		b.WriteString(l + " ")
	}
	return b.String()
}

// splitSentences splits flattened text at ". " and at paragraph ends.
func splitSentences(text string) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		out = append(out, strings.Split(para, ". ")...)
	}
	return out
}
