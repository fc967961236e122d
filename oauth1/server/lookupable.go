package server

import "unicode/utf8"

// lookupable reports whether s is UTF-8 without control characters, as
// every consumer key and token a provider issues is. It runs on every
// request, so it reads ASCII eight bytes at a time, in one pass, and hands
// only what follows a byte over 0x7F to the UTF-8 check.
func lookupable(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&highs != 0 {
			return lookupableRest(s[i:])
		}
		// Every byte is under 0x80: a byte under 0x20, or one that is
		// 0x7F (zero once XORed with it), borrows into its high bit.
		del := x ^ 0x7f*ones
		if (x-0x20*ones)&^x&highs != 0 || (del-ones)&^del&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return false
		} else if c >= utf8.RuneSelf {
			return lookupableRest(s[i:])
		}
	}
	return true
}

// lookupableRest is lookupable for a string that is not all ASCII.
func lookupableRest(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r < 0x20 || r == 0x7f || r == utf8.RuneError && n == 1 {
			return false
		}
		i += n
	}
	return true
}
