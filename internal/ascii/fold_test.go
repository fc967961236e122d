package ascii

import (
	"strings"
	"testing"
)

// refLower lowercases 'A' to 'Z' one byte at a time.
func refLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func TestAppendLower(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"HTTP", "http"},
		{"Https://API.Example.COM:443/Path", "https://api.example.com:443/path"},
		{"@AZ[`az{", "@az[`az{"}, // the bytes on either side of both alphabets
		{"ÀÉ\u212a", "ÀÉ\u212a"}, // UTF-8 as it is
		{"\x00\x7f\x80\xffQ", "\x00\x7f\x80\xffq"},
	} {
		if got := string(AppendLower([]byte("Lead"), tt.in)); got != "Lead"+tt.want {
			t.Errorf("AppendLower(%q, %q) = %q, want %q", "Lead", tt.in, got, "Lead"+tt.want)
		}
		if got := string(AppendLower(nil, tt.in)); got != tt.want {
			t.Errorf("AppendLower(nil, %q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for i := range 256 {
		s := string([]byte{byte(i)})
		if got, want := string(AppendLower(nil, s)), refLower(s); got != want {
			t.Errorf("AppendLower(nil, %q) = %q, want %q", s, got, want)
		}
	}
}

var foldTests = []struct {
	s, sub string
	want   int
}{
	{"", "", 0},
	{"abc", "", 0},
	{"", "a", -1},
	{"oauth_token_secret=x", "OAUTH_TOKEN_SECRET", 0},
	{"oauth_token=a&OAuth_Token_Secret=b", "oauth_token_secret", 14},
	{"oauth_token=a", "oauth_token_secret", -1}, // sub longer than what is left
	{"xAbAbC", "abc", 3}, // a partial match before the match
	{"application/X-WWW-Form-URLEncoded; charset=utf-8", "x-www-form-urlencoded", 12},
	{"application/json", "x-www-form-urlencoded", -1},
	{"[\\]^_`", "{|}~\x7f@", -1}, // differ by 0x20 but are not letters
	{"\u212a", "k", -1},          // no Unicode folding
	{"\u017f", "S", -1},
	{"caf\xc3\xa9 CAF\xc3\xa9", "caf\xc3\xa9", 0},
	{"x\xc3\xa9 CAF\xc3\xa9", "caf\xc3\xa9", 4},
}

func TestIndexFold(t *testing.T) {
	for _, tt := range foldTests {
		if got := IndexFold([]byte(tt.s), tt.sub); got != tt.want {
			t.Errorf("IndexFold(%q, %q) = %d, want %d", tt.s, tt.sub, got, tt.want)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, tt := range foldTests {
		if got := ContainsFold(tt.s, tt.sub); got != (tt.want >= 0) {
			t.Errorf("ContainsFold(%q, %q) = %v, want %v", tt.s, tt.sub, got, tt.want >= 0)
		}
	}
}

func FuzzIndexFold(f *testing.F) {
	for _, tt := range foldTests {
		f.Add(tt.s, tt.sub)
	}
	f.Fuzz(func(t *testing.T, s, sub string) {
		want := strings.Index(refLower(s), refLower(sub))
		if got := IndexFold([]byte(s), sub); got != want {
			t.Fatalf("IndexFold(%q, %q) = %d, want %d", s, sub, got, want)
		}
		if got := ContainsFold(s, sub); got != (want >= 0) {
			t.Fatalf("ContainsFold(%q, %q) = %v, want %v", s, sub, got, want >= 0)
		}
	})
}

func TestIsASCII(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"api.example.com", true},
		{"\x00\x7f", true},
		{"\x80", false},
		{"bücher.example", false},
		{"example.com\xff", false},
	} {
		if got := IsASCII(tt.s); got != tt.want {
			t.Errorf("IsASCII(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

func TestIsHex(t *testing.T) {
	for i := range 256 {
		c := byte(i)
		if got, want := IsHex(c), strings.IndexByte("0123456789abcdefABCDEF", c) >= 0; got != want {
			t.Errorf("IsHex(%q) = %v, want %v", c, got, want)
		}
		if _, ok := Unhex(c); ok != IsHex(c) {
			t.Errorf("Unhex(%q) ok = %v, but IsHex = %v", c, ok, IsHex(c))
		}
	}
}
