package bench

import "testing"

// reportCPU reports the process's CPU time per operation since start, as
// cpu-ns/op, where it can be measured: call it after b.Loop's loop with
// what processCPU returned before it. Wall time counts the time the
// benchmark waited for a core; on a loaded machine this does not.
func reportCPU(b *testing.B, f func()) {
	start, ok := processCPU()
	f()
	end, ok2 := processCPU()
	if ok && ok2 && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}
