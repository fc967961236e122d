//go:build !unix

package yearsim

import "time"

// ProcessCPU is not measured here.
func ProcessCPU() time.Duration { return 0 }
