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

// Read's bounds: a provider's headers are hostile input, and Read runs
// on every response, so it reads a few links of a few KiB, never the whole
// of a header that may be megabytes long.
const (
	maxLinkFields = 8    // Link fields read
	maxLinks      = 8    // link-values read, across the fields
	maxLinkValue  = 4096 // bytes of one link-value, parameters included
	maxDateField  = 64   // bytes of an HTTP-date field, Sunset or Deprecation (an HTTP-date has 29)
	maxItemField  = 4096 // bytes of a Deprecation field, parameters included
)

// A Notice is what a response says about the retirement of the API that
// answered. Deprecated is set when the response has a valid Deprecation
// header: Deprecation is its date, which may be in the future, or zero for
// the legacy "Deprecation: true". Sunset is zero without a Sunset header.
type Notice struct {
	Deprecated  bool
	Deprecation time.Time
	Sunset      time.Time
	Link        string
}

// Read returns what h's Deprecation, Sunset and Link headers say. A header
// that is malformed is left out, as RFC 9745 §2.1, RFC 8594 §3 and RFC 9651
// §4.2 say: so are two Deprecation fields, which RFC 9651 §4.2 joins into
// one value that is not an Item, and two Sunset fields that differ.
//
// Deprecation is an RFC 9651 Item whose value is a Date, with any
// parameters ("@1688169599;foo=bar"). Three forms that servers send are
// read although the RFCs do not define them: "true", the value of drafts
// of RFC 9745 up to draft-ietf-httpapi-deprecation-header-02 that servers
// built on them still send (deprecated, at a date not given); a
// Deprecation that is an HTTP-date, as Sunset is ("Sun, 30 Jun 2024
// 23:59:59 GMT": what GitHub sends, and what Zalando's API guidelines said
// from 2020 to 2025), read as a deprecation at that date; and an HTTP-date
// that ends in "UTC" instead of "GMT", as RFC 9745 §4's own example of
// Sunset does ("Sun, 30 Jun 2024 23:59:59 UTC").
//
// The Link kept is the first with rel "deprecation", or else the first
// with rel "sunset", if it is printable ASCII of at most MaxLink bytes.
// Read looks at the first 8 link-values of the first 8 Link fields and
// stops at one longer than 4 KiB, so its work is bounded whatever the size
// of the headers.
func Read(h http.Header) Notice {
	var n Notice
	if vs := h.Values("Deprecation"); len(vs) == 1 {
		if t, ok := ParseItemDate(vs[0]); ok {
			n.Deprecated, n.Deprecation = true, t
		} else if v := strings.Trim(vs[0], " \t"); v == "true" {
			n.Deprecated = true
		} else if t, ok := parseHTTPDate(v); ok {
			n.Deprecated, n.Deprecation = true, t
		}
	}
	if t, ok := parseSunset(h.Values("Sunset")); ok {
		n.Sunset = t
	}
	var sunsetLink string
	budget := maxLinks
	for i, v := range h.Values("Link") {
		if i == maxLinkFields || budget == 0 {
			break
		}
		eachLink(v, &budget, func(l link) {
			if !printable(l.target) {
				return
			}
			if l.deprecation && n.Link == "" {
				n.Link = l.target
			}
			if l.sunset && sunsetLink == "" {
				sunsetLink = l.target
			}
		})
	}
	if n.Link == "" {
		n.Link = sunsetLink
	}
	// The header may be megabytes: keep none of it.
	n.Link = strings.Clone(n.Link)
	return n
}

// parseSunset parses the Sunset fields vs: one HTTP-date (RFC 8594 §3),
// or several equal ones, and a date that ends in "UTC" for "GMT".
func parseSunset(vs []string) (time.Time, bool) {
	if len(vs) == 0 || len(vs) > maxLinkFields {
		return time.Time{}, false
	}
	v := strings.Trim(vs[0], " \t")
	for _, w := range vs[1:] {
		if strings.Trim(w, " \t") != v {
			return time.Time{}, false
		}
	}
	return parseHTTPDate(v)
}

// parseHTTPDate parses v, a trimmed field value, as an HTTP-date (RFC 9110 §5.6.7, and
// the obsolete forms http.ParseTime reads), or one that ends in "UTC" for
// "GMT".
func parseHTTPDate(v string) (time.Time, bool) {
	if v == "" || len(v) > maxDateField {
		return time.Time{}, false
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.UTC(), true
	}
	if d, ok := strings.CutSuffix(v, " UTC"); ok {
		if t, err := time.Parse(http.TimeFormat, d+" GMT"); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// IsZero reports whether n says nothing.
func (n Notice) IsZero() bool { return !n.Deprecated && n.Sunset.IsZero() && n.Link == "" }

// String describes n in one line for a developer, such as
//
//	the provider deprecates this API as of 2023-06-30 23:59:59 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://example.com/migrate)
//
// or "" when n says nothing.
func (n Notice) String() string {
	var b strings.Builder
	switch {
	case n.Deprecated && !n.Deprecation.IsZero() && !n.Sunset.IsZero():
		b.WriteString("the provider deprecates this API as of " + Format(n.Deprecation) + " and retires it at " + Format(n.Sunset))
	case n.Deprecated && n.Deprecation.IsZero() && !n.Sunset.IsZero():
		b.WriteString("the provider deprecated this API and retires it at " + Format(n.Sunset))
	case n.Deprecated && n.Deprecation.IsZero():
		b.WriteString("the provider deprecated this API")
	case n.Deprecated:
		b.WriteString("the provider deprecates this API as of " + Format(n.Deprecation))
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
