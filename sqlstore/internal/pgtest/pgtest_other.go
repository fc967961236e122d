//go:build !unix

package pgtest

import (
	"os"
	"testing"
)

// Require is the environment variable that turns a missing PostgreSQL
// into a test failure.
const Require = "COUNTERSIGN_REQUIRE_POSTGRES"

// DSN skips t, or fails it with COUNTERSIGN_REQUIRE_POSTGRES=1: the
// harness runs PostgreSQL on Unix only.
func DSN(t testing.TB) string {
	t.Helper()
	if os.Getenv(Require) == "1" {
		t.Fatal("pgtest: PostgreSQL is started on Unix only")
	}
	t.Skip("pgtest: PostgreSQL is started on Unix only")
	return ""
}

// Stop does nothing.
func Stop() {}
