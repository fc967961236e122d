package basestring_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/basestring"
)

// bs builds a base string from its parts as RFC 5849 §3.4.1 does, taking
// the pairs as given ("name=value", each side already encoded once): the
// tests below write the pairs a buggy client would sign.
func bs(method, uri string, pairs ...string) string {
	e := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
				b.WriteByte(c)
			} else {
				b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
			}
		}
		return b.String()
	}
	return e(method) + "&" + e(uri) + "&" + e(strings.Join(pairs, "&"))
}

const (
	key   = "oauth_consumer_key=k"
	nonce = "oauth_nonce=n"
	ts    = "oauth_timestamp=1"
)

// TestDiffLibraryBugs checks the cause named for each bug that real
// libraries make.
func TestDiffLibraryBugs(t *testing.T) {
	const u = "https://api.example.com/x"
	tests := []struct {
		name      string
		want, got string
		kind      basestring.Kind
		param     string
		causeHint string
	}{
		{"UTF-8 read as Latin-1 (Perl Net::OAuth)",
			bs("GET", u, "name=M%C3%BCller", key), bs("GET", u, "name=M%C3%83%C2%BCller", key),
			basestring.Charset, "name", "the client took UTF-8 bytes for Latin-1 characters"},
		{"a Latin-1 byte read as a character and encoded as UTF-8",
			bs("GET", u, key, "q=%FF"), bs("GET", u, key, "q=%C3%BF"),
			basestring.Charset, "q", "read the bytes as Latin-1 text and encoded them as UTF-8"},
		{"a name read as Latin-1",
			bs("GET", u, key, "M%C3%BCnchen=1"), bs("GET", u, "M%C3%83%C2%BCnchen=1", key),
			basestring.Charset, "München", "UTF-8 bytes for Latin-1"},
		{"repeated name, last value kept (PECL)",
			bs("GET", u, "a=1", "a=2", key), bs("GET", u, "a=2", key),
			basestring.RepeatedName, "a", "the name a occurs 2 times in want but got signs it once: the client kept one value"},
		{"repeated name, first value kept (Net::OAuth, dghubble)",
			bs("GET", u, "a=1", "a=2", key), bs("GET", u, "a=1", key),
			basestring.RepeatedName, "a", "§3.4.1.3.2 signs every name=value pair"},
		{"repeated name, provider kept one",
			bs("GET", u, "a=1", key), bs("GET", u, "a=1", "a=2", key),
			basestring.RepeatedName, "a", "the provider kept one value"},
		{"value cut at a NUL (C strings)",
			bs("GET", u, "a=a%09b%0Ac%00d", key), bs("GET", u, "a=a%09b%0Ac", key),
			basestring.Truncated, "a", "C string"},
		{`value cut at "=" (split on every "=")`,
			bs("GET", u, "a=b%3Dc", key), bs("GET", u, "a=b", key),
			basestring.Truncated, "a", `split each pair at every "="`},
		{`value cut at "?" (split the URL on every "?")`,
			bs("GET", u, "a=b%3Fc", key, "z=1"), bs("GET", u, "a=b", key),
			basestring.Truncated, "a", `split the URL at every "?"`},
		{`the rest of the query lost at a "?"`,
			bs("GET", u, "a=b%3Fc", key, "z=1"), bs("GET", u, "a=b", key),
			basestring.MissingParam, "z", `after the "?" inside the value of a`},
		{"name without encoding: raw %",
			bs("GET", u, "100%25=1", key), "GET&" + strings.SplitN(bs("GET", u), "&", 3)[1] + "&100%=1%26oauth_consumer_key%3Dk",
			basestring.Syntax, "100%", "did not encode the name"},
		{"name without encoding: raw space",
			bs("GET", u, "a%20b=1", key), bs("GET", u, "a b=1", key),
			basestring.Unencoded, "a b", "the name leaves a character unencoded"},
		{"name without encoding: raw colon",
			bs("GET", u, "a%3Ab=1", key), bs("GET", u, "a:b=1", key),
			basestring.Unencoded, "a:b", "the name leaves a character unencoded"},
		{`pair without "="`,
			bs("GET", u, "flag=", key), bs("GET", u, "flag", key),
			basestring.Syntax, "flag", `without "="`},
		{"parameter string not encoded",
			bs("GET", u, "a=1", key), bs("GET", u) + "a=1&" + key,
			basestring.Syntax, "", "did not encode the whole string again"},
		{"name encoded twice (npm oauth-1.0a)",
			bs("GET", u, "filter%5Ba%5D=1", key), bs("GET", u, "filter%255Ba%255D=1", key),
			basestring.DoubleEncoded, "filter[a]", "name is encoded twice"},
		{`literal "+" in a name`,
			bs("GET", u, "a%20b=1", key), bs("GET", u, "a%2Bb=1", key),
			basestring.PlusForSpace, "a b", `literal "+"`},
		{"PHP renames . to _ (PECL)",
			bs("GET", u, key, "tag.name=1"), bs("GET", u, key, "tag_name=1"),
			basestring.Renamed, "tag.name", `PHP turns " " and "."`},
		{"PHP rename and a repeated name",
			bs("GET", u, key, "tag.name=1", "tag.name=2"), bs("GET", u, key, "tag_name=2"),
			basestring.RepeatedName, "tag.name", "kept one value"},
		{"non-default port dropped (dghubble/oauth1)",
			bs("GET", "http://api.example.com:443/x", key), bs("GET", "http://api.example.com/x", key),
			basestring.DefaultPort, "", "not the default port of http"},
		{"semicolon pair dropped (url.ParseQuery)",
			bs("GET", u, "a=1%3Bb%3D2", key), bs("GET", u, key),
			basestring.MissingParam, "a", "semicolon"},
		{"joined pairs sorted (Net::OAuth)",
			bs("GET", u, key, "page=1", "page2=2"), bs("GET", u, key, "page2=2", "page=1"),
			basestring.SortOrder, "", `sorted the joined "name=value" strings`},
		{"sorted before encoding (Ruby oauth gem)",
			bs("GET", u, "filter%5Ba%5D=1", "filterA=2", key), bs("GET", u, "filterA=2", "filter%5Ba%5D=1", key),
			basestring.SortOrder, "", "sorted the parameters before encoding them"},
		{"changed value out of order",
			bs("GET", u, key, "page=1", "page2=caf%C3%A9"), bs("GET", u, key, "page2=caf%C3%83%C2%A9", "page=1"),
			basestring.SortOrder, "", "not in order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := basestring.Diff(tt.want, tt.got)
			found := false
			for _, d := range ds {
				if d.Kind == tt.kind && (tt.param == "" || d.Name == tt.param) {
					found = true
					if !strings.Contains(d.Cause, tt.causeHint) {
						t.Errorf("%v cause %q does not mention %q", d.Kind, d.Cause, tt.causeHint)
					}
				}
				if strings.Contains(d.Cause, "was the request changed") || strings.Contains(d.Cause, "did the client send Content-Type") {
					t.Errorf("Diff names a generic cause:\n%s", d)
				}
			}
			if !found {
				t.Errorf("Diff(%q, %q) =\n%s\nwant a %v difference for %q", tt.want, tt.got, basestring.Format(ds), tt.kind, tt.param)
			}
		})
	}
}

