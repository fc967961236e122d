package percent

import "slices"

// AppendReencodeForm appends Encode(DecodeForm(s)) to dst: form data
// (application/x-www-form-urlencoded, where "+" is a space) rewritten in the
// strict encoding of [Encode]. This is what RFC 5849 §3.4.1.3.2 does to
// every query and form-body parameter before it signs them, and doing it in
// one pass skips the decoded intermediate and the second scan. A malformed
// escape is an [*EscapeError]; dst is then returned extended by what was
// written before it.
func AppendReencodeForm(dst []byte, s string) ([]byte, error) {
	// Most bytes come out as they went in; the rest grow by two at most,
	// and append grows dst geometrically when that happens.
	dst = slices.Grow(dst, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '%':
			if i+2 >= len(s) || unhex[s[i+1]]|unhex[s[i+2]] == 0xFF {
				return dst, escapeError(s, i)
			}
			c = unhex[s[i+1]]<<4 | unhex[s[i+2]]
			i += 2
		case '+':
			c = ' '
		}
		if escape[c] == 0 {
			dst = append(dst, c)
		} else {
			dst = append(dst, '%', upperhex[c>>4], upperhex[c&15])
		}
	}
	return dst, nil
}
