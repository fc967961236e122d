package sunset

import (
	"net/http"
	"time"

	"github.com/countersign/countersign/oauth1/internal/notice"
)

// A Notice is what a response announced about the retirement of the API
// that sent it, as a client reads it with [Read]. Zero fields were not
// announced, or were malformed.
type Notice struct {
	// Deprecated is set when the response carries a valid Deprecation
	// header: with its date in Deprecation, or with none for the legacy
	// "Deprecation: true" (see [Read]).
	Deprecated  bool
	Deprecation time.Time // the Deprecation header (RFC 9745): deprecated from then
	Sunset      time.Time // the Sunset header (RFC 8594): retired from then
	Link        string    // the migration guide: the Link with rel "deprecation", else "sunset"
}

// Read returns what the header h of a response announces, from its
// Deprecation, Sunset and Link headers. Check every response for one, the
// successful ones too: a provider announces the retirement long before it
// refuses anything. A [Transport] does it for every response of a client.
//
// A malformed header is left out, as the RFCs say: Deprecation must be
// one RFC 9651 Item whose value is a Date, such as "@1688169599" or
// "@1688169599;foo=bar" (two Deprecation fields are not: RFC 9651 §4.2
// joins them into a List), Sunset an HTTP-date. Three forms that servers
// send are read although no RFC defines them: "Deprecation: true", the
// form of the drafts of RFC 9745 up to draft-ietf-httpapi-deprecation-header-02
// (Deprecated, without a date); a Deprecation that is an HTTP-date, such
// as "Sun, 30 Jun 2024 23:59:59 GMT", what GitHub sends and Zalando's API
// guidelines said from 2020 to 2025 (Deprecated, at that date); and an
// HTTP-date that ends in "UTC" instead of "GMT", as RFC 9745 §4's own
// example "Sun, 30 Jun 2024 23:59:59 UTC" does. A link that is not printable ASCII, holds a space or
// is longer than 2048 bytes is left out, so that a Notice is safe to
// print. Read's work is bounded whatever the headers' size: it looks at
// the first 8 links of the first 8 Link fields, each at most 4 KiB.
func Read(h http.Header) Notice {
	n := notice.Read(h)
	return Notice{Deprecated: n.Deprecated, Deprecation: n.Deprecation, Sunset: n.Sunset, Link: n.Link}
}

// IsZero reports whether n announces nothing.
func (n Notice) IsZero() bool { return n == Notice{} }

// String describes n in one line for a developer, such as "the provider
// deprecates this API as of 2026-06-01 00:00:00 UTC and retires it at
// 2026-12-31 23:59:59 UTC (see https://developer.example.com/migrate)",
// or returns "" when n announces nothing.
func (n Notice) String() string {
	return notice.Notice{Deprecated: n.Deprecated || !n.Deprecation.IsZero(), Deprecation: n.Deprecation, Sunset: n.Sunset, Link: n.Link}.String()
}
