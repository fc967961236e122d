package ascii

import "unicode/utf8"

// AppendLower appends s with ASCII letters lowercased.
func AppendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// ContainsFold reports whether sub is in s, ASCII letters compared without case.
func ContainsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// IndexFold returns the index of the first s in b, ASCII letters compared
// without case, or -1.
func IndexFold(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if HasPrefixFold(b[i:], s) {
			return i
		}
	}
	return -1
}

// HasPrefixFold reports whether b begins with s, ASCII letters compared
// without case.
func HasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && equalFold(string(b[:len(s)]), s)
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		if lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsASCII reports whether s holds only ASCII bytes.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
