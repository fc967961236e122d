package sunset_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/sunset"
)

// The dates of the RFCs' own examples: RFC 9745 §2.2 says
// "Deprecation: @1688169599" is Friday June 30, 2023 at 23:59:59 UTC, and
// RFC 8594 §3 sends "Sunset: Sat, 31 Dec 2018 23:59:59 GMT".
var (
	rfc9745Date = time.Date(2023, time.June, 30, 23, 59, 59, 0, time.UTC)
	rfc8594Date = time.Date(2018, time.December, 31, 23, 59, 59, 0, time.UTC)
)

const guide = "https://developer.example.com/oauth2-migration"

// serve answers one request with p.Handler at time t, and says whether
// the request reached the wrapped handler.
func serve(p sunset.Policy, t time.Time) (*httptest.ResponseRecorder, bool) {
	p.Now = func() time.Time { return t }
	reached := false
	h := p.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached = true
		w.Write([]byte("ok"))
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "https://api.example.com/v1/me", nil))
	return w, reached
}

func TestHeadersRFCExamples(t *testing.T) {
	// RFC 9745 §2.2's Deprecation, from the moment it is reached.
	w, reached := serve(sunset.Policy{Deprecation: rfc9745Date, Link: "https://developer.example.com/deprecation"}, rfc9745Date)
	require.True(t, reached)
	assert.Equal(t, []string{"@1688169599"}, w.Header().Values("Deprecation"))
	assert.Equal(t, []string{
		`<https://developer.example.com/deprecation>; rel="deprecation"`,
		`<https://developer.example.com/deprecation>; rel="sunset"`,
	}, w.Header().Values("Link"))
	assert.Empty(t, w.Header().Values("Sunset"))

	// RFC 8594 §3's Sunset, sent with a Deprecation a year before. The
	// RFC's example names the wrong weekday: 31 Dec 2018 was a Monday
	// (date -u -d 2018-12-31 -R), and an IMF-fixdate must name the right
	// one (RFC 9110 §5.6.7). Read accepts the RFC's text all the same.
	dep := time.Date(2018, time.January, 1, 0, 0, 0, 0, time.UTC)
	w, reached = serve(sunset.Policy{Deprecation: dep, Sunset: rfc8594Date}, rfc8594Date.Add(-time.Hour))
	require.True(t, reached)
	assert.Equal(t, []string{"Mon, 31 Dec 2018 23:59:59 GMT"}, w.Header().Values("Sunset"))
	assert.Equal(t, rfc8594Date, sunset.Read(http.Header{"Sunset": {"Sat, 31 Dec 2018 23:59:59 GMT"}}).Sunset)
	assert.Equal(t, []string{"@1514764800"}, w.Header().Values("Deprecation")) // date -u -d 2018-01-01 +%s
	assert.Empty(t, w.Header().Values("Link"))

	// A Sunset in another zone is sent in GMT, as an IMF-fixdate.
	berlin := time.FixedZone("CET", 3600)
	w, _ = serve(sunset.Policy{Deprecation: dep, Sunset: rfc8594Date.In(berlin)}, dep)
	assert.Equal(t, []string{"Mon, 31 Dec 2018 23:59:59 GMT"}, w.Header().Values("Sunset"))
}

