//go:build !unix

package bench

import "time"

// processCPU is not measured here: no cpu-ns/op is reported.
func processCPU() (time.Duration, bool) { return 0, false }
