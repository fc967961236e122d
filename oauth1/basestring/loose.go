package basestring

import (
	"strconv"
	"strings"
)

// parseLoose parses s as Parse does and, when s breaks the syntax of a
// base string in a way a client's bug explains, parses it as far as it can
// and reports each break as a Syntax difference, so that Diff can still
// compare the parts. side is "want" or "got", for the causes. flagged holds
// the decoded names of the parameters a Syntax difference already covers.
// It fails only when s does not have three parts, an absolute base string
// URI and a method: then there is nothing to compare.
func parseLoose(s, side string) (b *BaseString, issues []Difference, flagged map[string]bool, err error) {
	b, err = Parse(s)
	if err == nil {
		return b, nil, nil, nil
	}
	i1 := strings.IndexByte(s, '&')
	i2 := -1
	if i1 >= 0 {
		if j := strings.IndexByte(s[i1+1:], '&'); j >= 0 {
			i2 = i1 + 1 + j
		}
	}
	if i2 < 0 {
		return nil, nil, nil, err
	}
	b = &BaseString{RawMethod: s[:i1], RawURI: s[i1+1 : i2]}
	var bad bool
	if b.Method, bad = looseDecode(b.RawMethod); b.Method == "" {
		return nil, nil, nil, err
	}
	note := func(name, cause string, at int, raw string) {
		issues = append(issues, Difference{Kind: Syntax, Name: name, Cause: side + " " + cause + " (at offset " + strconv.Itoa(at) + ")", Want: pick(side == "want", raw), Got: pick(side == "got", raw)})
	}
	if bad {
		note("", `has a "%" in the method that is not an escape`, 0, b.RawMethod)
	}
	if b.URI, bad = looseDecode(b.RawURI); !strings.Contains(b.URI, "://") {
		return nil, nil, nil, err
	}
	if bad {
		note("", `has a "%" in the base string URI that is not an escape: the URI must be encoded as a whole (§3.4.1.1), "%" as "%25"`, i1+1, b.RawURI)
	}
	raw := s[i2+1:]
	var ps string
	encoded := true
	if strings.IndexByte(raw, '&') >= 0 {
		encoded = false
		// The pairs were joined with "&" but the result was not encoded
		// again: they are one layer of encoding short.
		ps = raw
		note("", `has an unencoded "&" in the parameter string: after joining the pairs with "&", the client did not encode the whole string again (RFC 5849 §3.4.1.1); its pairs are compared as they are`, i2+1+strings.IndexByte(raw, '&'), cut(raw))
	} else if ps, bad = looseDecode(raw); bad {
		note("", `has a "%" in the parameter string that is not an escape: the parameter string must be encoded as a whole (§3.4.1.1)`, i2+1, cut(raw))
	}
	m := offsetMap{raw: raw}
	flagged = map[string]bool{}
	for off := 0; ps != "" && off <= len(ps); {
		end := strings.IndexByte(ps[off:], '&')
		if end < 0 {
			end = len(ps)
		} else {
			end += off
		}
		pair := ps[off:end]
		at := i2 + 1 + off
		if encoded {
			at = i2 + 1 + m.at(off)
		}
		off = end + 1
		if pair == "" {
			note("", `has an empty pair ("&&"): the client joined a parameter that has no name`, at, "")
			continue
		}
		name, value, hasEq := strings.Cut(pair, "=")
		p := Param{RawName: name, RawValue: value, Offset: at}
		var badName, badValue bool
		p.Name, badName = looseDecode(name)
		p.Value, badValue = looseDecode(value)
		switch {
		case !hasEq:
			note(p.Name, "has the pair "+strconv.Quote(pair)+` without "=": a parameter is signed as name "=" value even when its value is empty (`+strconv.Quote(name+"=")+", §3.4.1.3.2)", at, pair)
		case badName:
			note(p.Name, "has the name "+strconv.Quote(name)+` with a "%" that is not an escape: the client did not encode the name (each name is encoded, "%" as "%25", §3.4.1.3.2)`, at, pair)
		case badValue:
			note(p.Name, "has the value "+strconv.Quote(value)+` with a "%" that is not an escape: the client did not encode the value ("%" must be "%25", §3.4.1.3.2)`, at, pair)
		}
		if !hasEq || badName || badValue {
			flagged[p.Name] = true
		}
		b.Params = append(b.Params, p)
	}
	return b, issues, flagged, nil
}

func pick(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// looseDecode decodes the "%XX" escapes of s and keeps any other "%" as it
// is; bad reports such a "%".
func looseDecode(s string) (d string, bad bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
				b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
				i += 2
				continue
			}
			bad = true
		}
		b.WriteByte(s[i])
	}
	return b.String(), bad
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
