package redisstore_test

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill cmd if the test binary dies first, so
// that no redis-server outlives a crashed or timed-out test.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