func TestSchedule(t *testing.T) {
	// Garmin retires OAuth 1.0a on 2026-12-31; say it deprecated it on
	// 2026-06-01 and browns it out for a day in November.
	dep := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	cutoff := time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC)
	brown := sunset.Brownout{
		Start: time.Date(2026, time.November, 3, 14, 0, 0, 0, time.UTC),
		End:   time.Date(2026, time.November, 3, 15, 0, 0, 0, time.UTC),
	}
	p := sunset.Policy{Deprecation: dep, Sunset: cutoff, Link: guide, Brownouts: []sunset.Brownout{brown}, Realm: "Garmin"}
	const (
		wantDep    = "@1780272000"                   // date -u -d '2026-06-01' +%s
		wantSunset = "Thu, 31 Dec 2026 23:59:59 GMT" // date -u -d '2026-12-31 23:59:59' -R
	)
	tests := []struct {
		name     string
		at       time.Time
		status   int
		announce bool
		advice   string
	}{
		{"a year before", dep.AddDate(-1, 0, 0), 200, false, ""},
		{"just before the deprecation", dep.Add(-time.Nanosecond), 200, false, ""},
		{"at the deprecation", dep, 200, true, ""},
		{"just before the brownout", brown.Start.Add(-time.Nanosecond), 200, true, ""},
		{"brownout starts", brown.Start, 401, true,
			"OAuth 1.0a is deprecated and switched off until 2026-11-03 15:00:00 UTC, a brownout before its retirement at 2026-12-31 23:59:59 UTC; migrate: " + guide},
		{"in the brownout", brown.End.Add(-time.Nanosecond), 401, true,
			"OAuth 1.0a is deprecated and switched off until 2026-11-03 15:00:00 UTC, a brownout before its retirement at 2026-12-31 23:59:59 UTC; migrate: " + guide},
		{"brownout ended", brown.End, 200, true, ""},
		{"just before the cut-off", cutoff.Add(-time.Nanosecond), 200, true, ""},
		{"at the cut-off", cutoff, 410, true, "OAuth 1.0a was retired at 2026-12-31 23:59:59 UTC; migrate: " + guide},
		{"years after", cutoff.AddDate(3, 0, 0), 410, true, "OAuth 1.0a was retired at 2026-12-31 23:59:59 UTC; migrate: " + guide},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, reached := serve(p, tt.at)
			assert.Equal(t, tt.status, w.Code)
			assert.Equal(t, tt.status == 200, reached, "reached the handler")
			h := w.Header()
			if tt.announce {
				assert.Equal(t, []string{wantDep}, h.Values("Deprecation"))
				assert.Equal(t, []string{wantSunset}, h.Values("Sunset"))
				assert.Equal(t, []string{"<" + guide + `>; rel="deprecation"`, "<" + guide + `>; rel="sunset"`}, h.Values("Link"))
			} else {
				assert.Empty(t, h.Values("Deprecation"))
				assert.Empty(t, h.Values("Sunset"))
				assert.Empty(t, h.Values("Link"))
			}
			if tt.status == 200 {
				assert.Equal(t, "ok", w.Body.String())
				return
			}
			if tt.status == 401 {
				assert.Equal(t, `OAuth realm="Garmin"`, h.Get("WWW-Authenticate"))
			} else {
				assert.Empty(t, h.Get("WWW-Authenticate"))
			}
			assert.Equal(t, "application/x-www-form-urlencoded", h.Get("Content-Type"))
			assert.Equal(t, "no-store", h.Get("Cache-Control"))
			// The client reads the refusal as any other problem report.
			err := oauth1.CheckResponse(w.Result())
			var re *oauth1.ResponseError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, oauth1.ProblemVersionRejected, re.Problem)
			assert.Equal(t, tt.advice, re.Advice)
			assert.Contains(t, err.Error(), "the provider deprecates this API as of 2026-06-01 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see "+guide+")")
		})
	}
}

// Admit, the explicit-time twin, answers as the Handler does.
func TestAdmit(t *testing.T) {
	cutoff := time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC)
	p := sunset.Policy{Sunset: cutoff}
	w := httptest.NewRecorder()
	assert.True(t, p.Admit(w, cutoff.Add(-time.Second)))
	assert.Empty(t, w.Header(), "before the cut-off, without a Deprecation, nothing is sent")
	w = httptest.NewRecorder()
	assert.False(t, p.Admit(w, cutoff))
	assert.Equal(t, http.StatusGone, w.Code)
	assert.Equal(t, "oauth_problem=version_rejected&oauth_problem_advice=OAuth%201.0a%20was%20retired%20at%202026-12-31%2023%3A59%3A59%20UTC", w.Body.String())
	assert.Equal(t, "Thu, 31 Dec 2026 23:59:59 GMT", w.Header().Get("Sunset"))
}

func TestZeroPolicyAnnouncesNothing(t *testing.T) {
	w, reached := serve(sunset.Policy{}, time.Now())
	assert.True(t, reached)
	for _, k := range []string{"Deprecation", "Sunset", "Link", "WWW-Authenticate"} {
		assert.Empty(t, w.Header().Values(k), k)
	}
}

