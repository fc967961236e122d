package oauth1

import (
	"errors"
	"fmt"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"maps"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Transport is an [http.RoundTripper] that signs the requests it sends
// with Config and Token. It signs a clone of each request, never the
// caller's, with a fresh timestamp and nonce on every call to RoundTrip, so
// that each redirect an [http.Client] follows, and each request the caller
// sends again, gets its own. A retry inside Base is not a new call: an
// [http.Transport] that finds a kept-alive connection closed under a request
// it may replay sends the same signed request again, with the same nonce, and
// a provider that saw the first copy refuses the second as a replay.
//
// A redirect is signed only when it goes to the scheme, host and port of
// the request the caller sent (the first of the chain that
// [http.Request.Response] links), or to a host listed in RedirectHosts; any
// other hop is sent unsigned, so that a provider's redirect never hands a
// third party a request it can replay. A PLAINTEXT request, which carries
// the secrets themselves, is signed on a redirect only back to the original
// scheme, host and port, and only over https.
//
// A body is read before sending only when signing needs it: a form body
// (its parameters are signed), any body when Config.BodyHash is set, and
// the body that FormBody delivery extends. Such a body is read through
// GetBody when the request has one, and otherwise buffered, at most
// Config.MaxBodyBytes of it (a larger body is an error wrapping
// [ErrBodyTooLarge], never a truncated signature); the request sent then has
// a GetBody that replays the buffer. Other bodies, such as JSON, stream
// through untouched.
//
// The response to a request the Transport signed knows what was signed:
// [CheckResponse] compares it with the base string a provider sends back
// with a signature_invalid problem, and names the difference.
//
// A Transport is safe for concurrent use by multiple goroutines, as long as
// its fields and the Config are not changed; it may be copied. It holds no
// secret of its own: fmt prints its Config and Token through pointers, which
// print redacted, and JSON leaves both out.
type Transport struct {
	Config *Config           `json:"-"` // required
	Token  *Credentials      `json:"-"` // token credentials; nil for two-legged requests
	Base   http.RoundTripper `json:"-"` // nil means http.DefaultTransport

	// RedirectHosts lists the hosts, besides the one the caller sent a
	// request to, that may receive a redirected request signed, each as
	// "host" or "host:port" (such as "upload.example.com" or
	// "[2001:db8::1]:8443"); a host without a port stands for the default
	// port of the redirect's scheme. Names compare without regard to case. A
	// redirect from https to http is never signed, listed or not, and
	// PLAINTEXT requests ignore the list.
	RedirectHosts []string
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip signs a clone of req and sends it with t.Base. As the
// [http.RoundTripper] contract requires, it does not modify req and it
// closes req.Body, errors included.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	// req.Body is ours to close until the request that carries it is handed
	// to Base, which then closes it (the RoundTripper contract).
	owned := req.Body != nil
	defer func() {
		if owned {
			req.Body.Close()
		}
	}()
	c := t.Config
	if c == nil {
		return nil, errors.New("oauth1: Transport's Config is nil")
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	// A copy whose header map is our own: signing replaces whole header
	// values and a copy of the URL, never what the caller's request
	// shares, so a deep req.Clone would copy for nothing.
	sign := t.maySign(req)
	r2 := new(http.Request)
	*r2 = *req
	r2.Header = maps.Clone(req.Header)
	if r2.Header == nil {
		r2.Header = make(http.Header)
	}
	if !sign {
		// net/http has already dropped the caller's own Authorization
		// header for another domain; the hop goes as the caller wrote it.
		owned = false
		return t.base().RoundTrip(r2)
	}
	hasBody := req.Body != nil && req.Body != http.NoBody
	sendsOriginal := true // r2.Body is still req.Body
	if hasBody {
		need, err := c.needsBody(r2)
		if err != nil {
			return nil, err
		}
		if need && r2.GetBody == nil {
			limit := wire.BodyLimit(c.MaxBodyBytes)
			if r2.ContentLength > limit {
				return nil, fmt.Errorf("%w: Content-Length %d, limit %d bytes", ErrBodyTooLarge, r2.ContentLength, limit)
			}
			b, err := wire.ReadLimited(nil, req.Body, r2.ContentLength, limit)
			if err != nil {
				return nil, err
			}
			owned = false
			req.Body.Close()
			// The buffer is what goes out, with a GetBody for replays.
			wire.SetBody(r2, b)
			sendsOriginal = false
		}
	}
	s, err := c.signState(r2, t.Token, c.now(), c.nonce(), nil)
	if err != nil {
		return nil, err
	}
	// The state, with the base string, is kept until the answer is back:
	// a refusal carries a record of what was signed in the context of
	// resp.Request, for CheckResponse. An accepted request costs nothing
	// more. (Not deferred: with the defer above and this function's many
	// returns, the compiler would not open-code them.)
	if c.Delivery == FormBody {
		sendsOriginal = false // deliver replaced the body with a new one
	}
	if sendsOriginal {
		owned = false
	}
	resp, err := t.base().RoundTrip(r2)
	if err == nil && resp.StatusCode >= 400 && resp.Request != nil {
		rec := &sentRecord{base: string(s.Base), c: c, tok: t.Token}
		resp.Request = resp.Request.WithContext(withSent(resp.Request.Context(), rec))
	}
	putState(s)
	return resp, err
}

// maySign reports whether req, which an [http.Client] may have made from a
// redirect, may be signed: see the Transport's doc.
func (t *Transport) maySign(req *http.Request) bool {
	if req.Response == nil {
		return true // the caller's own request
	}
	orig := req
	// Client caps the chain (ten hops by default); the bound is there for a
	// chain someone else built.
	for i := 0; i < 1000 && orig.Response != nil && orig.Response.Request != nil; i++ {
		orig = orig.Response.Request
	}
	if orig.URL == nil || req.URL == nil {
		return false
	}
	same := sameOrigin(orig.URL, req.URL)
	if t.Config.signer().SignatureMethod() == "PLAINTEXT" {
		return same && strings.EqualFold(req.URL.Scheme, "https")
	}
	if same {
		return true
	}
	if strings.EqualFold(orig.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return false
	}
	host, port := hostPort(req.URL)
	for _, h := range t.RedirectHosts {
		lh, lp, err := net.SplitHostPort(h)
		if err != nil {
			lh, lp = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), ""
		}
		if lp == "" {
			lp = defaultPort(req.URL.Scheme)
		}
		if strings.EqualFold(lh, host) && lp == port {
			return true
		}
	}
	return false
}

// sameOrigin reports whether a and b have the same scheme, host and port,
// an absent port standing for the scheme's default.
func sameOrigin(a, b *url.URL) bool {
	ha, pa := hostPort(a)
	hb, pb := hostPort(b)
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(ha, hb) && pa == pb && pa != ""
}

// hostPort returns u's host name, without brackets, and its port, the
// scheme's default when u has none.
func hostPort(u *url.URL) (host, port string) {
	host, port = u.Hostname(), u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	return host, port
}

func defaultPort(scheme string) string {
	switch strings.ToLower(scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// needsBody reports whether signing r reads its body.
func (c *Config) needsBody(r *http.Request) (bool, error) {
	if c.BodyHash != 0 || c.Delivery == FormBody {
		return true, nil
	}
	return wire.IsForm(r.Header.Get("Content-Type"))
}

// Client returns an HTTP client that signs its requests with c and tok
// through a [Transport]. It is a copy of c.HTTPClient (http.DefaultClient when
// nil), so its timeout, redirect policy and cookie jar carry over, and its
// transport (with its proxy and TLS settings) becomes the Transport's Base.
// tok is nil for two-legged requests.
func (c *Config) Client(tok *Credentials) *http.Client {
	var cl http.Client
	if c.HTTPClient != nil {
		cl = *c.HTTPClient
	}
	cl.Transport = &Transport{Config: c, Token: tok, Base: cl.Transport}
	return &cl
}
