package sunset_test

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/sunset"
)

// A Transport hears the notice on every response, the successful ones
// too (issue 36, item 5), in each form servers send.
func TestTransportNotify(t *testing.T) {
	rfc9745Sunset := time.Date(2024, time.June, 30, 23, 59, 59, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   sunset.Notice
	}{
		{"RFC 9745 §4 example", http.Header{"Deprecation": {"@1688169599"}, "Sunset": {"Sun, 30 Jun 2024 23:59:59 UTC"}},
			sunset.Notice{Deprecated: true, Deprecation: rfc9745Date, Sunset: rfc9745Sunset}},
		{"Deprecation: true", http.Header{"Deprecation": {"true"}}, sunset.Notice{Deprecated: true}},
		{"an Item with parameters", http.Header{"Deprecation": {"@1688169599;foo=bar"}}, sunset.Notice{Deprecated: true, Deprecation: rfc9745Date}},
		{"two Deprecation fields", http.Header{"Deprecation": {"@1688169599", "@1"}}, sunset.Notice{}},
		{"Deprecation as an HTTP-date, GitHub's form, without Sunset", http.Header{"Deprecation": {"Sun, 30 Jun 2024 23:59:59 GMT"}},
			sunset.Notice{Deprecated: true, Deprecation: rfc9745Sunset}},
		{"RFC 8594 §3 example with its sunset link (§6)", http.Header{
			"Sunset": {"Sat, 31 Dec 2018 23:59:59 GMT"},
			"Link":   {`<http://example.net/sunset>;rel="sunset";type="text/html"`},
		}, sunset.Notice{Sunset: rfc8594Date, Link: "http://example.net/sunset"}},
		{"nothing", http.Header{}, sunset.Notice{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, vs := range tt.header {
					w.Header()[k] = vs
				}
				io.WriteString(w, "steps=8042")
			}))
			defer srv.Close()
			var got []sunset.Notice
			tr := &sunset.Transport{Notify: func(resp *http.Response, n sunset.Notice) {
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				got = append(got, n)
			}}
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, "steps=8042", string(body), "the response is the same")
			if tt.want.IsZero() {
				assert.Empty(t, got)
			} else {
				assert.Equal(t, []sunset.Notice{tt.want}, got)
			}
		})
	}
}

// Without Notify, a Transport logs a warning once per host, and again
// when what the host announces changes; it goes around the Transport that
// signs.
func TestTransportWarnsOncePerHost(t *testing.T) {
	dep := "@1780272000"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Deprecation", dep)
		w.Header().Add("Link", "<"+guide+`>; rel="deprecation"`)
		if r.Header.Get("Authorization") == "" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	var logged bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logged, mu: &mu}, nil))
	c := &oauth1.Config{ConsumerKey: "connect-iq-app", ConsumerSecret: "kd94hf93k423kf44"}
	tr := &sunset.Transport{Base: c.Client(nil).Transport, Logger: logger}
	client := &http.Client{Transport: tr}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(srv.URL + "/api/steps")
			if assert.NoError(t, err) {
				assert.Equal(t, http.StatusOK, resp.StatusCode, "signed")
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	host := strings.TrimPrefix(srv.URL, "http://")
	want := `level=WARN msg="sunset: the API announces its retirement" host=` + host +
		` notice="the provider deprecates this API as of 2026-06-01 00:00:00 UTC (see ` + guide + `)"` + "\n"
	mu.Lock()
	assert.Equal(t, want, stripTime(logged.String()))
	logged.Reset()
	mu.Unlock()

	dep = "@1788220800" // the provider moves the date: warn again
	resp, err := client.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Contains(t, logged.String(), "2026-09-01 00:00:00 UTC")
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// stripTime removes the time= attribute of each line of slog's text.
func stripTime(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(line, "time=") {
			if i := strings.IndexByte(line, ' '); i >= 0 {
				line = line[i+1:]
			}
		}
		b.WriteString(line)
	}
	return b.String()
}
