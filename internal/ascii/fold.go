package ascii

// The helpers below fold ASCII case only: 'A' to 'Z' match 'a' to 'z' and
// no other byte is changed or matched to another. Protocol names, header
// values and hosts compare so; [strings.EqualFold] would also match the
// Kelvin sign "\u212A" to "k" and the long s "\u017F" to "s".

// AppendLower appends s to dst with 'A' to 'Z' lowercased and every other
// byte, UTF-8 included, as it is.
func AppendLower(dst []byte, s string) []byte {
	n := len(dst)
	dst = append(dst, s...)
	for i, c := range dst[n:] {
		dst[n+i] = lower(c)
	}
	return dst
}

// ContainsFold reports whether sub is within s, ASCII case ignored.
func ContainsFold(s, sub string) bool { return indexFold(s, sub) >= 0 }

// IndexFold returns the index of the first instance of s in b, ASCII case
// ignored, or -1 if s is not present in b. An empty s is at index 0.
func IndexFold(b []byte, s string) int { return indexFold(b, s) }

func indexFold[T string | []byte](b T, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if hasPrefixFold(b[i:], s) {
			return i
		}
	}
	return -1
}

// HasPrefixFold reports whether b begins with prefix, ASCII letters compared
// without case.
func HasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && hasPrefixFold(b, prefix)
}

func hasPrefixFold[T string | []byte](b T, prefix string) bool {
	for i := 0; i < len(prefix); i++ {
		if lower(b[i]) != lower(prefix[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// IsASCII reports whether every byte of s is below 0x80.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// IsHex reports whether c is a hex digit, in either case; [Unhex] gives its
// value.
func IsHex(c byte) bool { return unhex[c] != 0xFF }
