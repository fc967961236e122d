package sunset

import (
	"log/slog"
	"net/http"
	"sync"
)

// maxWarnedHosts is how many hosts a Transport remembers having warned
// about; past it, it forgets them all and may warn again.
const maxWarnedHosts = 1024

// A Transport is an [http.RoundTripper] that reads the retirement notice
// of every response, the successful ones too, where RFC 9745 expects a
// client to notice a deprecation first, and reports it: to Notify for each
// response that announces something, or else as a warning logged once per
// host (and again when what the host announces changes). It goes around
// the Transport that signs the requests, or any other:
//
//	client := &http.Client{Transport: &sunset.Transport{Base: config.Client(nil).Transport}}
//
// Like golang.org/x/oauth2's Transport it changes neither the request nor
// the response. A Transport is safe for concurrent use, and must not be
// copied after first use.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper

	// Notify, when not nil, is called with each response that announces
	// something and what it announces, before RoundTrip returns the
	// response. It runs in RoundTrip: it must be quick, and must neither
	// read nor close resp.Body. The Notice is safe to print.
	Notify func(resp *http.Response, n Notice)

	// Logger receives the warnings when Notify is nil; nil means
	// slog.Default(). Each warning, at slog's warning level, has the
	// attributes "host" and "notice" (the Notice's String).
	Logger *slog.Logger

	mu     sync.Mutex
	warned map[string]Notice // host → what was logged last
}

// RoundTrip sends req with t.Base and reports what the response announces.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	n := Read(resp.Header)
	if n.IsZero() {
		return resp, nil
	}
	if t.Notify != nil {
		t.Notify(resp, n)
		return resp, nil
	}
	host := req.URL.Host
	t.mu.Lock()
	last, seen := t.warned[host]
	if !seen || last != n {
		if t.warned == nil || len(t.warned) >= maxWarnedHosts {
			t.warned = make(map[string]Notice)
		}
		t.warned[host] = n
	}
	t.mu.Unlock()
	if !seen || last != n {
		logger := t.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.Warn("sunset: the API announces its retirement", "host", host, "notice", n.String())
	}
	return resp, nil
}
