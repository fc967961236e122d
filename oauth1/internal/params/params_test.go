package params

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/percent"
)

// build adds forms and then adds to a fresh Set and returns its base string.
func build(s *Set, method, uri string, forms []string, adds [][2]string) (string, error) {
	s.Reset()
	for _, f := range forms {
		if err := s.AddForm(f); err != nil {
			return "", err
		}
	}
	for _, a := range adds {
		s.Add(a[0], a[1])
	}
	return string(s.AppendBaseString(nil, method, []byte(uri))), nil
}

// The example of RFC 5849 §3.4.1.1, whose base string the RFC prints
// (§3.4.1.1 and §3.4.1.3.2).
func TestRFC5849Example(t *testing.T) {
	const want = "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q" +
		"%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_" +
		"key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m" +
		"ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk" +
		"9d7dh3k39sjv7"
	var s Set
	got, err := build(&s, "post", "http://example.com/request",
		[]string{"b5=%3D%253D&a3=a&c%40=&a2=r%20b", "c2&a3=2+q"},
		[][2]string{
			{"oauth_consumer_key", "9djdj82h48djs9d2"}, {"oauth_token", "kkk9d7dh3k39sjv7"},
			{"oauth_signature_method", "HMAC-SHA1"}, {"oauth_timestamp", "137131201"},
			{"oauth_nonce", "7d8f3e4a"},
		})
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

var formTests = []struct {
	name, form, want string // want: the parameter part of the base string
}{
	{"empty", "", ""},
	{"empty pairs", "&&a=1&&", "a%3D1"},
	{"no equals", "a", "a%3D"},
	{"equals in value", "a=b=c", "a%3Db%253Dc"},
	{"plus is space", "a=b+c", "a%3Db%2520c"},
	{"escaped plus", "a=%2B", "a%3D%252B"},
	{"semicolon is data", "a=1;b=2", "a%3D1%253Bb%253D2"},
	{"lowercase hex", "a=%2f", "a%3D%252F"},
	{"escaped unreserved", "%61=%7E", "a%3D~"},
	{"raw reserved", "a=:/?#[]@", "a%3D%253A%252F%253F%2523%255B%255D%2540"},
	{"raw non-ASCII", "a=é", "a%3D%25C3%25A9"},
	{"NUL", "a=%00", "a%3D%2500"},
	{"sort by value", "a=2&a=10&a=1", "a%3D1%26a%3D10%26a%3D2"},
	// "%" sorts below every unreserved byte, before and after encoding.
	{"percent sorts first", "b=1&a%20=1&a=1&a0=1", "a%3D1%26a%2520%3D1%26a0%3D1%26b%3D1"},
}

func TestAddForm(t *testing.T) {
	var s Set
	for _, tt := range formTests {
		got, err := build(&s, "GET", "http://h/", []string{tt.form}, nil)
		require.NoError(t, err, tt.name)
		assert.Equal(t, "GET&http%3A%2F%2Fh%2F&"+tt.want, got, "%s: AddForm(%q)", tt.name, tt.form)
		ref, err := refBaseString("GET", "http://h/", []string{tt.form}, nil)
		require.NoError(t, err, tt.name)
		assert.Equal(t, ref, got, "%s: reference", tt.name)
	}
}

func TestAddFormErrors(t *testing.T) {
	for _, tt := range []struct {
		form   string
		offset int
		escape string
	}{
		{"a=%", 2, "%"},
		{"a=%2", 2, "%2"},
		{"a=%zz&b=1", 2, "%zz"},
		{"ok=1&%g1=2", 5, "%g1"},
	} {
		var s Set
		for _, err := range []error{s.AddForm(tt.form), s.AddFormBytes([]byte(tt.form))} {
			var ee *percent.EscapeError
			require.ErrorAs(t, err, &ee, "AddForm(%q)", tt.form)
			assert.Equal(t, percent.EscapeError{Offset: tt.offset, Escape: tt.escape}, *ee, "AddForm(%q)", tt.form)
		}
	}
}

// An error must not share memory with the bytes it was parsed from: they
// may be a pooled buffer that the next request overwrites.
func TestAddFormBytesErrorOwnsItsMemory(t *testing.T) {
	body := []byte("a=%zz")
	var s Set
	err := s.AddFormBytes(body)
	copy(body, "QRSTU")
	var ee *percent.EscapeError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, "%zz", ee.Escape)
}

func TestDeleteAndCount(t *testing.T) {
	var s Set
	require.NoError(t, s.AddForm("oauth_signature=x&a=1&oauth_nonce=1&oauth_nonce=2&a%20b=3"))
	s.Add("oauth_token", "t")
	for name, want := range map[string]int{"oauth_nonce": 2, "oauth_signature": 1, "oauth_token": 1, "a b": 1, "b": 0, "a": 1, "oauth_": 0, "oauth_noncf": 0} {
		assert.Equal(t, want, s.Count(name), "Count(%q)", name)
	}
	name, ok := s.Repeated("oauth_")
	assert.True(t, ok)
	assert.Equal(t, "oauth_nonce", name)
	_, ok = s.Repeated("a")
	assert.False(t, ok)
	s.Delete("oauth_signature")
	s.Delete("a b")
	assert.Equal(t, 4, s.Len())
	assert.Equal(t, "GET&u&a%3D1%26oauth_nonce%3D1%26oauth_nonce%3D2%26oauth_token%3Dt", string(s.AppendBaseString(nil, "GET", []byte("u"))))
}

