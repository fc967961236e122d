package server

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// lookupableRef is the check in its plainest form: UTF-8, and no byte
// under 0x20 nor 0x7F.
func lookupableRef(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return utf8.ValidString(s)
}

// TestLookupable compares lookupable, which reads eight bytes at a time,
// with the plain check, for every byte value at every offset of strings
// either side of a word, and for non-ASCII strings.
func TestLookupable(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 40} {
		for i := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("k", n))
				b[i] = byte(c)
				s := string(b)
				if got, want := lookupable(s), lookupableRef(s); got != want {
					t.Fatalf("lookupable(%q) = %v; want %v", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "clé", "clé\x00", "clé\x7f", "clé\xff", "\u00e9\u20ac\U0001F600 key", "key \uFFFD", "0123456789abcdé\x1f", "\xc3", "abcdefgh\xc3\xa9", "abcdefg\xc3\xa9\x0a"} {
		if got, want := lookupable(s), lookupableRef(s); got != want {
			t.Errorf("lookupable(%q) = %v; want %v", s, got, want)
		}
	}
}

func BenchmarkLookupable(b *testing.B) {
	key, token := "xvz1evFS4wEEPTGEFPHBog", "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
	b.Run("impl=onepass", func(b *testing.B) {
		for b.Loop() {
			if !lookupable(key) || !lookupable(token) {
				b.Fatal()
			}
		}
	})
	b.Run("impl=twopass", func(b *testing.B) {
		for b.Loop() {
			if !lookupableRef(key) || !lookupableRef(token) {
				b.Fatal()
			}
		}
	})
}
