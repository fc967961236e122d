package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1/internal/echo"
)

// maxBodyBytes bounds how much of an answer is read: a token response is a
// few kilobytes.
const maxBodyBytes = 1 << 20

// maxExcerptBytes bounds the excerpt of a body an Error keeps.
const maxExcerptBytes = 1 << 10

// An Error is a provider's refusal of an exchange or a refresh: its RFC
// 6749 §5.2 error when the answer holds one, or else an excerpt of the
// answer. Every field is scrubbed of the secrets the request carried.
type Error struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code, Description and URI are RFC 6749 §5.2's error,
	// error_description and error_uri, such as "invalid_grant".
	Code, Description, URI string
	// RetryAfter is how long the provider asked the client to wait
	// (Retry-After, RFC 9110 §10.2.3), on a 429 or a 503; zero when it
	// did not say.
	RetryAfter time.Duration
	// Body is an excerpt of an answer that holds no RFC 6749 error, such
	// as X's {"errors":[...]} or an HTML page, scrubbed of secrets.
	Body string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exchange: the provider answered %d", e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", strconv.Quote(e.Code))
		if e.Description != "" {
			fmt.Fprintf(&b, " (%s)", strconv.Quote(e.Description))
		}
		if e.URI != "" {
			fmt.Fprintf(&b, ", see %s", strconv.Quote(e.URI))
		}
	} else if e.Body != "" {
		fmt.Fprintf(&b, ": %s", strconv.Quote(e.Body))
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, "; retry after %s", e.RetryAfter)
	}
	return b.String()
}

// Temporary reports whether the exchange may succeed if tried again later:
// the provider limited the rate (429) or was unavailable (503, or another
// 5xx).
func (e *Error) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// newError builds the Error of a refusal, with every value scrubbed of
// secrets.
func newError(status int, h http.Header, body []byte, secrets []string) *Error {
	e := &Error{StatusCode: status, RetryAfter: retryAfter(h.Get("Retry-After"), time.Now())}
	scrub := func(s string) string { return string(echo.Scrub([]byte(s), secrets...)) }
	var p struct {
		Error            any `json:"error"`
		ErrorDescription any `json:"error_description"`
		ErrorURI         any `json:"error_uri"`
	}
	if json.Unmarshal(body, &p) == nil {
		if s, ok := p.Error.(string); ok && s != "" {
			e.Code = excerpt(scrub(s))
			if s, ok := p.ErrorDescription.(string); ok {
				e.Description = excerpt(scrub(s))
			}
			if s, ok := p.ErrorURI.(string); ok {
				e.URI = excerpt(scrub(s))
			}
			return e
		}
	}
	// Scrub the whole body, then cut: a cut secret would escape.
	e.Body = excerpt(scrub(string(body)))
	return e
}

func excerpt(s string) string {
	if len(s) > maxExcerptBytes {
		s = s[:maxExcerptBytes]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// retryAfter reads a Retry-After field: delay-seconds or an HTTP-date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
}

// send sends r with hc, following no redirect, and reads the token from a
// success or the Error from a refusal. secrets are scrubbed from anything
// an error says.
func send(hc *http.Client, r *http.Request, secrets []string) (*oauth2.Token, error) {
	resp, err := noRedirects(httpClient(r.Context(), hc)).Do(r)
	if err != nil {
		return nil, stripURLError(err, r.URL)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("exchange: reading the answer of %s: %w", safeURL(r.URL), err)
	}
	if len(body) > maxBodyBytes {
		return nil, fmt.Errorf("exchange: the answer of %s is over %d bytes", safeURL(r.URL), maxBodyBytes)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, fmt.Errorf("exchange: %s redirected (%d) to %q; set the URL that answers: the body holds secrets and is not sent on", safeURL(r.URL), resp.StatusCode, stripQuery(resp.Header.Get("Location")))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, newError(resp.StatusCode, resp.Header, body, secrets)
	}
	return parseToken(resp.StatusCode, resp.Header, body, secrets, time.Now())
}

// parseToken reads an RFC 6749 §5.1 answer. The fields it does not map to
// an oauth2.Token (scope, Intuit's realmId, Xero's xero_tenant_id, ...)
// are in Token.Extra.
func parseToken(status int, h http.Header, body []byte, secrets []string, now time.Time) (*oauth2.Token, error) {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		e := newError(status, h, body, secrets)
		return nil, fmt.Errorf("exchange: the answer is %s, not JSON: %w", mt, e)
	}
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("exchange: the answer is not a JSON object: %w", newError(status, h, body, secrets))
	}
	str := func(k string) string { s, _ := raw[k].(string); return s }
	tok := &oauth2.Token{AccessToken: str("access_token"), TokenType: str("token_type"), RefreshToken: str("refresh_token")}
	if tok.AccessToken == "" {
		return nil, fmt.Errorf("exchange: the answer has no access_token: %w", newError(status, h, body, secrets))
	}
	// expires_in is a number in RFC 6749; Xero's script shows a string.
	switch v := raw["expires_in"].(type) {
	case float64:
		tok.ExpiresIn = int64(v)
	case string:
		tok.ExpiresIn, _ = strconv.ParseInt(v, 10, 64)
	}
	if tok.ExpiresIn > 0 {
		tok.Expiry = now.Add(time.Duration(min(tok.ExpiresIn, int64(100*365*24*time.Hour/time.Second))) * time.Second)
	}
	return tok.WithExtra(raw), nil
}

// httpClient returns the client that sends a request made with ctx: hc
// when set, else the *http.Client ctx carries under oauth2.HTTPClient, as
// x/oauth2 takes it (a test's, or one with a proxy or a timeout), else nil
// (http.DefaultClient).
func httpClient(ctx context.Context, hc *http.Client) *http.Client {
	if hc != nil {
		return hc
	}
	if c, ok := ctx.Value(oauth2.HTTPClient).(*http.Client); ok {
		return c
	}
	return nil
}

// noRedirects returns a copy of hc (http.DefaultClient when nil) that
// follows no redirect: a 307 or 308 would send the body, and its secrets,
// to the URL the provider names.
func noRedirects(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	cl := *hc
	cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cl
}

// stripURLError returns err with the URL of a *url.Error without its
// query: a Config that delivers the protocol parameters in the query puts
// the signature there, and with PLAINTEXT the secrets.
func stripURLError(err error, u *url.URL) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return &url.Error{Op: ue.Op, URL: safeURL(u), Err: scrubErr{ue.Err}}
	}
	return err
}

// scrubErr is an error whose text leaves out the query of any URL it names.
type scrubErr struct{ err error }

func (e scrubErr) Error() string { return stripQuery(e.err.Error()) }
func (e scrubErr) Unwrap() error { return e.err }

// safeURL is u without its user info, query and fragment.
func safeURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// stripQuery cuts every "?query" out of s, up to the next space or quote.
func stripQuery(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '?')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		j := strings.IndexAny(s, " \t\r\n\"'")
		if j < 0 {
			return b.String()
		}
		s = s[j:]
	}
}
