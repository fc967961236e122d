//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeStore puts an oauth1-store on PATH that prints its arguments and its
// standard input, writes a line to standard error and exits with status.
func fakeStore(t *testing.T, status string) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf 'args:'; for a in \"$@\"; do printf ' [%s]' \"$a\"; done; echo\ncat\necho 'from oauth1-store' >&2\nexit " + status + "\n"
	if err := os.WriteFile(filepath.Join(dir, "oauth1-store"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestStore(t *testing.T) {
	for _, tc := range []struct {
		status string
		code   int
	}{{"0", exitOK}, {"1", exitFailure}, {"3", 3}} {
		fakeStore(t, tc.status)
		r := runCmd(t, nil, "from stdin\n", "store", "migrate", "--db", "a b.db", "--dry-run")
		want := output{"args: [migrate] [--db] [a b.db] [--dry-run]\nfrom stdin\n", "from oauth1-store\n", tc.code}
		if r != want {
			t.Errorf("oauth1-store exiting %s: oauth1 store = %+v, want %+v", tc.status, r, want)
		}
	}
	fakeStore(t, "0")
	if r := runCmd(t, nil, "", "help", "store"); r.code != exitOK || r.stdout != "args: [-h]\n" {
		t.Errorf("oauth1 help store = %+v, want oauth1-store -h run", r)
	}
}

func TestStoreNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	r := runCmd(t, nil, "", "store", "migrate", "--db", "x.db")
	if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, "\tgo install github.com/countersign/countersign/sqlstore/cmd/oauth1-store@latest\n") {
		t.Errorf("oauth1 store without oauth1-store = %+v; want exit 2 and how to install it", r)
	}
}
