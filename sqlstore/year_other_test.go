//go:build !linux

package sqlstore_test

import (
	"testing"
	"time"
)

// parentOf is not known here.
func parentOf(int) int { return 0 }

// serverCPU is not measured here.
func serverCPU(int) time.Duration { return 0 }

// durablePostgres skips b: the benchmark starts its PostgreSQL on Linux.
func durablePostgres(b testing.TB) string {
	b.Skip("the benchmark starts its PostgreSQL on Linux only")
	return ""
}
