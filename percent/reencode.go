package percent

import (
	"encoding/binary"
	"slices"
)

// AppendReencodeForm appends Encode(DecodeForm(s)) to dst: form data
// (application/x-www-form-urlencoded, where "+" is a space) rewritten in the
// strict encoding of [Encode]. This is what RFC 5849 §3.4.1.3.2 does to
// every query and form-body parameter before it signs them, and doing it in
// one pass skips the decoded intermediate and the second scan. A malformed
// escape is an [*EscapeError]; dst is then returned extended by what was
// written before it.
func AppendReencodeForm(dst []byte, s string) ([]byte, error) {
	// No input byte writes more than three output bytes (an escape reads
	// three and writes three at most), and the four-byte stores below need
	// one spare byte past the last. With that room reserved, every byte is
	// one table load and one store, with no branch on whether it is escaped:
	// form data mixes escaped and plain bytes too irregularly for that
	// branch to predict well.
	n := len(dst)
	dst = slices.Grow(dst, 3*len(s)+1)
	out := dst[n : n+3*len(s)+1]
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		e := encForm[c]
		if c == '%' {
			v, ok := unescape(s, i)
			if !ok {
				return dst[:n+j], escapeError(s, i)
			}
			e = enc[v]
			i += 2
		}
		binary.LittleEndian.PutUint32(out[j:j+4], e) // the top byte is overwritten or spare
		j += int(e >> 24)
	}
	return dst[:n+j], nil
}

// encForm is enc for form data: "+" is a space, so it encodes as "%20". One
// table load then handles "+" without a branch of its own.
var encForm = func() (t [256]uint32) {
	t = enc
	t['+'] = enc[' ']
	return t
}()
