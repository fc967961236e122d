package basestring

import (
	"strconv"
	"strings"
	"testing"
)

// A request for the bugs of vocab.go, its base string computed by hand:
// PUT https://api.example.com/A;b/./c//d?b=2&&a=2&a=1&a=3.
const rqBase5 = "PUT&https%3A%2F%2Fapi.example.com%2FA%3Bb%2F.%2Fc%2F%2Fd&a%3D1%26a%3D2%26a%3D3%26b%3D2%26" + rqOAuth

var rqSent5 = Request{Query: "b=2&&a=2&a=1&a=3", Host: "api.example.com"}

// vocabCases are the bugs added with the vocabulary, each with the base
// string its mistake makes, computed by hand from the provider's.
var vocabCases = []struct {
	name   string
	base   string
	sent   Request
	signed string
	causes []string
}{
	{"method in lowercase", rqBase5, rqSent5, "put" + strings.TrimPrefix(rqBase5, "PUT"),
		[]string{"signs the method in lowercase"}},
	{"POST for PUT", rqBase5, rqSent5, "POST" + strings.TrimPrefix(rqBase5, "PUT"),
		[]string{"signs POST for a PUT or PATCH"}},
	{"an empty pair signed as =", rqBase5, rqSent5, strings.Replace(rqBase5, "%2Fd&a%3D1", "%2Fd&%3D%26a%3D1", 1),
		[]string{`signs an empty pair of the query or body`}},
	{"sorted by name only", rqBase5, rqSent5, strings.Replace(rqBase5, "a%3D1%26a%3D2%26a%3D3", "a%3D2%26a%3D1%26a%3D3", 1),
		[]string{"sorts the parameters by name only, and keeps a repeated name's values in the order they were sent"}},
	{"sorted by name, repeated names reversed", rqBase5, rqSent5, strings.Replace(rqBase5, "a%3D1%26a%3D2%26a%3D3", "a%3D3%26a%3D1%26a%3D2", 1),
		[]string{"in the reverse of the order they were sent"}},
	{"not sorted", rqBase5, rqSent5, strings.Replace(rqBase5, "a%3D1%26a%3D2%26a%3D3%26b%3D2", "b%3D2%26a%3D2%26a%3D1%26a%3D3", 1),
		[]string{"does not sort the parameters"}},
	{"path cut at ;", rqBase5, rqSent5, strings.Replace(rqBase5, "%2FA%3Bb%2F.%2Fc%2F%2Fd&", "%2FA&", 1),
		[]string{`cuts the path at its first ";"`}},
	{"// collapsed", rqBase5, rqSent5, strings.Replace(rqBase5, "%2Fc%2F%2Fd", "%2Fc%2Fd", 1),
		[]string{`collapses the empty segments of the path`}},
	{"dot segments removed", rqBase5, rqSent5, strings.Replace(rqBase5, "%2F.%2Fc", "%2Fc", 1),
		[]string{`removes the "." and ".." segments`}},
	{"URI in lowercase", rqBase5, rqSent5, strings.Replace(rqBase5, "%2FA%3Bb", "%2Fa%3Bb", 1),
		[]string{"lowercases the whole base string URI"}},
	{"query signed verbatim", rqBase1, rqSent1, strings.Replace(rqBase1, "x%3Da%253Bb", "x%3Da%3Bb", 1),
		[]string{"signs the query's pairs as they are sent"}},
	{`"?" kept on the first name`, rqBase1, rqSent1, "GET&https%3A%2F%2Fapi.example.com%2Fr&%253Fc%3Dz%26c%3D%25C3%25A9%26empty%3D%26" + rqOAuth + "%26x%3Da%253Bb",
		[]string{`keeps the "?" at the head of the query's first name`}},
	{`query verbatim with its "?" (tcllib)`, rqBase1, rqSent1, "GET&https%3A%2F%2Fapi.example.com%2Fr&%3Fc%3Dz%26c%3D%25C3%25A9%26empty%3D%26" + rqOAuth + "%26x%3Da%3Bb",
		[]string{`keeps the "?"`, "signs the query's pairs as they are sent", "2 bugs"}},
}

// TestReproduceVocabulary checks that both budgets rebuild the base
// string of each bug added with the vocabulary, and name it.
func TestReproduceVocabulary(t *testing.T) {
	for _, tt := range vocabCases {
		for _, b := range []budget{liveBudget, wideBudget} {
			if strings.Contains(tt.name, "(tcllib)") && b == liveBudget { // two bugs of few libraries
				continue
			}
			t.Run(tt.name+"/"+strconv.Itoa(b.hmacs), func(t *testing.T) {
				testReproduceCase(t, tt.base, tt.signed, rqKey, tt.sent, tt.causes, b)
			})
		}
	}
}

// TestDotSegments checks removeDotSegments on RFC 3986 §5.4's examples
// (the paths of the references resolved against "http://a/b/c/d;p?q",
// written as the absolute paths they resolve from).
func TestDotSegments(t *testing.T) {
	for in, want := range map[string]string{
		"/b/c/./g": "/b/c/g", "/b/c/g/.": "/b/c/g/", "/b/c/..": "/b/", "/b/c/../g": "/b/g", "/b/c/../..": "/",
		"/b/c/../../g": "/g", "/b/c/../../../g": "/g", "/b/c/g/./h": "/b/c/g/h", "/b/c/g/../h": "/b/c/h",
		"/b/c/g;x=1/./y": "/b/c/g;x=1/y", "/b/c/g;x=1/../y": "/b/c/y", "/a/./b/../c": "/a/c", "/": "/", "/a.b/c..": "/a.b/c..",
	} {
		if got := removeDotSegments(in); got != want {
			t.Errorf("removeDotSegments(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBugTables checks that every bug has a name, a cause and a class, and
// that the vocabulary tries every bug, the likeliest first.
func TestBugTables(t *testing.T) {
	seen := map[string]bool{}
	for i := range bugCount {
		if bugNames[i] == "" || bugCauses[i] == "" || bugClass[i] == 0 || seen[bugCauses[i]] {
			t.Errorf("bug %d: name %q, class %d, cause %q (a cause must be unique)", i, bugNames[i], bugClass[i], bugCauses[i])
		}
		seen[bugCauses[i]] = true
	}
	v := defaultVocabulary
	if len(v.order) != bugCount {
		t.Fatalf("the vocabulary tries %d bugs of %d", len(v.order), bugCount)
	}
	for i := 1; i < len(v.order); i++ {
		if v.weight(v.order[i-1]) < v.weight(v.order[i]) {
			t.Errorf("bug %d before a likelier one", i-1)
		}
	}
}
