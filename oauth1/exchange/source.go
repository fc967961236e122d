package exchange

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// How a TokenSource waits out a 429: at most maxRetries more tries, each
// after the answer's Retry-After (or 1s, 2s, 4s when it names none), never
// more than maxWait.
const (
	maxRetries = 3
	maxWait    = 15 * time.Minute
)

// source refreshes through x/oauth2, waits out 429s, and turns a refusal
// into a scrubbed *Error.
type source struct {
	ctx     context.Context
	inner   oauth2.TokenSource
	secrets []string
	mu      sync.Mutex // one refresh at a time: a refresh token is single-use
}

func newSource(ctx context.Context, cfg *oauth2.Config, hc *http.Client, t *oauth2.Token) oauth2.TokenSource {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, noRedirects(httpClient(ctx, hc)))
	return &source{ctx: ctx, inner: cfg.TokenSource(ctx, t), secrets: []string{cfg.ClientSecret}}
}

func (s *source) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		t, err := s.inner.Token()
		if err == nil {
			return t, nil
		}
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			return nil, err
		}
		e := fromRetrieve(re, s.secrets)
		if e.StatusCode != http.StatusTooManyRequests || attempt >= maxRetries {
			return nil, e
		}
		wait := e.RetryAfter
		if wait <= 0 {
			wait = time.Second << attempt
		}
		timer := time.NewTimer(min(wait, maxWait))
		select {
		case <-s.ctx.Done():
			timer.Stop()
			return nil, e
		case <-timer.C:
		}
	}
}

// fromRetrieve is the *Error of x/oauth2's RetrieveError.
func fromRetrieve(re *oauth2.RetrieveError, secrets []string) *Error {
	status, h := 0, http.Header{}
	if re.Response != nil {
		status, h = re.Response.StatusCode, re.Response.Header
	}
	return newError(status, h, re.Body, secrets)
}
