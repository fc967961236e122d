package percent

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vector is one line of a testdata file: an input, its expected output, and
// the "# source:" line of the group it belongs to.
type vector struct {
	in, want, source string
	line             int
}

// readVectors parses a testdata file of TAB-separated pairs grouped under
// "# source:" lines. A pair outside any group is an error: every expected
// value must say where it comes from.
func readVectors(t *testing.T, name string) []vector {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	source := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "":
			source = "" // a blank line ends a group
		case strings.HasPrefix(line, "# source:"):
			source = strings.TrimSpace(strings.TrimPrefix(line, "# source:"))
		case strings.HasPrefix(line, "#"):
		default:
			in, want, ok := strings.Cut(line, "\t")
			if !ok {
				t.Fatalf("%s:%d: no TAB in %q", name, n, line)
			}
			if source == "" {
				t.Fatalf("%s:%d: vector %q has no # source: line", name, n, line)
			}
			vs = append(vs, vector{in, want, source, n})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return vs
}

func TestEncodeVectors(t *testing.T) {
	for _, v := range readVectors(t, "testdata/vectors.txt") {
		if got := Encode(v.in); got != v.want {
			t.Errorf("Encode(%q) = %q, want %q (vectors.txt:%d, %s)", v.in, got, v.want, v.line, v.source)
		}
		if got := AppendEncode([]byte("lead"), v.in); string(got) != "lead"+v.want {
			t.Errorf("AppendEncode(%q, %q) = %q, want %q", "lead", v.in, got, "lead"+v.want)
		}
		if got := EncodedLen(v.in); got != len(v.want) {
			t.Errorf("EncodedLen(%q) = %d, want %d", v.in, got, len(v.want))
		}
		if got, err := Decode(v.want); got != v.in || err != nil {
			t.Errorf("Decode(%q) = %q, %v, want %q, nil (vectors.txt:%d)", v.want, got, err, v.in, v.line)
		}
		lower := lowerEscapes(v.want)
		if got, err := Decode(lower); got != v.in || err != nil {
			t.Errorf("Decode(%q) = %q, %v, want %q, nil (vectors.txt:%d)", lower, got, err, v.in, v.line)
		}
	}
}

func TestDecodeFormVectors(t *testing.T) {
	for _, v := range readVectors(t, "testdata/form.txt") {
		if got, err := DecodeForm(v.in); got != v.want || err != nil {
			t.Errorf("DecodeForm(%q) = %q, %v, want %q, nil (form.txt:%d, %s)", v.in, got, err, v.want, v.line, v.source)
		}
		if got, err := AppendDecodeForm([]byte("lead"), v.in); string(got) != "lead"+v.want || err != nil {
			t.Errorf("AppendDecodeForm(%q, %q) = %q, %v, want %q, nil", "lead", v.in, got, err, "lead"+v.want)
		}
	}
}

// lowerEscapes lowercases the hex digits of every escape in s, which must
// be well formed, and leaves everything else alone.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if b[i] == '%' {
			copy(b[i+1:i+3], strings.ToLower(string(b[i+1:i+3])))
			i += 2
		}
	}
	return string(b)
}

// refUnreserved is RFC 3986 §2.3's list, spelled out rather than computed.
const refUnreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

// refByte[c] is what the X API algorithm (seed 002) writes for byte c,
// computed as plainly as possible: unreserved bytes as themselves, every
// other byte as '%' and two uppercase hex digits from fmt.
var refByte = func() (t [256]string) {
	for i := range t {
		if strings.IndexByte(refUnreserved, byte(i)) >= 0 {
			t[i] = string(rune(i))
		} else {
			t[i] = fmt.Sprintf("%%%02X", i)
		}
	}
	return t
}()

// refEncode encodes s one byte at a time from refByte. It looks bytes up
// rather than calling fmt per byte so that fuzzing large inputs stays fast.
func refEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(refByte[s[i]])
	}
	return b.String()
}

