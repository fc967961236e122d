package notice

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The dates of the RFCs' own examples: RFC 9745 §2.2 says
// "Deprecation: @1688169599" is Friday June 30, 2023 at 23:59:59 UTC, and
// RFC 8594 §3 uses "Sunset: Sat, 31 Dec 2018 23:59:59 GMT".
var (
	rfc9745Date = time.Date(2023, time.June, 30, 23, 59, 59, 0, time.UTC)
	rfc8594Date = time.Date(2018, time.December, 31, 23, 59, 59, 0, time.UTC)
)

func TestAppendDate(t *testing.T) {
	if got := string(AppendDate([]byte("Deprecation: "), rfc9745Date)); got != "Deprecation: @1688169599" {
		t.Errorf("AppendDate(%v) = %q, want %q", rfc9745Date, got, "Deprecation: @1688169599")
	}
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"@1688169599", rfc9745Date, true},
		{" @1688169599 ", rfc9745Date, true},
		{"@0", time.Unix(0, 0).UTC(), true},
		{"@-1", time.Unix(-1, 0).UTC(), true},
		{"@999999999999999", time.Unix(999999999999999, 0).UTC(), true},
		{"@1000000000000000", time.Time{}, false}, // 16 digits: over sf-integer
		{"1688169599", time.Time{}, false},
		{"@", time.Time{}, false},
		{"@-", time.Time{}, false},
		{"@+5", time.Time{}, false},
		{"@1.5", time.Time{}, false},
		{"true", time.Time{}, false},
		{"Fri, 30 Jun 2023 23:59:59 GMT", time.Time{}, false},
		{"@16881695\r\n99", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseDate(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseDate(%q) = %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRead(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxLink)
	tests := []struct {
		name string
		h    http.Header
		want Notice
	}{
		{"RFC examples", http.Header{
			"Deprecation": {"@1688169599"},
			"Sunset":      {"Sat, 31 Dec 2018 23:59:59 GMT"},
			"Link":        {`<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html"`},
		}, Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc8594Date, Link: "https://developer.example.com/deprecation"}},
		{"sunset link of RFC 8594", http.Header{
			"Sunset": {"Sat, 31 Dec 2018 23:59:59 GMT"},
			"Link":   {`<http://example.net/sunset>;rel="sunset";type="text/html"`},
		}, Notice{Sunset: rfc8594Date, Link: "http://example.net/sunset"}},
		{"deprecation link preferred", http.Header{
			"Link": {`<https://a.example/sunset>; rel=sunset, <https://a.example/dep>; rel="deprecation"`},
		}, Notice{Link: "https://a.example/dep"}},
		{"rel list and other links", http.Header{
			"Link": {`<https://a.example/next>; rel="next"`, `<https://a.example/m>; title="a, b; c"; rel="alternate Deprecation"`},
		}, Notice{Link: "https://a.example/m"}},
		{"first rel counts", http.Header{
			"Link": {`<https://a.example/x>; rel="next"; rel="deprecation"`},
		}, Notice{}},
		{"malformed dates left out", http.Header{
			"Deprecation": {"true"},
			"Sunset":      {"2018-12-31"},
		}, Notice{}},
		{"link with a space or control character left out", http.Header{
			"Link": {"<https://a.example/a b>; rel=deprecation", "<https://a.example/\x1b[31m>; rel=deprecation"},
		}, Notice{}},
		{"link too long left out", http.Header{
			"Link": {"<" + long + ">; rel=deprecation"},
		}, Notice{}},
		{"unterminated", http.Header{
			"Link": {`<https://a.example/a>; rel="deprecation`, `<https://a.example/b`},
		}, Notice{}},
	}
	for _, tt := range tests {
		if got := Read(tt.h); got != tt.want {
			t.Errorf("%s: Read(%q) = %+v, want %+v", tt.name, tt.h, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		n    Notice
		want string
	}{
		{Notice{}, ""},
		{Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc8594Date, Link: "https://a.example/m"},
			"the provider deprecated this API at 2023-06-30 23:59:59 UTC and retires it at 2018-12-31 23:59:59 UTC (see https://a.example/m)"},
		{Notice{Deprecated: true, Deprecation: rfc9745Date}, "the provider deprecated this API at 2023-06-30 23:59:59 UTC"},
		{Notice{Sunset: rfc8594Date}, "the provider retires this API at 2018-12-31 23:59:59 UTC"},
		{Notice{Link: "https://a.example/m"}, "the provider links a deprecation notice (see https://a.example/m)"},
	}
	for _, tt := range tests {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add("@1688169599", "Sat, 31 Dec 2018 23:59:59 GMT", `<https://a.example/>; rel="deprecation"`)
	f.Fuzz(func(t *testing.T, dep, sun, link string) {
		n := Read(http.Header{"Deprecation": {dep}, "Sunset": {sun}, "Link": {link}})
		if n.Link != "" && !printable(n.Link) {
			t.Fatalf("Read kept link %q", n.Link)
		}
		if s := n.String(); strings.ContainsAny(s, "\r\n\x1b") {
			t.Fatalf("String() = %q", s)
		}
	})
}
