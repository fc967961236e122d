//go:build !unix

package server

import "time"

// diagCPUTime is not known on this system.
func diagCPUTime() (time.Duration, bool) { return 0, false }
