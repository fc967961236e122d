package oauth1

import (
	"errors"
	"fmt"
	"net/http"
)

// Transport is an [http.RoundTripper] that signs every request it sends
// with Config and Token. It signs a clone of each request, never the
// caller's, with a fresh timestamp and nonce on every call, so that the
// redirects and retries of an [http.Client] never reuse a nonce.
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
// A Transport is safe for concurrent use by multiple goroutines, as long as
// its fields and the Config are not changed.
type Transport struct {
	Config *Config           // required
	Token  *Credentials      // token credentials; nil for two-legged requests
	Base   http.RoundTripper // nil means http.DefaultTransport

	macs macCache
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
	r2 := req.Clone(req.Context())
	hasBody := req.Body != nil && req.Body != http.NoBody
	sendsOriginal := true // r2.Body is still req.Body
	if hasBody {
		need, err := c.needsBody(r2)
		if err != nil {
			return nil, err
		}
		if need && r2.GetBody == nil {
			limit := c.maxBodyBytes()
			if r2.ContentLength > limit {
				return nil, fmt.Errorf("%w: Content-Length %d, limit %d bytes", ErrBodyTooLarge, r2.ContentLength, limit)
			}
			b, err := readLimited(nil, req.Body, r2.ContentLength, limit)
			if err != nil {
				return nil, err
			}
			owned = false
			req.Body.Close()
			// The buffer is what goes out, with a GetBody for replays.
			setBody(r2, b)
			sendsOriginal = false
		}
	}
	if err := c.signAt(r2, t.Token, c.now(), c.nonce(), nil, &t.macs); err != nil {
		return nil, err
	}
	if c.Delivery == FormBody {
		sendsOriginal = false // deliver replaced the body with a new one
	}
	if sendsOriginal {
		owned = false
	}
	return t.base().RoundTrip(r2)
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
	return isForm(r.Header.Get("Content-Type"))
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
