package bench

import (
	"net/url"
	"strings"
	"testing"

	"github.com/countersign/countersign/percent"
)

// fill repeats pattern to exactly n bytes. Cutting a multi-byte character
// at the end is harmless: every encoder measured here works on bytes.
func fill(pattern string, n int) string {
	return strings.Repeat(pattern, n/len(pattern)+1)[:n]
}

// The mixed text has the mix a signature base string sees: words, spaces,
// ASCII punctuation and reserved characters, and multi-byte UTF-8.
var escapeInputs = []struct{ name, s string }{
	{"mixed", fill("Ladies + Gentlemen, ¿Qué tal? 中文 ☃ status=a/b?c&d=e! (100%) ", 1024)},
	{"unreserved", fill("abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789.~", 1024)},
}

var sink string

// BenchmarkEscape names its sub-benchmarks key=value so that
// "benchstat -col /impl" puts the implementations side by side, with
// url.QueryEscape, run first, as the base column.
func BenchmarkEscape(b *testing.B) {
	for _, in := range escapeInputs {
		b.Run("text="+in.name+"/impl=QueryEscape", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				sink = url.QueryEscape(in.s)
			}
		})
		b.Run("text="+in.name+"/impl=PathEscape", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				sink = url.PathEscape(in.s)
			}
		})
		b.Run("text="+in.name+"/impl=Encode", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			for b.Loop() {
				sink = percent.Encode(in.s)
			}
		})
		b.Run("text="+in.name+"/impl=AppendEncode", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			b.ReportAllocs()
			// A buffer reused across calls, as a signer building base
			// strings one after another would keep it.
			buf := make([]byte, 0, 3*len(in.s))
			for b.Loop() {
				buf = percent.AppendEncode(buf[:0], in.s)
			}
		})
	}
}

var sinkErr error

// BenchmarkUnescape decodes the strict encodings of escapeInputs. Only
// url.PathUnescape is comparable: url.QueryUnescape turns '+' into a space.
func BenchmarkUnescape(b *testing.B) {
	for _, in := range escapeInputs {
		enc := percent.Encode(in.s)
		b.Run("text="+in.name+"/impl=PathUnescape", func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				sink, sinkErr = url.PathUnescape(enc)
			}
		})
		b.Run("text="+in.name+"/impl=Decode", func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			for b.Loop() {
				sink, sinkErr = percent.Decode(enc)
			}
		})
		b.Run("text="+in.name+"/impl=AppendDecode", func(b *testing.B) {
			b.SetBytes(int64(len(enc)))
			b.ReportAllocs()
			buf := make([]byte, 0, len(enc))
			for b.Loop() {
				buf, sinkErr = percent.AppendDecode(buf[:0], enc)
			}
		})
	}
}