// A Policy that is not valid fails closed, on every request, so that the
// mistake shows at once rather than at the cut-off.
func TestInvalidPolicy(t *testing.T) {
	old := slog.Default() // Handler logs each
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer slog.SetDefault(old)
	now := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		p     sunset.Policy
		field string // the PolicyError's
	}{
		{"link without a scheme", sunset.Policy{Deprecation: now, Link: "developer.example.com/migrate"}, "Link"},
		{"relative link", sunset.Policy{Deprecation: now, Link: "/migrate"}, "Link"},
		{"link without host", sunset.Policy{Deprecation: now, Link: "https:///migrate"}, "Link"},
		{"javascript link", sunset.Policy{Deprecation: now, Link: "javascript:alert(1)"}, "Link"},
		{"link with CR LF", sunset.Policy{Deprecation: now, Link: "https://a.example/\r\nSet-Cookie: a=b"}, "Link"},
		{"link with angle bracket", sunset.Policy{Deprecation: now, Link: "https://a.example/>; rel=next"}, "Link"},
		{"link with a quote", sunset.Policy{Deprecation: now, Link: `https://a.example/"`}, "Link"},
		{"link with a space", sunset.Policy{Deprecation: now, Link: "https://a.example/a b"}, "Link"},
		{"non-ASCII link", sunset.Policy{Deprecation: now, Link: "https://bücher.example/"}, "Link"},
		{"link too long", sunset.Policy{Deprecation: now, Link: "https://a.example/" + strings.Repeat("a", 2048)}, "Link"},
		{"sunset before deprecation", sunset.Policy{Deprecation: now, Sunset: now.Add(-time.Second)}, "Sunset"},
		{"brownout ends at its start", sunset.Policy{Brownouts: []sunset.Brownout{{Start: now, End: now}}}, "Brownouts[0]"},
		{"brownout ends before its start", sunset.Policy{Brownouts: []sunset.Brownout{{Start: now, End: now.Add(-time.Hour)}}}, "Brownouts[0]"},
		{"announce after deprecation", sunset.Policy{Deprecation: now, Announce: now.Add(time.Hour)}, "Announce"},
		{"announce after sunset", sunset.Policy{Sunset: now, Announce: now.Add(time.Hour)}, "Announce"},
		{"announce nothing", sunset.Policy{Link: guide, Announce: now}, "Announce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Validate says why before anything is served.
			var pe *sunset.PolicyError
			require.ErrorAs(t, tt.p.Validate(), &pe)
			assert.Equal(t, tt.field, pe.Field)
			assert.True(t, strings.HasPrefix(pe.Error(), "sunset: Policy."+tt.field+" "), pe.Error())
			w, reached := serve(tt.p, now.AddDate(-1, 0, 0))
			assert.False(t, reached)
			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.Equal(t, "oauth_problem=internal_error", w.Body.String())
			assert.Empty(t, w.Header().Values("Link"))
		})
	}
}

// Headers the wrapped handler adds are kept, and a Link of its own too.
func TestHandlerKeepsOtherLinks(t *testing.T) {
	dep := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	p := sunset.Policy{Deprecation: dep, Link: guide, Now: func() time.Time { return dep }}
	h := p.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Link", `<https://api.example.com/v1/me?page=2>; rel="next"`)
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, []string{"<" + guide + `>; rel="deprecation"`, "<" + guide + `>; rel="sunset"`, `<https://api.example.com/v1/me?page=2>; rel="next"`}, w.Header().Values("Link"))
	n := sunset.Read(w.Header())
	assert.Equal(t, sunset.Notice{Deprecated: true, Deprecation: dep, Link: guide}, n)
}

func TestRead(t *testing.T) {
	h := http.Header{
		"Deprecation": {"@1688169599"},
		"Sunset":      {"Sat, 31 Dec 2018 23:59:59 GMT"},
		"Link":        {`<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html"`},
	}
	n := sunset.Read(h)
	assert.Equal(t, sunset.Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc8594Date, Link: "https://developer.example.com/deprecation"}, n)
	assert.Equal(t, "the provider deprecates this API as of 2023-06-30 23:59:59 UTC and retires it at 2018-12-31 23:59:59 UTC (see https://developer.example.com/deprecation)", n.String())
	assert.Equal(t, sunset.Notice{}, sunset.Read(http.Header{"Deprecation": {"yes"}, "Sunset": {"soon"}}))
	assert.Equal(t, "", sunset.Notice{}.String())
}

// Handler reads the Policy once: a brownout changed afterwards, in the
// caller's slice, changes nothing.
func TestHandlerCopiesBrownouts(t *testing.T) {
	at := time.Date(2026, time.November, 3, 14, 30, 0, 0, time.UTC)
	bs := []sunset.Brownout{{Start: at.Add(-time.Hour), End: at.Add(time.Hour)}}
	p := sunset.Policy{Brownouts: bs, Now: func() time.Time { return at }}
	h := p.Handler(http.NotFoundHandler())
	bs[0] = sunset.Brownout{Start: at.Add(time.Hour), End: at.Add(2 * time.Hour)}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	assert.Equal(t, http.StatusUnauthorized, w.Code)
}
