package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestDebianDriversListed checks that every Debian library is a driver
// -libs can name, and that the README's table and regenerate line name it.
func TestDebianDriversListed(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range debianDrivers {
		if drivers[name] == nil {
			t.Errorf("%s: not a driver", name)
		}
		if !strings.Contains(string(readme), "| `"+name+"` |") {
			t.Errorf("%s: not in the README's table", name)
		}
		if !regexp.MustCompile(`-libs \S*\b` + regexp.QuoteMeta(name) + `\b`).Match(readme) {
			t.Errorf("%s: not in the README's regenerate line", name)
		}
	}
}

// TestDebianVersion checks that debian versions each result by the
// package, then by what the driver reported, and names a package that is
// not installed.
func TestDebianVersion(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("no dpkg-query")
	}
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "dpkg").Output()
	if err != nil {
		t.Fatal(err)
	}
	d := debian("dpkg", func([]request) ([]result, error) {
		return []result{{ID: 1}, {ID: 2, Version: "inner 1.0"}}, nil
	})
	res, err := d(nil)
	if err != nil {
		t.Fatal(err)
	}
	v := "dpkg " + strings.TrimSpace(string(out))
	if res[0].Version != v || res[1].Version != v+" (inner 1.0)" {
		t.Errorf("versions %q and %q, want %q and %q", res[0].Version, res[1].Version, v, v+" (inner 1.0)")
	}
	if _, err := debian("no-such-package-here", d)(nil); err == nil || !strings.Contains(err.Error(), "no-such-package-here") {
		t.Errorf("a package not installed: error %v", err)
	}
}
