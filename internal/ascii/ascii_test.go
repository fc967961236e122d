package ascii

import (
	"strings"
	"testing"
)

// The sets as the RFCs spell them, written out rather than derived.
const (
	alnum         = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	unreservedSet = alnum + "-._~"
	tcharSet      = alnum + "!#$%&'*+-.^_`|~"
)

func TestClasses(t *testing.T) {
	for i := range 256 {
		c := byte(i)
		if got, want := Unreserved(c), strings.IndexByte(unreservedSet, c) >= 0; got != want {
			t.Errorf("Unreserved(%q) = %v, want %v", c, got, want)
		}
		if got, want := TokenChar(c), strings.IndexByte(tcharSet, c) >= 0; got != want {
			t.Errorf("TokenChar(%q) = %v, want %v", c, got, want)
		}
		v, ok := Unhex(c)
		wantV := strings.IndexByte("0123456789abcdef", c|0x20)
		if c < '0' || (c > '9' && c|0x20 < 'a') {
			wantV = -1
		}
		if ok != (wantV >= 0) || ok && int(v) != wantV {
			t.Errorf("Unhex(%q) = %d, %v, want %d", c, v, ok, wantV)
		}
	}
}

// refCountEscapes is CountEscapes written plainly, against the set as the
// RFC spells it.
func refCountEscapes(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(unreservedSet, s[i]) < 0 {
			n++
		}
	}
	return n
}

func TestCountEscapes(t *testing.T) {
	var all []byte
	for i := range 256 {
		all = append(all, byte(i))
	}
	inputs := []string{"", "a", "%", "ab", "a b", "unreserved-._~AZaz09", string(all), string(all[:17]), string(all[100:]) + "xyz"}
	// Every length up to a few blocks, so that each step of the unrolled
	// loops and each tail is taken, on text of all escaped, no escaped and
	// mixed bytes.
	for _, pattern := range []string{"a", " ", "a b%c/é~", string(all)} {
		long := strings.Repeat(pattern, 100/len(pattern)+1)
		for n := range 100 {
			inputs = append(inputs, long[:n])
		}
	}
	for _, s := range inputs {
		want := refCountEscapes(s)
		if got := CountEscapes(s); got != want {
			t.Errorf("CountEscapes(%q) = %d, want %d", s, got, want)
		}
		if got := CountEscapes([]byte(s)); got != want {
			t.Errorf("CountEscapes([]byte(%q)) = %d, want %d", s, got, want)
		}
	}
}

// TestPairs checks every entry of the table CountEscapes looks pairs up in.
func TestPairs(t *testing.T) {
	CountEscapes("") // builds the table
	for x, got := range pairs {
		if want := refCountEscapes(string([]byte{byte(x), byte(x >> 8)})); int(got) != want {
			t.Fatalf("pairs[%#04x] = %d, want %d", x, got, want)
		}
	}
}

func FuzzCountEscapes(f *testing.F) {
	for _, s := range []string{"", "a", "a b", "Ladies + Gentlemen", "\x00\xff", strings.Repeat("é-", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := refCountEscapes(s)
		if got := CountEscapes(s); got != want {
			t.Fatalf("CountEscapes(%q) = %d, want %d", s, got, want)
		}
		if got := CountEscapes([]byte(s)); got != want {
			t.Fatalf("CountEscapes([]byte(%q)) = %d, want %d", s, got, want)
		}
	})
}

func TestAppendEncode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"abc-._~XYZ019", "abc-._~XYZ019"},
		{"a b+c/=%", "a%20b%2Bc%2F%3D%25"},
		{"\x00\xff", "%00%FF"},
	} {
		if got := string(AppendEncode([]byte("lead"), []byte(tt.in))); got != "lead"+tt.want {
			t.Errorf("AppendEncode(%q, %q) = %q, want %q", "lead", tt.in, got, "lead"+tt.want)
		}
	}
}
