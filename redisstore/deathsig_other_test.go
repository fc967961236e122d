//go:build !linux

package redisstore_test

import (
	"os/exec"
)

// setDeathSignal does nothing here: only Linux has a parent-death signal.
func setDeathSignal(*exec.Cmd) {}
