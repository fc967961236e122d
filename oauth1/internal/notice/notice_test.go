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
			"Deprecation": {"True"},
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
			"the provider deprecates this API as of 2023-06-30 23:59:59 UTC and retires it at 2018-12-31 23:59:59 UTC (see https://a.example/m)"},
		{Notice{Deprecated: true, Deprecation: rfc9745Date}, "the provider deprecates this API as of 2023-06-30 23:59:59 UTC"},
		{Notice{Sunset: rfc8594Date}, "the provider retires this API at 2018-12-31 23:59:59 UTC"},
		{Notice{Deprecated: true}, "the provider deprecated this API"},
		{Notice{Deprecated: true, Sunset: rfc8594Date, Link: "https://a.example/m"},
			"the provider deprecated this API and retires it at 2018-12-31 23:59:59 UTC (see https://a.example/m)"},
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
	f.Add(`@1688169599;a;b=?0;c=-12.5;d="x";e=*t:/x;f=:aGk=:;g=@-1;h=%"%c3%bc"`, "Sun, 30 Jun 2024 23:59:59 UTC", `<>, ,<https://a.example/>; title="a\"b"; rel="sunset deprecation"`)
	f.Add("true", "", "<https://a.example/")
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

// What servers really send (issue 36, item 5), with the expected values
// from the RFCs' texts: RFC 9745 §4's example is deprecated "on Friday,
// June 30, 2023 at 23:59:59 UTC and its sunset date is Sunday, June 30,
// 2024 at 23:59:59 UTC".
func TestReadServerForms(t *testing.T) {
	rfc9745Sunset := time.Date(2024, time.June, 30, 23, 59, 59, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want Notice
	}{
		{"RFC 9745 §4 example, Sunset in UTC", http.Header{
			"Deprecation": {"@1688169599"},
			"Sunset":      {"Sun, 30 Jun 2024 23:59:59 UTC"},
		}, Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc9745Sunset}},
		{"Deprecation: true, the drafts' form", http.Header{"Deprecation": {"true"}}, Notice{Deprecated: true}},
		{"an Item with parameters", http.Header{"Deprecation": {"@1688169599;foo=bar"}}, Notice{Deprecated: true, Deprecation: rfc9745Date}},
		{"an Item with parameters of every type", http.Header{"Deprecation": {
			`@1688169599;a;b=?0;c=-12.5;d="x \"y\" \\";e=*tok:/x;f=:aGk=:;g=@-1;h=%"f%c3%bc%e2%82%ac"; i=1`,
		}}, Notice{Deprecated: true, Deprecation: rfc9745Date}},
		{"two Deprecation fields", http.Header{"Deprecation": {"@1688169599", "@1688169599"}}, Notice{}},
		{"two Deprecation fields, one true", http.Header{"Deprecation": {"true", "@1688169599"}}, Notice{}},
		{"a list", http.Header{"Deprecation": {"@1688169599, @1"}}, Notice{}},
		{"two equal Sunset fields", http.Header{"Sunset": {"Sun, 30 Jun 2024 23:59:59 GMT", "Sun, 30 Jun 2024 23:59:59 GMT"}}, Notice{Sunset: rfc9745Sunset}},
		{"two Sunset fields that differ", http.Header{"Sunset": {"Sun, 30 Jun 2024 23:59:59 GMT", "Sat, 31 Dec 2018 23:59:59 GMT"}}, Notice{}},
		{"an RFC 850 Sunset", http.Header{"Sunset": {"Sunday, 30-Jun-24 23:59:59 GMT"}}, Notice{Sunset: rfc9745Sunset}},
		// Deprecation as an HTTP-date, as GitHub sends it and Zalando's
		// API guidelines said from 2020 to 2025: a deprecation at that
		// date, with or without a Sunset (issue 40, item 11).
		{"Deprecation as an HTTP-date, alone", http.Header{"Deprecation": {"Sun, 30 Jun 2024 23:59:59 GMT"}},
			Notice{Deprecated: true, Deprecation: rfc9745Sunset}},
		{"Deprecation and Sunset as HTTP-dates", http.Header{
			"Deprecation": {"Fri, 30 Jun 2023 23:59:59 GMT"},
			"Sunset":      {"Sun, 30 Jun 2024 23:59:59 GMT"},
		}, Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc9745Sunset}},
		{"Deprecation as an HTTP-date in UTC", http.Header{"Deprecation": {" Fri, 30 Jun 2023 23:59:59 UTC "}}, Notice{Deprecated: true, Deprecation: rfc9745Date}},
		{"Deprecation as an RFC 850 date", http.Header{"Deprecation": {"Friday, 30-Jun-23 23:59:59 GMT"}}, Notice{Deprecated: true, Deprecation: rfc9745Date}},
		{"Deprecation as a date without a time", http.Header{"Deprecation": {"Fri, 30 Jun 2023"}}, Notice{}},
		{"Deprecation as a date in another zone", http.Header{"Deprecation": {"Fri, 30 Jun 2023 23:59:59 CET"}}, Notice{}},
		{"two Deprecation HTTP-dates", http.Header{"Deprecation": {"Fri, 30 Jun 2023 23:59:59 GMT", "Fri, 30 Jun 2023 23:59:59 GMT"}}, Notice{}},
	}
	for _, tt := range tests {
		if got := Read(tt.h); got != tt.want {
			t.Errorf("%s: Read(%q) = %+v, want %+v", tt.name, tt.h, got, tt.want)
		}
	}
	// Alone, GitHub's form is a notice a ResponseError and a Transport show.
	got := Read(http.Header{"Deprecation": {"Sun, 30 Jun 2024 23:59:59 GMT"}}).String()
	if want := "the provider deprecates this API as of 2024-06-30 23:59:59 UTC"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// RFC 9651's grammar, kept to the letter: what fails to parse there is
