//go:build unix

package basestring

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time, user and system, the process has used:
// on a shared machine it leaves out the time a search waited for a core,
// which its wall time counts.
func processCPU() (time.Duration, bool) {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
