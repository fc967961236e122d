package sunset

import (
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/notice"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// A Policy is a provider's schedule for retiring OAuth 1.0a: when it
// announces the retirement, the brownouts before it and the cut-off. The
// zero value announces and refuses nothing. A Policy is not changed by
// this package, and its Handler is safe for concurrent use.
type Policy struct {
	// Deprecation is when OAuth 1.0a is deprecated: from then on, every
	// response of a Handler carries the Deprecation header, the Sunset
	// header when Sunset is set, and Link headers to Link. Before it (or
	// before Announce), only refusals carry them. Zero means never.
	Deprecation time.Time

	// Announce, when set, is when the headers start, before Deprecation:
	// from then on every response announces the deprecation to come, with
	// a Deprecation date in the future (RFC 9745 §2.2), the Sunset date
	// (RFC 8594 §3: the time a resource is expected to go) and the
	// Link to the migration guide, so that clients hear months ahead.
	// Zero means from Deprecation. It may not come after Deprecation, and
	// needs a Deprecation or a Sunset to announce.
	Announce time.Time

	// Sunset is the cut-off: from then on every request is refused with
	// 410 Gone. Zero means none. It may not come before Deprecation.
	Sunset time.Time

	// Link is the URL of the migration guide, sent in the Link headers
	// (relations "deprecation" and "sunset") and in the advice of every
	// refusal. It must be an absolute http or https URL of printable ASCII
	// without spaces, quotes or angle brackets, or empty.
	Link string

	// Brownouts are the windows, from Start up to End, in which every
	// request is refused with 401 Unauthorized, so that the developers of
	// clients that still use OAuth 1.0a notice before the cut-off.
	Brownouts []Brownout

	// Realm is the realm of the WWW-Authenticate challenge of a refusal
	// with 401, as [server.Verifier].Realm is.
	Realm string

	// Now is the clock; nil means time.Now. Tests set a fixed clock.
	Now func() time.Time
}

// A Brownout is a window, from Start up to but not including End, in
// which a Policy refuses OAuth 1.0a requests.
type Brownout struct {
	Start, End time.Time
}

// Handler returns a handler that answers each request as [Policy.Admit]
// does at the time of p.Now, and passes the requests it admits on to next.
// Every request that reaches it is taken for an OAuth 1.0a request: put it
// around the handlers that serve OAuth 1.0a only.
//
// Handler reads p once: changing p afterwards changes nothing. Check p
// with [Policy.Validate] before serving, as http.Server's ListenAndServe
// reports a configuration it cannot serve. A Policy that is not valid
// makes a handler that answers every request with 500 Internal Server
// Error and oauth_problem=internal_error, failing closed, and Handler logs
// why, once, at slog's error level with slog.Default.
func (p Policy) Handler(next http.Handler) http.Handler {
	c := p.compile()
	if c.err != nil {
		slog.Error("sunset: every request will be answered 500 Internal Server Error", "err", c.err)
	}
	now := p.Now
	if now == nil {
		now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.admit(w, now()) {
			next.ServeHTTP(w, r)
		}
	})
}

// Admit answers an OAuth 1.0a request at time t: it reports whether the
// request may be served, after adding the Deprecation, Sunset and Link
// headers to w's header when p announces the retirement at t. When it
// returns false it has written the refusal, and the request must not be
// served: 410 Gone from the Sunset on, 401 Unauthorized in a brownout,
// each with oauth_problem=version_rejected and advice that names the
// dates and the link; 500 Internal Server Error for a Policy that is not
// valid. Admit is for a handler that serves OAuth 1.0a and other requests
// alike, and for tests; [Policy.Handler] calls it for every request.
func (p Policy) Admit(w http.ResponseWriter, t time.Time) bool {
	c := p.compile()
	return c.admit(w, t)
}

// compiled is a Policy checked, with its header values formatted.
type compiled struct {
	p                    Policy
	err                  error  // why p is not valid
	deprecation, sunset  string // header values; "" when not set
	linkDep, linkSunset  string
	challenge            string // WWW-Authenticate of a 401
	sunsetText, linkText string // for the advice
}

func (p Policy) compile() *compiled {
	p.Brownouts = slices.Clone(p.Brownouts) // the caller's array may change
	c := &compiled{p: p}
	if err := p.check(); err != nil {
		c.err = err
		return c
	}
	if !p.Deprecation.IsZero() {
		c.deprecation = string(notice.AppendDate(nil, p.Deprecation))
	}
	if !p.Sunset.IsZero() {
		c.sunset = p.Sunset.UTC().Format(http.TimeFormat)
		c.sunsetText = " before its retirement at " + notice.Format(p.Sunset)
	}
	if p.Link != "" {
		c.linkDep = "<" + p.Link + `>; rel="deprecation"`
		c.linkSunset = "<" + p.Link + `>; rel="sunset"`
		c.linkText = "; migrate: " + p.Link
	}
	c.challenge = string(wire.AppendQuoted([]byte("OAuth realm="), p.Realm))
	return c
}