// no Deprecation here.
func TestParseItemDate(t *testing.T) {
	for _, v := range []string{
		"@1688169599", " @1688169599 ", "@1688169599;foo=bar", "@1688169599;foo", "@1688169599; foo=1;bar=2",
		"@1688169599;*k_-.9=tok", `@1688169599;s=""`, "@1688169599;d=123456789012.123", "@1688169599;b=::",
		`@1688169599;ds=%""`, "@1688169599;foo=bar ",
	} {
		if got, ok := ParseItemDate(v); !ok || !got.Equal(rfc9745Date) {
			t.Errorf("ParseItemDate(%q) = %v, %v, want %v", v, got, ok, rfc9745Date)
		}
	}
	for _, v := range []string{
		"", "true", "?1", "@", "@1.5", "@1688169599.0", "1688169599", "@1000000000000000",
		"@1688169599;Foo=bar",             // keys are lowercase
		"@1688169599;1a=b",                // and start with a letter or *
		"@1688169599;foo=",                // a bare item after =
		"@1688169599;foo=bar,",            // a list
		"@1688169599, @1",                 // a list
		"@1688169599 ;foo=bar",            // no space before ;
		"@1688169599;foo=\"\\x\"",         // only \" and \\ escape
		"@1688169599;foo=\"a",             // unterminated
		"@1688169599;foo=\"\x7f\"",        // not printable
		"@1688169599;foo=1.2345",          // 3 decimal digits at most
		"@1688169599;foo=1.",              // a digit after the dot
		"@1688169599;foo=1234567890123.5", // 12 integer digits at most
		"@1688169599;foo=?2",              // booleans are ?0 and ?1
		"@1688169599;foo=:a b:",           // base64
		"@1688169599;foo=@1.5",            // a Date is an Integer
		`@1688169599;foo=%"%C3%A9"`,       // lowercase hex
		`@1688169599;foo=%"%c3"`,          // invalid UTF-8
		`@1688169599;foo=%"é"`,            // not ASCII
		"@1688169599;foo=\"\"x",           // something after the Item
		"@1688169599\t",                   // only SP around a field (tabs are HTTP's OWS, removed before)
	} {
		if got, ok := ParseItemDate(v); ok {
			t.Errorf("ParseItemDate(%q) = %v, true, want false", v, got)
		}
	}
}