// Large sets against the reference: a form of thousands of pairs with
// repeated names, as an upload would send.
func TestLargeForm(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, "field%d=value+%d%%2C+caf%%C3%%A9+%%26+more&", i%500, i)
	}
	form := b.String()
	var s Set
	got, err := build(&s, "POST", "https://api.example.com/upload", []string{form}, [][2]string{{"oauth_nonce", "n"}})
	require.NoError(t, err)
	want, err := refBaseString("POST", "https://api.example.com/upload", []string{form}, [][2]string{{"oauth_nonce", "n"}})
	require.NoError(t, err)
	assert.True(t, got == want, "base strings of a 64 KiB form differ")
}

// Sets of hundreds of pairs take another sort; run it twice on one Set, so
// that its buffers are reused, on names that share a prefix, names that
// differ in every byte, long names with equal first bytes, and repeats.
func TestLargeSetsSort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		const chars = "abcXYZ019-._~ %+=&é"
		b := make([]rune, n)
		for i := range b {
			b[i] = []rune(chars)[rnd.IntN(len([]rune(chars)))]
		}
		return string(b)
	}
	var s Set
	for round := range 6 {
		var forms []string
		var b strings.Builder
		for i := range 300 + 200*round {
			if round < 2 { // keys that differ in one byte, then in two: an odd and an even number of passes
				fmt.Fprintf(&b, "field%d=%d&", rnd.IntN(10+90*round), rnd.IntN(5))
				continue
			}
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "field%d=%d&", rnd.IntN(50), rnd.IntN(5))
			case 1:
				fmt.Fprintf(&b, "%s=%s&", percent.Encode(word(1+rnd.IntN(3))), percent.Encode(word(rnd.IntN(4))))
			case 2:
				fmt.Fprintf(&b, "a_very_long_shared_name%d=%s&", rnd.IntN(3), percent.Encode(word(rnd.IntN(3))))
			default:
				fmt.Fprintf(&b, "x=%d&", rnd.IntN(3))
			}
		}
		forms = append(forms, b.String())
		var adds [][2]string
		if round >= 2 {
			adds = [][2]string{{"oauth_nonce", "n"}}
		}
		got, err := build(&s, "POST", "https://h/", forms, adds)
		require.NoError(t, err)
		want, err := refBaseString("POST", "https://h/", forms, adds)
		require.NoError(t, err)
		require.True(t, got == want, "round %d: base strings differ", round)
	}
}

func FuzzMatchesReference(f *testing.F) {
	f.Add("GET", "https://h/p", "b5=%3D%253D&a3=a&c%40=&a2=r%20b", "c2&a3=2+q", "oauth_nonce", "7d8f3e4a")
	f.Add("post", "http://h/", "a=1;b=2&&=&%7e", "a=%FF%00+", "x y", "é")
	f.Add("GET", "u", "a=%zz", "", "", "")
	// Over 256 pairs: the radix sort, with names that share bytes.
	var many strings.Builder
	for i := range 400 {
		fmt.Fprintf(&many, "f%d=%d&a%c=%%%02X&", i%37, i%5, 'a'+i%26, i%256)
	}
	f.Add("POST", "https://h/", many.String(), strings.Repeat("a&", 300), "f1", "")
	f.Fuzz(func(t *testing.T, method, uri, query, body, name, value string) {
		var s Set
		forms := []string{query, body}
		adds := [][2]string{{name, value}, {"oauth_version", "1.0"}}
		want, wantErr := refBaseString(method, uri, forms, adds)
		got, err := build(&s, method, uri, forms, adds)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("build error %v, reference error %v", err, wantErr)
		}
		if err != nil {
			var ee *percent.EscapeError
			if !errors.As(err, &ee) {
				t.Fatalf("build error %T, want *percent.EscapeError", err)
			}
			return
		}
		if got != want {
			t.Fatalf("base string\n got %q\nwant %q", got, want)
		}
		// The same bytes through AddFormBytes.
		s.Reset()
		if err := s.AddFormBytes([]byte(query)); err != nil {
			t.Fatal(err)
		}
		if err := s.AddFormBytes([]byte(body)); err != nil {
			t.Fatal(err)
		}
		for _, a := range adds {
			s.Add(a[0], a[1])
		}
		if got := string(s.AppendBaseString(nil, method, []byte(uri))); got != want {
			t.Fatalf("AddFormBytes: base string\n got %q\nwant %q", got, want)
		}
	})
}

