package countersign_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeDemoModules checks what the README says the demo downloads
// before it runs offline: the modules it names are those the demo's
// packages come from, and "the tests need N more" counts those the tests
// add. A fresh clone's first go run fetches them, so "offline" alone was
// not true (issue 40, item 13).
func TestReadmeDemoModules(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	para := regexp.MustCompile(`(?s)The demo needs no credentials, and no network once Go has the (\w+) modules it\s+builds on \(([^;]*); the tests need (\w+) more\)`).FindSubmatch(readme)
	if para == nil {
		t.Fatal(`README.md: no "The demo needs no credentials, and no network once Go has the N modules it builds on (...; the tests need N more)"`)
	}
	var named []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(para[2], -1) {
		named = append(named, string(m[1]))
	}
	slices.Sort(named)

	demo := depModules(t, "./examples/quickstart")
	if !slices.Equal(named, demo) {
		t.Errorf("README.md names %q as the demo's modules; it builds on %q", named, demo)
	}
	if want := numberWord(len(demo)); string(para[1]) != want {
		t.Errorf("README.md says the demo builds on %s modules; it is %s", para[1], want)
	}
	all := depModules(t, "-test", "./...")
	if want := numberWord(len(all) - len(demo)); string(para[3]) != want {
		t.Errorf("README.md says the tests need %s more modules; they need %s (%q)", para[3], want, all)
	}
}

// depModules returns the modules other than this one that the packages
// go list args lists depend on, sorted.
func depModules(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	var mods []string
	for _, m := range strings.Fields(string(out)) {
		if m != "github.com/countersign/countersign" && !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	slices.Sort(mods)
	return mods
}

func numberWord(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n < len(words) {
		return words[n]
	}
	return "many"
}
