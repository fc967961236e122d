// Package notice reads and writes the headers with which a provider
// announces that an API is deprecated and will be retired: Deprecation
// (RFC 9745), Sunset (RFC 8594) and the Link to their documentation (RFC
// 8288, relations "deprecation" and "sunset"). Package oauth1 reads them
// into a ResponseError's message, and package sunset both writes and reads
// them.
package notice

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxLink is the longest link Read keeps; a longer one is left out, as
// something no guide to a migration needs.
const MaxLink = 2048

// A Notice is what a response says about the retirement of the API that
// answered. Deprecated is set when the response has a Deprecation header:
// Deprecation is its date, which may be in the future. Sunset is zero
// without a Sunset header.
type Notice struct {
	Deprecated  bool
	Deprecation time.Time
	Sunset      time.Time
	Link        string
}

// Read returns what h's Deprecation, Sunset and Link headers say. A header
// that is malformed is left out, as RFC 9745 §2.1 and RFC 8594 §3 say.
// The Link kept is the first with rel "deprecation", or else the first
// with rel "sunset", if it is printable ASCII of at most MaxLink bytes.
func Read(h http.Header) Notice {
	var n Notice
	if v := h.Get("Deprecation"); v != "" {
		if t, ok := ParseDate(v); ok {
			n.Deprecated, n.Deprecation = true, t
		}
	}
	if v := h.Get("Sunset"); v != "" {
		if t, err := http.ParseTime(strings.TrimSpace(v)); err == nil {
			n.Sunset = t.UTC()
		}
	}
	var sunsetLink string
	for _, v := range h.Values("Link") {
		for _, l := range links(v) {
			if !printable(l.target) {
				continue
			}
			if l.deprecation && n.Link == "" {
				n.Link = l.target
			}
			if l.sunset && sunsetLink == "" {
				sunsetLink = l.target
			}
		}
	}
	if n.Link == "" {
		n.Link = sunsetLink
	}
	return n
}

// IsZero reports whether n says nothing.
func (n Notice) IsZero() bool { return !n.Deprecated && n.Sunset.IsZero() && n.Link == "" }

// String describes n in one line for a developer, such as
//
//	the provider deprecated this API at 2023-06-30 23:59:59 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://example.com/migrate)
//
// or "" when n says nothing.
func (n Notice) String() string {
	var b strings.Builder
	switch {
	case n.Deprecated && !n.Sunset.IsZero():
		b.WriteString("the provider deprecated this API at " + Format(n.Deprecation) + " and retires it at " + Format(n.Sunset))
	case n.Deprecated:
		b.WriteString("the provider deprecated this API at " + Format(n.Deprecation))
	case !n.Sunset.IsZero():
		b.WriteString("the provider retires this API at " + Format(n.Sunset))
	case n.Link != "":
		b.WriteString("the provider links a deprecation notice")
	default:
		return ""
	}
	if n.Link != "" {
		b.WriteString(" (see " + n.Link + ")")
	}
	return b.String()
}

// Format writes t for a person: UTC, to the second.
func Format(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// AppendDate appends t as an RFC 9651 §3.3.7 Date, the value of a
// Deprecation header: "@" and the Unix time in seconds.
func AppendDate(b []byte, t time.Time) []byte {
	return strconv.AppendInt(append(b, '@'), t.Unix(), 10)
}

// ParseDate parses an RFC 9651 Date: "@", then an optional "-" and 1 to
// 15 digits (§3.3.7, §3.3.1), with the surrounding spaces a field may have
// (§4.2).
func ParseDate(v string) (time.Time, bool) {
	v = strings.Trim(v, " \t")
	if len(v) < 2 || v[0] != '@' {
		return time.Time{}, false
	}
	d := v[1:]
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 {
		return time.Time{}, false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return time.Time{}, false
		}
	}
	s, err := strconv.ParseInt(v[1:], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(s, 0).UTC(), true
}

// printable reports whether s is a link worth showing: 1 to MaxLink bytes
// of printable ASCII without spaces, so that it can end no line and hide
// nothing.
func printable(s string) bool {
	if s == "" || len(s) > MaxLink {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

type link struct {
	target              string
	deprecation, sunset bool
}

// links parses the link-values of a Link header field (RFC 8288 §3):
// "<" URI-Reference ">" followed by "; name=value" parameters, the values
// tokens or quoted strings, the link-values separated by commas. It reads
// the rel parameter only, the first one of each link (§3.3), and stops at
// the first malformed link-value.
func links(v string) []link {
	var ls []link
	i := 0
	for {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
			i++
		}
		if i >= len(v) || v[i] != '<' {
			return ls
		}
		end := strings.IndexByte(v[i:], '>')
		if end < 0 {
			return ls
		}
		l := link{target: v[i+1 : i+end]}
		i += end + 1
		relSeen := false
		for {
			for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
				i++
			}
			if i >= len(v) || v[i] == ',' {
				break
			}
			if v[i] != ';' {
				return ls
			}
			i++
			for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
				i++
			}
			j := i
			for j < len(v) && v[j] != '=' && v[j] != ';' && v[j] != ',' && v[j] != ' ' && v[j] != '\t' {
				j++
			}
			name := strings.ToLower(v[i:j])
			i = j
			for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
				i++
			}
			var value string
			if i < len(v) && v[i] == '=' {
				i++
				for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
					i++
				}
				var ok bool
				if value, i, ok = paramValue(v, i); !ok {
					return ls
				}
			}
			if name == "rel" && !relSeen {
				relSeen = true
				for _, r := range strings.Fields(value) {
					switch strings.ToLower(r) {
					case "deprecation":
						l.deprecation = true
					case "sunset":
						l.sunset = true
					}
				}
			}
		}
		ls = append(ls, l)
	}
}

// paramValue reads a token or a quoted string (RFC 9110 §5.6.4) at v[i:],
// and returns it and the index after it.
func paramValue(v string, i int) (string, int, bool) {
	if i < len(v) && v[i] == '"' {
		var b strings.Builder
		for i++; i < len(v); i++ {
			switch v[i] {
			case '"':
				return b.String(), i + 1, true
			case '\\':
				i++
				if i >= len(v) {
					return "", i, false
				}
			}
			b.WriteByte(v[i])
		}
		return "", i, false // unterminated
	}
	j := i
	for j < len(v) && v[j] != ';' && v[j] != ',' && v[j] != ' ' && v[j] != '\t' {
		j++
	}
	return v[i:j], j, true
}
