package ascii

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time of the calling thread in nanoseconds.
func threadCPU() (int64, bool) {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), errno == 0
}
