package sunset_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/sunset"
)

// A Policy that is not valid is reported before it serves (issue 35,
// item 8): Validate says why, and Handler logs it once, instead of
// answering 500 to every request with the reason thrown away.
func TestInvalidPolicyReported(t *testing.T) {
	p := sunset.Policy{Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC), Link: "developer.example.com/oauth2-migration"}
	require.EqualError(t, p.Validate(), "sunset: Policy.Link is not an absolute http or https URL")

	var logged bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(old)
	h := p.Handler(http.NotFoundHandler())
	for range 3 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, http.StatusInternalServerError, w.Code)
	}
	assert.Equal(t, 1, strings.Count(logged.String(), "sunset: Policy.Link is not an absolute http or https URL"), logged.String())
	assert.Contains(t, logged.String(), "level=ERROR")

	for _, ok := range []sunset.Policy{
		{},
		{Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC), Link: guide},
		{Announce: time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC), Deprecation: time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)},
		{Announce: time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC), Sunset: time.Date(2026, time.December, 31, 0, 0, 0, 0, time.UTC)},
	} {
		assert.NoError(t, ok.Validate(), "%+v", ok)
	}
}

// A Policy announces a future deprecation from Announce on, with its
// date, the Sunset and the links, as RFC 9745 §2.2 and RFC 8594 §3 let a
// provider do (issue 36, item 5).
func TestPolicyAnnounce(t *testing.T) {
	announce := time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC)
	dep := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	cutoff := time.Date(2026, time.December, 31, 23, 59, 59, 0, time.UTC)
	p := sunset.Policy{Announce: announce, Deprecation: dep, Sunset: cutoff, Link: guide}
	w, reached := serve(p, announce.Add(-time.Second))
	assert.True(t, reached)
	assert.Equal(t, sunset.Notice{}, sunset.Read(w.Header()))
	assert.Empty(t, w.Header().Values("Link"))

	w, reached = serve(p, announce)
	assert.True(t, reached)
	assert.Equal(t, "@1780272000", w.Header().Get("Deprecation")) // 2026-06-01T00:00:00Z, in the future
	assert.Equal(t, "Thu, 31 Dec 2026 23:59:59 GMT", w.Header().Get("Sunset"))
	assert.Equal(t, []string{"<" + guide + `>; rel="deprecation"`, "<" + guide + `>; rel="sunset"`}, w.Header().Values("Link"))
	assert.Equal(t, sunset.Notice{Deprecated: true, Deprecation: dep, Sunset: cutoff, Link: guide}, sunset.Read(w.Header()))

	// Only a Sunset and the link, published early.
	p = sunset.Policy{Announce: announce, Sunset: cutoff, Link: guide}
	w, _ = serve(p, announce.AddDate(0, 1, 0))
	assert.Equal(t, sunset.Notice{Sunset: cutoff, Link: guide}, sunset.Read(w.Header()))
	assert.Empty(t, w.Header().Values("Deprecation"))
}

// What Usage could not count past MaxClients is counted (issue 35, item
// 8), not dropped without a sign.
func TestUsageDropped(t *testing.T) {
	u := sunset.Usage{MaxClients: 3}
	now := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.Record("k"+strconv.Itoa(i), now)
			u.RecordExchange("k"+strconv.Itoa(i), now)
		}()
	}
	wg.Wait()
	require.Len(t, u.Clients(), 3)
	// 47 keys found no room: a request and an exchange each.
	assert.Equal(t, int64(2*47), u.Dropped())
	u.Record("", now)
	assert.Equal(t, int64(2*47), u.Dropped(), "an empty key is not a client")

	var unbounded sunset.Usage // MaxClients zero: the 10,000 its doc gives
	for i := range 10000 + 5 {
		unbounded.Record("c"+strconv.Itoa(i), now)
	}
	assert.Len(t, unbounded.Clients(), 10000)
	assert.Equal(t, int64(5), unbounded.Dropped())
}

// Exchanges of OAuth 1.0a credentials for OAuth 2.0 tokens are counted
// per client, apart from requests, and flushed like them.
func TestUsageRecordExchange(t *testing.T) {
	var u sunset.Usage
	t0 := time.Date(2026, time.June, 1, 0, 0, 0, 0, time.UTC)
	u.Record("a", t0)
	u.RecordExchange("a", t0.Add(time.Minute))
	u.RecordExchange("b", t0.Add(2*time.Minute))
	u.RecordExchange("b", t0.Add(time.Second))
	assert.Equal(t, []sunset.Client{
		{ConsumerKey: "a", Requests: 1, Exchanges: 1, LastSeen: t0.Add(time.Minute)},
		{ConsumerKey: "b", Requests: 0, Exchanges: 2, LastSeen: t0.Add(2 * time.Minute)},
	}, u.Clients())

	var got []sunset.Client
	add := func(_ context.Context, cs []sunset.Client) error { got = append(got[:0], cs...); return nil }
	require.NoError(t, u.Flush(context.Background(), add))
	assert.Len(t, got, 2)
	got = nil
	u.RecordExchange("b", t0.Add(3*time.Minute))
	require.NoError(t, u.Flush(context.Background(), add))
	assert.Equal(t, []sunset.Client{{ConsumerKey: "b", Exchanges: 1, LastSeen: t0.Add(3 * time.Minute)}}, got)
	// Exchanges cost no allocation for a client already counted.
	assert.Zero(t, testing.AllocsPerRun(100, func() { u.RecordExchange("b", t0) }))
}

// A client that reads notices links no provider code (issue 35, item 8):
// package sunset does not import package server.
func TestNoServerImport(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to list the package's imports with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/countersign/countersign/oauth1/sunset").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/countersign/countersign/oauth1/internal/notice")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/countersign/countersign/oauth1/server"), "sunset imports %s", d)
	}
}