func TestEncodeAllBytes(t *testing.T) {
	var all []byte
	for i := 0; i < 256; i++ {
		c := byte(i)
		all = append(all, c)
		in := string([]byte{c})
		want := refEncode(in)
		if got := Encode(in); got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
		if got := AppendEncode([]byte("lead"), in); string(got) != "lead"+want {
			t.Errorf("AppendEncode(%q, %q) = %q, want %q", "lead", in, got, "lead"+want)
		}
		if got := EncodedLen(in); got != len(want) {
			t.Errorf("EncodedLen(%q) = %d, want %d", in, got, len(want))
		}
		for _, esc := range []string{fmt.Sprintf("%%%02X", c), fmt.Sprintf("%%%02x", c)} {
			if got, err := Decode(esc); got != in || err != nil {
				t.Errorf("Decode(%q) = %q, %v, want %q, nil", esc, got, err, in)
			}
		}
	}
	// All 256 bytes in one string, forwards and backwards, exercise the
	// block encoder and its tail, not just the one-byte path.
	rev := make([]byte, len(all))
	for i, c := range all {
		rev[len(all)-1-i] = c
	}
	for _, in := range []string{string(all), string(rev), strings.Repeat(string(all), 3) + "abc"} {
		want := refEncode(in)
		if got := Encode(in); got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
		if got := AppendEncode([]byte("lead"), in); string(got) != "lead"+want {
			t.Errorf("AppendEncode(%q, %q) = %q, want %q", "lead", in, got, "lead"+want)
		}
		if got := EncodedLen(in); got != len(want) {
			t.Errorf("EncodedLen(%q) = %d, want %d", in, got, len(want))
		}
	}
}

// Every length from 0 to 70 crosses the 8-byte block boundaries of the
// encoder at a different point; each byte mix stresses a different room
// check.
func TestEncodeLengths(t *testing.T) {
	for _, unit := range []string{"a", " ", "é", "a b", "~%"} {
		for n := 0; n <= 70; n++ {
			in := strings.Repeat(unit, n/len(unit)+1)[:n]
			want := refEncode(in)
			if got := Encode(in); got != want {
				t.Errorf("Encode(%q) = %q, want %q", in, got, want)
			}
			dst := make([]byte, 3, 3+len(want)) // exactly enough room
			copy(dst, "abc")
			if got := AppendEncode(dst, in); string(got) != "abc"+want {
				t.Errorf("AppendEncode(%q, %q) = %q, want %q", "abc", in, got, "abc"+want)
			}
		}
	}
}

// AppendEncode must write nothing past the bytes it returns: a caller's
// spare capacity may alias other data.
func TestAppendEncodeSpareCapacity(t *testing.T) {
	in := strings.Repeat("a ☃,", 20)
	want := refEncode(in)
	buf := []byte(strings.Repeat("x", len(want)+64))
	got := AppendEncode(buf[:0], in)
	if string(got) != want {
		t.Fatalf("AppendEncode(%q, %q) = %q, want %q", "", in, got, want)
	}
	if tail := string(buf[len(want):]); tail != strings.Repeat("x", 64) {
		t.Errorf("AppendEncode wrote past its result: spare capacity = %q", tail)
	}
}

var decodeTests = []struct {
	in, want string
}{
	{"", ""},
	{"abc", "abc"},
	{"%41%42%43", "ABC"},
	{"%e2%98%83", "☃"},
	{"%E2%98%83", "☃"},
	{"%e2%98%83%E2%98%83", "☃☃"},
	{"a+b", "a+b"}, // '+' is only a space in form data
	{"%2B", "+"},
	{"%20", " "},
	{"%25", "%"},
	{"%2541", "%41"},
	{"%00%FF", "\x00\xff"},
	{"100%25!", "100%!"},
	{"é", "é"},
}

