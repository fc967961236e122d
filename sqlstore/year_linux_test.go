package sqlstore_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procStat returns the fields of /proc/pid/stat after the command's name,
// the first being the state (field 3).
func procStat(pid string) []string {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// parentOf returns the parent process id of pid, or 0.
func parentOf(pid int) int {
	f := procStat(strconv.Itoa(pid))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// serverCPU returns the CPU time (user and system) that the PostgreSQL
// whose postmaster is pid has used: the postmaster's and its reaped
// children's, and that of its children alive now.
func serverCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	// Fields 14 to 17: utime, stime, cutime, cstime, in clock ticks
	// (100 a second on Linux).
	ticks := func(f []string, n int) (sum int64) {
		for i := 11; i < 11+n && i < len(f); i++ {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			sum += v
		}
		return sum
	}
	sum := ticks(procStat(strconv.Itoa(pid)), 4)
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		if f := procStat(d.Name()); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			sum += ticks(f, 4)
		}
	}
	return time.Duration(sum) * 10 * time.Millisecond
}
