//go:build !linux

package ascii

// threadCPU is not available here; the benchmarks report sec/op alone.
func threadCPU() (int64, bool) { return 0, false }