func TestDecode(t *testing.T) {
	for _, tt := range decodeTests {
		if got, err := Decode(tt.in); got != tt.want || err != nil {
			t.Errorf("Decode(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
		}
		if got, err := AppendDecode([]byte("lead"), tt.in); string(got) != "lead"+tt.want || err != nil {
			t.Errorf("AppendDecode(%q, %q) = %q, %v, want %q, nil", "lead", tt.in, got, err, "lead"+tt.want)
		}
	}
}

var decodeErrorTests = []struct {
	in      string
	partial string // what AppendDecode appends before the bad escape
	err     EscapeError
}{
	{"%", "", EscapeError{0, "%"}},
	{"%2", "", EscapeError{0, "%2"}},
	{"%G1", "", EscapeError{0, "%G1"}},
	{"%1G", "", EscapeError{0, "%1G"}},
	{"abc%", "abc", EscapeError{3, "%"}},
	{"abc%4", "abc", EscapeError{3, "%4"}},
	{"%u2603", "", EscapeError{0, "%u2"}},
	{"a%20b%zz", "a b", EscapeError{5, "%zz"}},
	{"%%41", "", EscapeError{0, "%%4"}},
	{"%41% 20", "A", EscapeError{3, "% 2"}},
	{"%C3%A9%+", "é", EscapeError{6, "%+"}},
	{"a+b%-1", "a+b", EscapeError{3, "%-1"}},
}

func TestDecodeError(t *testing.T) {
	for _, tt := range decodeErrorTests {
		got, err := Decode(tt.in)
		var e *EscapeError
		if !errors.As(err, &e) || *e != tt.err || got != "" {
			t.Errorf("Decode(%q) = %q, %v, want \"\", %+v", tt.in, got, err, tt.err)
		}
		buf, err := AppendDecode([]byte("lead"), tt.in)
		if !errors.As(err, &e) || *e != tt.err || string(buf) != "lead"+tt.partial {
			t.Errorf("AppendDecode(%q, %q) = %q, %v, want %q, %+v", "lead", tt.in, buf, err, "lead"+tt.partial, tt.err)
		}
		// The same escapes are malformed under form rules, where '+' only
		// changes what the partial output holds.
		formPartial := strings.ReplaceAll(tt.partial, "+", " ")
		if got, err := DecodeForm(tt.in); !errors.As(err, &e) || *e != tt.err || got != "" {
			t.Errorf("DecodeForm(%q) = %q, %v, want \"\", %+v", tt.in, got, err, tt.err)
		}
		if buf, err := AppendDecodeForm([]byte("lead"), tt.in); !errors.As(err, &e) || *e != tt.err || string(buf) != "lead"+formPartial {
			t.Errorf("AppendDecodeForm(%q, %q) = %q, %v, want %q, %+v", "lead", tt.in, buf, err, "lead"+formPartial, tt.err)
		}
		if got, err := Normalize(tt.in); !errors.As(err, &e) || *e != tt.err || got != "" {
			t.Errorf("Normalize(%q) = %q, %v, want \"\", %+v", tt.in, got, err, tt.err)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&EscapeError{Offset: 3, Escape: "%"}, `percent: invalid escape "%" at offset 3`},
		{&EscapeError{Offset: 0, Escape: "%u2"}, `percent: invalid escape "%u2" at offset 0`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("(%#v).Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestDecodeForm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a+b", "a b"},
		{"a%2Bb", "a+b"},
		{"a%2bb", "a+b"},
		{"+%20+", "   "},
		{"++", "  "},
		{"%E2%98%83+%E2%98%83", "☃ ☃"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got, err := DecodeForm(tt.in); got != tt.want || err != nil {
			t.Errorf("DecodeForm(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
		}
		if got, err := AppendDecodeForm([]byte("lead"), tt.in); string(got) != "lead"+tt.want || err != nil {
			t.Errorf("AppendDecodeForm(%q, %q) = %q, %v, want %q, nil", "lead", tt.in, got, err, "lead"+tt.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"%7e", "~"},
		{"%7E", "~"},
		{"%41", "A"},
		{"%61%62%63", "abc"},
		{"%2d%2e%5f%30", "-._0"},
		{"%2f", "%2F"},
		{"%2F", "%2F"},
		{"a%c3%a9", "a%C3%A9"},
		{"%25", "%25"},
		{"%2541", "%2541"}, // "%25" is '%', which stays escaped; "41" is plain text
		{"a b+c", "a b+c"}, // unescaped bytes are never touched
		{"Ladies%20%2b%20Gentlemen", "Ladies%20%2B%20Gentlemen"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if got != tt.want || err != nil {
			t.Errorf("Normalize(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
		}
		if again, err := Normalize(tt.want); again != tt.want || err != nil {
			t.Errorf("Normalize(%q) = %q, %v, want %q, nil (not idempotent)", tt.want, again, err, tt.want)
		}
	}
}

var sink string

func TestAllocs(t *testing.T) {
	const unreserved = "already-unreserved_0123456789.~"
	const mixed = "Ladies + Gentlemen, ☃ & é"
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{"Encode(unreserved)", func() { sink = Encode(unreserved) }, 0},
		{"Encode(mixed)", func() { sink = Encode(mixed) }, 1},
		{"Decode(no escapes)", func() { sink, _ = Decode(unreserved) }, 0},
		{"Decode(escapes)", func() { sink, _ = Decode("Ladies%20%2B%20Gentlemen") }, 1},
		{"Normalize(no escapes)", func() { sink, _ = Normalize(unreserved) }, 0},
	}
	for _, tt := range tests {
		if n := testing.AllocsPerRun(100, tt.f); n != tt.want {
			t.Errorf("%s allocs = %v, want %v", tt.name, n, tt.want)
		}
	}

	buf := make([]byte, 0, 3*len(mixed))
	if n := testing.AllocsPerRun(100, func() { buf = AppendEncode(buf[:0], mixed) }); n != 0 {
		t.Errorf("AppendEncode(buf with room, mixed) allocs = %v, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { buf = AppendEncode(buf[:0], unreserved) }); n != 0 {
		t.Errorf("AppendEncode(buf with room, unreserved) allocs = %v, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendDecode(buf[:0], "Ladies%20%2B%20Gentlemen") }); n != 0 {
		t.Errorf("AppendDecode(buf with room) allocs = %v, want 0", n)
	}
}

// refDecode is a naive decoder written independently of decode: it returns
// the bytes decoded before the first malformed escape, and that escape's
// offset, or -1 if there is none.
func refDecode(s string, form bool) (out string, bad int) {
	isHex := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+' && form:
			b.WriteByte(' ')
		case s[i] != '%':
			b.WriteByte(s[i])
		case i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				panic(err)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			return b.String(), i
		}
	}
	return b.String(), -1
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", "abc", "Ladies + Gentlemen", "☃", "%", "\x00\xff", strings.Repeat("a é", 20)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := Encode(s)
		if want := refEncode(s); enc != want {
			t.Fatalf("Encode(%q) = %q, want %q", s, enc, want)
		}
		if got := AppendEncode([]byte("lead"), s); string(got) != "lead"+enc {
			t.Fatalf("AppendEncode(%q, %q) = %q, want %q", "lead", s, got, "lead"+enc)
		}
		if n := EncodedLen(s); n != len(enc) {
			t.Fatalf("EncodedLen(%q) = %d, want %d", s, n, len(enc))
		}
		if dec, err := Decode(enc); err != nil || dec != s {
			t.Fatalf("Decode(Encode(%q)) = %q, %v, want %q, nil", s, dec, err, s)
		}
		if norm, err := Normalize(enc); err != nil || norm != enc {
			t.Fatalf("Normalize(Encode(%q)) = %q, %v, want %q, nil", s, norm, err, enc)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "a+b", "%41", "%e2%98%83", "%", "%2", "%G1", "%1G", "abc%", "%u2603", "%%", "%+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, form := range []bool{false, true} {
			decodeFn, appendFn, name := Decode, AppendDecode, "Decode"
			if form {
				decodeFn, appendFn, name = DecodeForm, AppendDecodeForm, "DecodeForm"
			}
			want, bad := refDecode(s, form)
			got, err := decodeFn(s)
			buf, aerr := appendFn([]byte("lead"), s)
			if bad < 0 {
				if got != want || err != nil {
					t.Fatalf("%s(%q) = %q, %v, want %q, nil", name, s, got, err, want)
				}
				if string(buf) != "lead"+want || aerr != nil {
					t.Fatalf("Append%s(%q, %q) = %q, %v, want %q, nil", name, "lead", s, buf, aerr, "lead"+want)
				}
				continue
			}
			wantErr := EscapeError{Offset: bad, Escape: s[bad:min(bad+3, len(s))]}
			var e *EscapeError
			if !errors.As(err, &e) || *e != wantErr || got != "" {
				t.Fatalf("%s(%q) = %q, %v, want \"\", %+v", name, s, got, err, wantErr)
			}
			if !errors.As(aerr, &e) || *e != wantErr || string(buf) != "lead"+want {
				t.Fatalf("Append%s(%q, %q) = %q, %v, want %q, %+v", name, "lead", s, buf, aerr, "lead"+want, wantErr)
			}
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "%7e", "%41", "%2f", "a%c3%a9", "%2541", "a b", "%", "%zz", "%7E%7e~"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, err := Normalize(s)
		dec, derr := Decode(s)
		if (err != nil) != (derr != nil) {
			t.Fatalf("Normalize(%q) error = %v, but Decode error = %v", s, err, derr)
		}
		if err != nil {
			return
		}
		if again, err := Normalize(norm); again != norm || err != nil {
			t.Fatalf("Normalize(%q) = %q, %v, want %q, nil (Normalize(%q) = %q)", norm, again, err, norm, s, norm)
		}
		if got, err := Decode(norm); got != dec || err != nil {
			t.Fatalf("Decode(Normalize(%q)) = %q, %v, want Decode(%q) = %q", s, got, err, s, dec)
		}
		// The normal form has no lowercase hex digit in an escape and no
		// escaped unreserved character (RFC 3986 §6.2.2.1, §6.2.2.2).
		for i := 0; i < len(norm); i++ {
			if norm[i] != '%' {
				continue
			}
			esc := norm[i+1 : i+3]
			if esc != strings.ToUpper(esc) {
				t.Fatalf("Normalize(%q) = %q has lowercase escape %q", s, norm, norm[i:i+3])
			}
			v, _ := strconv.ParseUint(esc, 16, 8)
			if strings.IndexByte(refUnreserved, byte(v)) >= 0 {
				t.Fatalf("Normalize(%q) = %q keeps unreserved escape %q", s, norm, norm[i:i+3])
			}
			i += 2
		}
	})
}
