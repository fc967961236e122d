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
	Deprecation time.Time // the Deprecation header (RFC 9745): deprecated from then
	Sunset      time.Time // the Sunset header (RFC 8594): retired from then
	Link        string    // the migration guide: the Link with rel "deprecation", else "sunset"
}

// Read returns what the header h of a response announces, from its
// Deprecation, Sunset and Link headers. A malformed date is left out, as
// the RFCs say, and so is a link that is not printable ASCII, holds a
// space or is longer than 2048 bytes, so that a Notice is safe to print.
// Check every response for one, the successful ones too: a provider
// announces the retirement long before it refuses anything.
func Read(h http.Header) Notice {
	n := notice.Read(h)
	return Notice{Deprecation: n.Deprecation, Sunset: n.Sunset, Link: n.Link}
}

// String describes n in one line for a developer, such as "the provider
// deprecated this API at 2026-06-01 00:00:00 UTC and retires it at
// 2026-12-31 23:59:59 UTC (see https://developer.example.com/migrate)",
// or returns "" when n announces nothing.
func (n Notice) String() string {
	return notice.Notice{Deprecated: !n.Deprecation.IsZero(), Deprecation: n.Deprecation, Sunset: n.Sunset, Link: n.Link}.String()
}