// TestDiffSyntaxStillCompares checks that a malformed base string is
// explained and its other differences still found.
func TestDiffSyntaxStillCompares(t *testing.T) {
	want := bs("GET", "https://api.example.com/x", "a=1", "b=2", key)
	got := bs("get", "https://api.example.com/x") + "a=1&b=3&" + key
	ds := basestring.Diff(want, got)
	var kinds []string
	for _, d := range ds {
		kinds = append(kinds, d.Kind.String()+" "+d.Name)
	}
	if w := []string{"syntax ", "method case ", "value differs b"}; strings.Join(kinds, ",") != strings.Join(w, ",") {
		t.Errorf("Diff(want, got) kinds = %q, want %q\n%s", kinds, w, basestring.Format(ds))
	}
	// Not a base string at all: nothing to compare.
	ds = basestring.Diff(want, "GET&https%3A%2F%2Fapi.example.com%2Fx")
	if len(ds) != 1 || ds[0].Kind != basestring.Malformed {
		t.Errorf("Diff(want, two parts) = %v, want one Malformed difference", ds)
	}
}

// TestDiffSyntaxOffset checks that a Syntax difference points at the pair
// in the base string as given.
func TestDiffSyntaxOffset(t *testing.T) {
	const u = "GET&https%3A%2F%2Fapi.example.com%2Fx&"
	tests := []struct {
		got  string
		pair string // what the offset must point at
	}{
		{u + "a%3D%2525%26flag%26z%3D1", "flag%26"},
		{u + "a%3D1%26100%25%3D1", "100%25%3D1"},
		{u + "a=1&flag&z=1", "flag&"},
	}
	for _, tt := range tests {
		for _, d := range basestring.Diff(u+"a%3D1", tt.got) {
			if d.Kind != basestring.Syntax || d.Name == "" {
				continue
			}
			_, at, _ := strings.Cut(d.Cause, "(at offset ")
			n, err := strconv.Atoi(strings.TrimSuffix(at, ")"))
			if err != nil || n < 0 || !strings.HasPrefix(tt.got[n:], tt.pair) {
				t.Errorf("Diff(_, %q): %q points at %q, want %q", tt.got, d.Cause, tt.got[min(max(n, 0), len(tt.got)):], tt.pair)
			}
		}
	}
}

// TestCausesNameNoFlags checks that causes explain without naming a
// command's flags: a program adds its own advice, keyed by Kind and Name.
func TestCausesNameNoFlags(t *testing.T) {
	const u = "https://api.example.com/x"
	pairs := [][2][]string{
		{{"oauth_body_hash=x", key}, {key}},
		{{"oauth_callback=oob", key}, {key}},
		{{key, "oauth_verifier=v"}, {key}},
		{{key}, {key, "oauth_version=1.0"}},
		{{key, "oauth_nonce=a"}, {key, "oauth_nonce=b"}},
		{{key, "oauth_timestamp=1"}, {key, "oauth_timestamp=2"}},
	}
	for _, p := range pairs {
		ds := basestring.Diff(bs("GET", u, p[0]...), bs("GET", u, p[1]...))
		if len(ds) != 1 || ds[0].Name == "" {
			t.Errorf("Diff(%q, %q) =\n%s\nwant one difference of a parameter", p[0], p[1], basestring.Format(ds))
		}
		for _, d := range ds {
			if strings.Contains(d.Cause, "--") {
				t.Errorf("%v %s: the cause names a flag: %q", d.Kind, d.Name, d.Cause)
			}
		}
	}
}
