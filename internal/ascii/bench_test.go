package ascii

import (
	"runtime"
	"strings"
	"testing"
)

func fill(pattern string, n int) string {
	return strings.Repeat(pattern, n/len(pattern)+1)[:n]
}

// countInputs are the strings that signing counts the escapes of: the short
// protocol values and URIs of every request, and the long texts of query
// strings and form bodies (the mixed text is bench/percent_test.go's).
var countInputs = []struct{ name, s string }{
	{"timestamp", "1318622958"},
	{"nonce", "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"},
	{"token", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"},
	{"uri", "https://example.com/1.1/statuses/show.json"},
	{"status", "Hello Ladies + Gentlemen, a signed OAuth request!"},
	{"mixed256", fill("Ladies + Gentlemen, ¿Qué tal? 中文 ☃ status=a/b?c&d=e! (100%) ", 256)},
	{"mixed1k", fill("Ladies + Gentlemen, ¿Qué tal? 中文 ☃ status=a/b?c&d=e! (100%) ", 1024)},
	{"unreserved1k", fill("abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789.~", 1024)},
}

var countSink int

// BenchmarkCountEscapes reports, besides sec/op, the CPU time of the
// benchmark's own thread per call (cpu-ns/op, where the system has it):
// on a shared machine wall time also counts the time the thread waited
// for a core, and drifts by tens of percent from run to run.
func BenchmarkCountEscapes(b *testing.B) {
	for _, in := range countInputs {
		b.Run("in="+in.name+"/type=string", func(b *testing.B) {
			s := in.s
			b.SetBytes(int64(len(s)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0, ok := threadCPU()
			for range b.N {
				countSink = CountEscapes(s)
			}
			reportCPU(b, t0, ok)
		})
	}
	// Form bodies are counted as bytes.
	for _, in := range countInputs[len(countInputs)-2:] {
		b.Run("in="+in.name+"/type=bytes", func(b *testing.B) {
			s := []byte(in.s)
			b.SetBytes(int64(len(s)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			t0, ok := threadCPU()
			for range b.N {
				countSink = CountEscapes(s)
			}
			reportCPU(b, t0, ok)
		})
	}
}

func reportCPU(b *testing.B, t0 int64, ok bool) {
	if t1, ok1 := threadCPU(); ok && ok1 {
		b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
	}
}
