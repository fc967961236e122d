package notice

import "strings"

// A link is what Read needs of a link-value: its target and whether its
// rel names the relations "deprecation" and "sunset".
type link struct {
	target              string
	deprecation, sunset bool
}

// eachLink calls fn with the link-values of a Link field value v (RFC 8288
// §3): "<" URI-Reference ">" followed by "; name=value" parameters, the
// values tokens or quoted strings, the link-values separated by commas. It
// reads the rel parameter only, the first one of each link (§3.3). It
// reads at most *budget link-values, which it counts down, and stops at the
// first malformed one and at one longer than maxLinkValue bytes, so that
// it never reads more than about *budget×maxLinkValue bytes of v. It
// allocates nothing.
func eachLink(v string, budget *int, fn func(link)) {
	i := 0
	for *budget > 0 {
		// Separators and empty list elements (RFC 9110 §5.6.1) count
		// towards the link-value that follows.
		w := v[i:min(len(v), i+maxLinkValue)]
		j := 0
		for j < len(w) && (w[j] == ' ' || w[j] == '\t' || w[j] == ',') {
			j++
		}
		if j == len(w) {
			return // the end of v, or nothing but separators
		}
		*budget--
		l, n, ok := parseLink(w[j:])
		if !ok {
			return
		}
		end := i + j + n
		// A link-value that runs to the end of the window, with v going
		// on, may go on too: it is too long.
		if end == i+len(w) && end < len(v) {
			return
		}
		fn(l)
		i = end
	}
}

// parseLink parses the link-value at the start of w, up to the comma after
// it or the end of w, and returns it and its length.
func parseLink(w string) (link, int, bool) {
	if w == "" || w[0] != '<' {
		return link{}, 0, false
	}
	end := strings.IndexByte(w, '>')
	if end < 0 {
		return link{}, 0, false
	}
	l := link{target: w[1:end]}
	i := end + 1
	relSeen := false
	for {
		i = skipWS(w, i)
		if i >= len(w) || w[i] == ',' {
			return l, i, true
		}
		if w[i] != ';' {
			return link{}, 0, false
		}
		i = skipWS(w, i+1)
		j := i
		for j < len(w) && w[j] != '=' && w[j] != ';' && w[j] != ',' && w[j] != ' ' && w[j] != '\t' {
			j++
		}
		name := w[i:j]
		i = skipWS(w, j)
		var value string
		if i < len(w) && w[i] == '=' {
			var ok bool
			if value, i, ok = paramValue(w, skipWS(w, i+1)); !ok {
				return link{}, 0, false
			}
		}
		if strings.EqualFold(name, "rel") && !relSeen {
			relSeen = true
			for _, r := range strings.Fields(value) {
				switch {
				case strings.EqualFold(r, "deprecation"):
					l.deprecation = true
				case strings.EqualFold(r, "sunset"):
					l.sunset = true
				}
			}
		}
	}
}

func skipWS(w string, i int) int {
	for i < len(w) && (w[i] == ' ' || w[i] == '\t') {
		i++
	}
	return i
}

// paramValue reads a token or a quoted string (RFC 9110 §5.6.4) at w[i:],
// and returns it, its quoted-pairs undone, and the index after it.
func paramValue(w string, i int) (string, int, bool) {
	if i < len(w) && w[i] == '"' {
		escaped := false
		for j := i + 1; j < len(w); j++ {
			switch w[j] {
			case '"':
				v := w[i+1 : j]
				if escaped { // rare: a copy, of at most maxLinkValue bytes
					var b strings.Builder
					for k := 0; k < len(v); k++ {
						if v[k] == '\\' {
							k++
						}
						b.WriteByte(v[k])
					}
					v = b.String()
				}
				return v, j + 1, true
			case '\\':
				escaped = true
				j++
			}
		}
		return "", i, false // unterminated
	}
	j := i
	for j < len(w) && w[j] != ';' && w[j] != ',' && w[j] != ' ' && w[j] != '\t' {
		j++
	}
	return w[i:j], j, true
}