// The shapes that a sort by the first eight bytes of a name left to a
// comparison sort, against the reference: names that share more than eight
// bytes, one name repeated, names that are prefixes of others (encoded "a"
// and "a%2520": sorting "name=value" as one string would put "a%20=" before
// "a="), fields of exactly eight and sixteen bytes, and values that share
// long prefixes.
func TestSortShapes(t *testing.T) {
	perm := func(n int) []int { return rand.New(rand.NewPCG(3, 4)).Perm(n) }
	shapes := map[string]func(b *strings.Builder){
		"shared prefix": func(b *strings.Builder) {
			for _, i := range perm(10_000) {
				fmt.Fprintf(b, "parameter%05d=v%d&", i, i%7)
			}
		},
		"one name": func(b *strings.Builder) {
			for _, i := range perm(10_000) {
				fmt.Fprintf(b, "id=%d&", i)
			}
		},
		"one name, long shared values": func(b *strings.Builder) {
			for _, i := range perm(3000) {
				fmt.Fprintf(b, "name=%s%d&", strings.Repeat("v", 20), i%1500)
			}
		},
		"prefix names": func(b *strings.Builder) {
			names := []string{"a", "a%20", "a%20%20", "a+", "ab", "a%00", "a%3D", "aaaaaaaa", "aaaaaaaab", "aaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaab", "aaaaaaa"}
			values := []string{"", "a", "a%20", "%20", "b", "aaaaaaaa", "aaaaaaaa%20", "aaaaaaaaaaaaaaaa", "%00"}
			for _, i := range perm(2000) {
				fmt.Fprintf(b, "%s=%s&", names[i%len(names)], values[i/len(names)%len(values)])
			}
		},
		// Keys that differ in the ninth byte, then in the ninth and tenth: an
		// odd and an even number of passes past the first key.
		"ninth byte": func(b *strings.Builder) {
			for _, i := range perm(1000) {
				fmt.Fprintf(b, "abcdefgh%c=%d&", 'a'+i%26, i%3)
			}
		},
		"ninth and tenth bytes": func(b *strings.Builder) {
			for _, i := range perm(1000) {
				fmt.Fprintf(b, "abcdefgh%c%c=%d&", 'a'+i%26, 'a'+i/26%26, i%3)
			}
		},
		"mixed": func(b *strings.Builder) {
			for _, i := range perm(5000) {
				switch i % 4 {
				case 0:
					fmt.Fprintf(b, "parameter%d=%d&", i%100, i)
				case 1:
					fmt.Fprintf(b, "p=%s&", strings.Repeat("x", i%30))
				case 2:
					fmt.Fprintf(b, "paramete=%d&", i%10)
				default:
					fmt.Fprintf(b, "param%%20eter=%d&", i%5)
				}
			}
		},
	}
	var s Set
	for name, shape := range shapes {
		var b strings.Builder
		shape(&b)
		forms := []string{b.String()}
		got, err := build(&s, "GET", "https://h/", forms, nil)
		require.NoError(t, err, name)
		want, err := refBaseString("GET", "https://h/", forms, nil)
		require.NoError(t, err, name)
		require.True(t, got == want, "%s: base strings differ", name)
	}
}

// TestLongFields checks, against the reference, pairs whose name or value
// is long enough (65,535 bytes encoded twice, or more) that the Set keeps
// their offsets aside: short names with long values and the reverse, on
// both sides of that length, sorted among short pairs, with repeated names
// sorted by value, through the insertion sort and the radix sort, added by
// Add and by AddForm, with Delete and Count over them.
func TestLongFields(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	const longLen = 1<<16 - 1 // as the Set's
	var pairs []string
	for _, n := range []int{longLen - 2, longLen - 1, longLen, longLen + 1} {
		pairs = append(pairs,
			"b="+long("v", n), "b="+long("u", n), // equal names: by value
			long("n", n)+"=x", long("n", n)+"=w",
			long("a", n-1)+"b=1",
			"c="+long("%21", (n+4)/5), // each "%21" is "%2521" twice encoded
		)
	}
	for _, extra := range []int{0, 300} { // over 256 pairs: the radix sort
		form := strings.Join(pairs, "&")
		for i := range extra {
			form += fmt.Sprintf("&b=%d&n=%d", i%7, i)
		}
		adds := [][2]string{{"oauth_nonce", "n"}, {"b", long("t", longLen)}}
		var s Set
		got, err := build(&s, "POST", "https://h/", []string{form}, adds)
		require.NoError(t, err)
		want, err := refBaseString("POST", "https://h/", []string{form}, adds)
		require.NoError(t, err)
		require.True(t, got == want, "extra %d: base strings differ", extra)
		assert.Equal(t, 9+extra, s.Count("b"))
		s.Delete("b")
		assert.Zero(t, s.Count("b"))
		assert.Equal(t, 4, s.Count("c"))
	}
}

// TestPairMemory checks that a form of one-letter pairs, a pair for every
// two bytes, takes 3.5 bytes a byte encoded ("a%3D%26") and 4 for the
// pairs: 7.5 in all, down from 9.5 with twelve-byte pairs.
func TestPairMemory(t *testing.T) {
	form := strings.Repeat("a&", 1<<16)
	var s Set
	require.NoError(t, s.AddForm(form))
	per := float64(s.Memory()) / float64(len(form))
	assert.InDelta(t, 7.5, per, 0.1, "%.2f bytes per form byte", per)
}