// Validate returns why p is not valid, or nil: a Link that is not an
// absolute http or https URL of printable ASCII of at most 2048 bytes, a
// Sunset before Deprecation, an Announce after Deprecation or with nothing
// to announce, a brownout that does not end after it starts. The error is
// a [*PolicyError].
func (p Policy) Validate() error {
	if err := p.check(); err != nil {
		return err
	}
	return nil
}

// A PolicyError reports why a [Policy] is not valid: the field and what
// is wrong with it.
type PolicyError struct {
	Field  string // "Link", "Sunset", "Announce", "Brownouts[2]"...
	Reason string
}

func (e *PolicyError) Error() string { return "sunset: Policy." + e.Field + " " + e.Reason }

// check returns why p is not valid, or nil.
func (p Policy) check() *PolicyError {
	if p.Link != "" {
		for i := 0; i < len(p.Link); i++ {
			if b := p.Link[i]; b <= ' ' || b >= 0x7f || b == '<' || b == '>' || b == '"' {
				return &PolicyError{"Link", "holds a space, a control character, a quote, an angle bracket or non-ASCII"}
			}
		}
		u, err := url.Parse(p.Link)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &PolicyError{"Link", "is not an absolute http or https URL"}
		}
		if len(p.Link) > notice.MaxLink {
			return &PolicyError{"Link", "is longer than " + strconv.Itoa(notice.MaxLink) + " bytes"}
		}
	}
	if !p.Sunset.IsZero() && !p.Deprecation.IsZero() && p.Sunset.Before(p.Deprecation) {
		return &PolicyError{"Sunset", "comes before Policy.Deprecation"}
	}
	if !p.Announce.IsZero() {
		switch {
		case p.Deprecation.IsZero() && p.Sunset.IsZero():
			return &PolicyError{"Announce", "is set without a Deprecation or a Sunset to announce"}
		case !p.Deprecation.IsZero() && p.Announce.After(p.Deprecation):
			return &PolicyError{"Announce", "comes after Policy.Deprecation"}
		case !p.Sunset.IsZero() && p.Announce.After(p.Sunset):
			return &PolicyError{"Announce", "comes after Policy.Sunset"}
		}
	}
	for i, b := range p.Brownouts {
		if !b.End.After(b.Start) {
			return &PolicyError{"Brownouts[" + strconv.Itoa(i) + "]", "does not end after it starts"}
		}
	}
	return nil
}

func (c *compiled) admit(w http.ResponseWriter, t time.Time) bool {
	h := w.Header()
	if c.err != nil {
		h.Set("Content-Type", wire.FormType)
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("oauth_problem=" + string(oauth1.ProblemInternalError)))
		return false
	}
	p := &c.p
	var advice string
	status := 0
	switch {
	case !p.Sunset.IsZero() && !t.Before(p.Sunset):
		status = http.StatusGone
		advice = "OAuth 1.0a was retired at " + notice.Format(p.Sunset) + c.linkText
	default:
		for _, b := range p.Brownouts {
			if !t.Before(b.Start) && t.Before(b.End) {
				status = http.StatusUnauthorized
				advice = "OAuth 1.0a is deprecated and switched off until " + notice.Format(b.End) +
					", a brownout" + c.sunsetText + c.linkText
				break
			}
		}
	}
	if status != 0 || (!p.Deprecation.IsZero() && !t.Before(p.Deprecation)) || (!p.Announce.IsZero() && !t.Before(p.Announce)) {
		c.announce(h)
	}
	if status == 0 {
		return true
	}
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", c.challenge)
	}
	h.Set("Content-Type", wire.FormType)
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	body := wire.AppendPair(nil, "oauth_problem", string(oauth1.ProblemVersionRejected))
	w.Write(wire.AppendPair(append(body, '&'), "oauth_problem_advice", advice))
	return false
}

// announce adds the Deprecation, Sunset and Link headers to h.
func (c *compiled) announce(h http.Header) {
	if c.deprecation != "" {
		h["Deprecation"] = []string{c.deprecation}
	}
	if c.sunset != "" {
		h["Sunset"] = []string{c.sunset}
	}
	if c.linkDep != "" {
		h["Link"] = append(h["Link"], c.linkDep, c.linkSunset)
	}
}
