package notice

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A hostile provider's headers cannot make a client work or allocate in
// proportion to their size (issue 35, item 4): Read looks at a few links
// of a few KiB, and keeps no byte of a header once it returns. Before,
// one 10 MiB Link header of empty links made Read allocate about 470 MB.
func TestReadBounded(t *testing.T) {
	const size = 10 << 20
	guide := `<https://developer.example.com/migrate>; rel="deprecation"`
	many := make([]string, 100000)
	for i := range many {
		many[i] = "<>"
	}
	for _, tt := range []struct {
		name string
		h    http.Header
		want Notice
	}{
		{"10 MiB of empty links", http.Header{"Link": {strings.Repeat("<>,", size/3)}}, Notice{}},
		{"10 MiB of empty links, the guide last", http.Header{"Link": {strings.Repeat("<>,", size/3) + guide}}, Notice{}},
		{"the guide, then 10 MiB of empty links", http.Header{"Link": {guide + "," + strings.Repeat("<>,", size/3)}},
			Notice{Link: "https://developer.example.com/migrate"}},
		{"100,000 Link fields", http.Header{"Link": append(many, guide)}, Notice{}},
		{"a 10 MiB link-value of parameters", http.Header{"Link": {"<https://a.example/>" + strings.Repeat(`; rel="x"`, size/9)}}, Notice{}},
		{"a 10 MiB quoted rel", http.Header{"Link": {`<https://a.example/>; rel="` + strings.Repeat(`\d`, size/2) + `"`}}, Notice{}},
		{"10 MiB of commas", http.Header{"Link": {strings.Repeat(",", size)}}, Notice{}},
		{"a 10 MiB Sunset", http.Header{"Sunset": {strings.Repeat("Sun, 30 Jun 2024 23:59:59 GMT ", size/30)}}, Notice{}},
		{"a 10 MiB Deprecation", http.Header{"Deprecation": {"@1" + strings.Repeat(";a", size/2)}}, Notice{}},
		{"100,000 Deprecation fields", http.Header{"Deprecation": many}, Notice{}},
	} {
		var got Notice
		n := allocated(func() { got = Read(tt.h) })
		if got != tt.want {
			t.Errorf("%s: Read = %+v, want %+v", tt.name, got, tt.want)
		}
		t.Logf("%s: %d bytes", tt.name, n)
		// A few links of a few KiB, and the Link kept, copied.
		if n > 64<<10 {
			t.Errorf("%s: Read allocated %d bytes, want at most 64 KiB", tt.name, n)
		}
	}
}

// BenchmarkRead is the cost a sunset.Transport adds to a response that
// announces a retirement as package sunset's Policy writes it.
func BenchmarkRead(b *testing.B) {
	h := http.Header{
		"Deprecation": {"@1780272000"},
		"Sunset":      {"Thu, 31 Dec 2026 23:59:59 GMT"},
		"Link": {`<https://developer.example.com/oauth2-migration>; rel="deprecation"`,
			`<https://developer.example.com/oauth2-migration>; rel="sunset"`},
	}
	b.ReportAllocs()
	for b.Loop() {
		Read(h)
	}
}
