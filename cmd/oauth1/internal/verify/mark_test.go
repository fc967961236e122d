package verify

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// spans writes spans as text with the changed ones in brackets.
func spans(ss []Span) string {
	var b strings.Builder
	for _, s := range ss {
		if s.Changed {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// The expected marks are written by hand from the two strings.
func TestMark(t *testing.T) {
	for _, tt := range []struct {
		name, want, got, wantMarked, gotMarked string
	}{
		{"equal", "GET&u&a%3D1", "GET&u&a%3D1", "GET&u&a%3D1", "GET&u&a%3D1"},
		{"a pair dropped", "GET&u&a%3D1%26a%3D2%26b%3D3", "GET&u&a%3D1%26b%3D3",
			"GET&u&a%3D1%26[a%3D2%26]b%3D3", "GET&u&a%3D1%26b%3D3"},
		{"a pair moved", "GET&u&a%3D1%26b%3D2%26c%3D3", "GET&u&b%3D2%26a%3D1%26c%3D3",
			"GET&u&[a%3D1%26]b%3D2%26c%3D3", "GET&u&b%3D2%26[a%3D1%26]c%3D3"},
		{"one value changed", "GET&u&n%3Dabcd%26x%3D1", "GET&u&n%3Dabzd%26x%3D1",
			"GET&u&n%3Dab[cd]%26x%3D1", "GET&u&n%3Dab[zd]%26x%3D1"},
		// An escape is marked whole, never cut, nor one encoded twice: %2520
		// (a space in a parameter value) against %252B (a "+").
		{"escape kept whole", "GET&u&s%3Da%2520b", "GET&u&s%3Da%252Bb",
			"GET&u&s%3Da[%2520b]", "GET&u&s%3Da[%252Bb]"},
		{"encoded twice", "GET&u&s%3D%2C", "GET&u&s%3D%252C", "GET&u&s%3D[%2C]", "GET&u&s%3D[%252C]"},
		{"method", "POST&u&a%3D1", "GET&u&a%3D1", "[POST]&u&a%3D1", "[GET]&u&a%3D1"},
		{"a pair added at the end", "GET&u&a%3D1", "GET&u&a%3D1%26r%3Dx", "GET&u&a%3D1", "GET&u&a%3D1[%26r%3Dx]"},
	} {
		m := Mark(tt.want, tt.got)
		assert.Equal(t, tt.wantMarked, spans(m.Want), "%s: want", tt.name)
		assert.Equal(t, tt.gotMarked, spans(m.Got), "%s: got", tt.name)
	}
}

// Base strings too long to align token by token are marked by their
// common prefix and suffix, at once.
func TestMarkLong(t *testing.T) {
	want := "GET&u&" + strings.Repeat("a%3D1%26", 1000) + "z%3D1"
	got := "GET&u&" + strings.Repeat("a%3D1%26", 1000) + "z%3D22"
	m := Mark(want, got)
	assert.Equal(t, strings.TrimSuffix(want, "1")+"[1]", spans(m.Want))
	assert.Equal(t, strings.TrimSuffix(got, "22")+"[22]", spans(m.Got))
}

// Whatever the input, the spans join to the two strings, and no span is
// empty or marked like its neighbour.
func FuzzMark(f *testing.F) {
	f.Add("GET&u&a%3D1%26b%3D2", "GET&u&b%3D2%26a%3D1")
	f.Add("POST&https%3A%2F%2Fa%2F&x%3D%2520", "post&https%3A%2F%2Fa%2F&x%3D%252B%26y%3D")
	f.Add("%", "%2")
	f.Fuzz(func(t *testing.T, want, got string) {
		m := Mark(want, got)
		for _, side := range []struct {
			s     string
			spans []Span
		}{{want, m.Want}, {got, m.Got}} {
			var b strings.Builder
			for i, sp := range side.spans {
				if sp.Text == "" || i > 0 && side.spans[i-1].Changed == sp.Changed {
					t.Fatalf("Mark(%q, %q): spans %+v", want, got, side.spans)
				}
				b.WriteString(sp.Text)
			}
			if b.String() != side.s {
				t.Fatalf("Mark(%q, %q): spans join to %q, want %q", want, got, b.String(), side.s)
			}
		}
		if want == got && (len(m.Want) > 1 || len(m.Want) == 1 && m.Want[0].Changed) {
			t.Fatalf("Mark(%q, %q) marks equal strings: %+v", want, got, m.Want)
		}
	})
}

// craftedPair is a pair of base strings of many long tokens alike but for
// their last byte: 500 tokens a side, within maxMarkCells.
func craftedPair() (want, got string) {
	tok := strings.Repeat("x", 8<<10)
	var w, g strings.Builder
	for i := range 250 {
		w.WriteString(tok + strconv.Itoa(i) + "&")
		g.WriteString(tok + strconv.Itoa(i+1) + "&")
	}
	return w.String(), g.String()
}

// A crafted pair is marked whole and right; what it costs is
// BenchmarkMarkCrafted's to say, not a clock in a test (a busy machine
// took 1.7 s where an idle one takes a few ms).
func TestMarkCrafted(t *testing.T) {
	want, got := craftedPair()
	m := Mark(want, got)
	for _, side := range []struct {
		s     string
		spans []Span
	}{{want, m.Want}, {got, m.Got}} {
		var b strings.Builder
		for _, sp := range side.spans {
			b.WriteString(sp.Text)
		}
		if b.String() != side.s {
			t.Fatalf("Mark's spans join to %d bytes, want %d", b.Len(), len(side.s))
		}
	}
}

func BenchmarkMarkCrafted(b *testing.B) {
	want, got := craftedPair()
	for b.Loop() {
		Mark(want, got)
	}
}
