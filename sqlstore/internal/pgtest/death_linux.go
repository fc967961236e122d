package pgtest

import "syscall"

// setDeathSignal has the kernel kill postgres when the test process dies,
// so that a test killed by its timeout leaves no server behind.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
