package yearsim

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

type yearFlow struct {
	c *yearClient
	u *yearUser
	// n is the client's authorization number, and the counts before it,
	// for the failure messages.
	n, uAuths, issued, revoked int
	temp                       *oauth1.Credentials
	code                       string
	attempt                    int
	first                      string        // the first 503's reason
	retryAfter                 time.Duration // positive: refused 503, to retry after this
}

func (f *yearFlow) String() string {
	return fmt.Sprintf("authorization %d of client %s (user %s, her authorization %d; before it %s was issued %d token credentials and %d of them were revoked: it held %d)",
		f.n, f.c.key, f.u.id, f.uAuths, f.c.key, f.issued, f.revoked, f.issued-f.revoked)
}

// refused records that f ended without token credentials.
func (y *year) refused(f *yearFlow) {
	y.mu.Lock()
	if f.c.firstRefused == 0 {
		f.c.firstRefused, f.c.issuedBefore = f.n, f.c.issued
	}
	y.mu.Unlock()
}

// startFlow runs the first half of the three-legged flow for u at c: the
// temporary credential request and the consent (Pending, Authorize). It
// returns nil if one of them failed, which it records.
func (y *year) startFlow(c *yearClient, u *yearUser) *yearFlow {
	tn := c.tn
	y.mu.Lock()
	c.auths++
	u.auths++
	f := &yearFlow{c: c, u: u, n: c.auths, uAuths: u.auths, issued: c.issued, revoked: c.revoked}
	y.requests["temporary credential request"]++
	y.mu.Unlock()
	ctx, ri := withYearReq(y.ctx)
	temp, err := c.cfg.RequestToken(ctx)
	if err != nil {
		why, _ := y.whyErr(ri, err)
		y.count(y.refusals, "temporary credential request: "+why)
		y.fail(fmt.Sprintf("%s: temporary credential request refused %s", c, why), "%s%s", f, y.observed(ri))
		y.refused(f)
		return nil
	}
	y.count(y.requests, "consent (Pending, Authorize)")
	pending, err := tn.p.Pending(y.ctx, temp.Credentials.Token)
	if err != nil || pending.ConsumerKey != c.key {
		y.fail(fmt.Sprintf("%s: Pending", c), "%s: %v, client %q", f, err, pending.ConsumerKey)
		y.refused(f)
		return nil
	}
	_, code, err := tn.p.Authorize(y.ctx, server.Approval{Token: temp.Credentials.Token, User: u.id})
	if err != nil {
		y.fail(fmt.Sprintf("%s: Authorize", c), "%s: %v", f, err)
		y.refused(f)
		return nil
	}
	f.temp, f.code = temp.Credentials, code
	return f
}

// finishFlow sends f's token request and, with the token credentials,
// calls the API. A token request refused with 503 sets f.retryAfter, for
// the caller to advance the simulated clock and call again, twice at most.
func (y *year) finishFlow(f *yearFlow) {
	c, u := f.c, f.u
	f.attempt++
	f.retryAfter = 0
	y.count(y.requests, "token request")
	ctx, ri := withYearReq(y.ctx)
	resp, err := c.cfg.AccessToken(ctx, f.temp, f.code)
	if err == nil {
		y.mu.Lock()
		if f.attempt > 1 {
			y.refusals["token request retried after Retry-After, then issued"]++
		}
		c.issued++
		if c.firstRefused > 0 {
			c.issuedAfter++
		}
		u.tok = resp.Credentials
		if c.key == "big" && u == c.users[0] {
			u.toks = append(u.toks, resp.Credentials)
		}
		y.mu.Unlock()
		y.call(c, u, "api call with new token", false, resp.Credentials)
		return
	}
	why, status := y.whyErr(ri, err)
	y.count(y.refusals, "token request: "+why)
	if status == http.StatusServiceUnavailable && f.attempt < 3 {
		if f.attempt == 1 {
			f.first = why + y.observed(ri)
		}
		secs, perr := strconv.Atoi(ri.retry)
		if perr != nil || secs <= 0 {
			y.fail(fmt.Sprintf("%s: token request refused 503 without a Retry-After", c), "%s: Retry-After %q", f, ri.retry)
			secs = 60
		}
		f.retryAfter = time.Duration(secs) * time.Second
		return
	}
	y.refused(f)
	switch {
	case f.attempt == 1:
		y.fail(fmt.Sprintf("%s: token request refused %s", c, why), "%s%s", f, y.observed(ri))
	case status == http.StatusServiceUnavailable:
		y.fail(fmt.Sprintf("%s: token request refused 503 for good (%d attempts, each after Retry-After)", c, f.attempt),
			"%s: first refusal %s", f, f.first)
	default:
		y.fail(fmt.Sprintf("%s: approval lost: token request refused 503, its retry after Retry-After got %s", c, why),
			"%s: first refusal %s", f, f.first)
	}
}

// pickUser returns a random user of c who holds token credentials, or nil.
func (y *year) pickUser(c *yearClient) *yearUser {
	if len(c.users) == 0 {
		return nil
	}
	for range 8 {
		if u := c.users[y.rng.IntN(len(c.users))]; u.tok != nil {
			return u
		}
	}
	return nil
}

// signed returns a GET of c's API signed for u (nil: two-legged) at the
// simulated time, and its yearReq.
func (y *year) signed(c *yearClient, tok *oauth1.Credentials) (*http.Request, *yearReq) {
	ctx, ri := withYearReq(y.ctx)
	r := httptest.NewRequestWithContext(ctx, "GET", "http://"+c.tn.host+"/api/me", nil)
	if err := c.cfg.Sign(r, tok); err != nil {
		y.t.Errorf("signing for %s: %v", c, err)
	}
	return r, ri
}

func (y *year) serve(tn *yearTenant, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	tn.mux.ServeHTTP(rec, r)
	return rec
}

// yearCall is an API call of the day's traffic.
type yearCall struct {
	c      *yearClient
	u      *yearUser
	kind   string
	replay bool
}

// do makes cl, with its user's newest token.
func (y *year) do(cl yearCall) {
	var tok *oauth1.Credentials
	if cl.u != nil {
		tok = cl.u.tok
	}
	y.call(cl.c, cl.u, cl.kind, cl.replay, tok)
}

// call is an honest API call of u (nil: a two-legged launch) with tok at
// c, which must succeed, for the right user; replay sends it again, which
// must be refused.
func (y *year) call(c *yearClient, u *yearUser, kind string, replay bool, tok *oauth1.Credentials) {
	who := "two-legged"
	if u != nil {
		who = "user " + u.id
	}
	r, ri := y.signed(c, tok)
	y.count(y.requests, kind)
	rec := y.serve(c.tn, r)
	if rec.Code != http.StatusOK {
		why := y.why(ri, rec.Code, rec.Body.String())
		y.count(y.refusals, kind+": "+why)
		y.fail(fmt.Sprintf("%s: %s refused %s", c, kind, why), "%s, oauth_nonce %q at %s%s",
			who, yearNonce(r), y.clock.now().Format(time.TimeOnly), y.observed(ri))
		return
	}
	want := c.key + " "
	if u != nil {
		want += u.id
	}
	if got := rec.Body.String(); got != want {
		y.fail(fmt.Sprintf("%s: %s verified for another grant", c, kind), "%s: verified as %q", who, got)
	}
	if !replay {
		return
	}
	y.count(y.requests, "replay")
	ctx, ri := withYearReq(y.ctx)
	rr := httptest.NewRequestWithContext(ctx, "GET", r.URL.String(), nil)
	rr.Header = r.Header.Clone()
	rec = y.serve(c.tn, rr)
	why := y.why(ri, rec.Code, rec.Body.String())
	y.count(y.refusals, "replay: "+why)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(why, "nonce_used") {
		y.fail(fmt.Sprintf("%s: replay answered %s, not 401 nonce_used", c, why), "%s", who)
	}
}

// floodAPI sends c's flood: y.be.Flood two-legged requests in one window,
// concurrently. Each is accepted or refused 503; nothing else.
func (y *year) floodAPI(c *yearClient) {
	var accepted, refused atomic.Int64
	y.parallel(y.be.Flood, func(int) {
		r, _ := y.signed(c, nil)
		rec := y.serve(c.tn, r)
		switch rec.Code {
		case http.StatusOK:
			accepted.Add(1)
		case http.StatusServiceUnavailable:
			refused.Add(1)
		default:
			y.fail(fmt.Sprintf("%s: flood answered %d", c, rec.Code), "%s", rec.Body)
		}
	})
	y.requests["flood"] += y.be.Flood
	if n := accepted.Load(); n > 0 {
		y.flood[c.String()+" accepted"] += int(n)
	}
	if n := refused.Load(); n > 0 {
		y.flood[c.String()+" refused 503"] += int(n)
	}
}

// revoke revokes the token of a random user of tn, and tries it.
func (y *year) revoke(tn *yearTenant) {
	c := tn.clients[y.rng.IntN(2)]
	u := y.pickUser(c)
	if u == nil {
		return
	}
	y.requests["Provider.Revoke"]++
	if err := tn.p.Revoke(y.ctx, u.tok.Token); err != nil {
		y.fail(fmt.Sprintf("%s: Revoke", c), "user %s: %v", u.id, err)
		return
	}
	c.revoked++
	r := yearRevoked{c, u.tok, "Revoke"}
	u.tok = nil
	y.tryRevoked(r, "just revoked (Revoke)")
	if len(y.revoked) < 4096 {
		y.revoked = append(y.revoked, r)
	}
}

// revokeGrant withdraws the grant of u (nil: a random user of c) and tries
// its tokens.
func (y *year) revokeGrant(c *yearClient, u *yearUser) {
	if u == nil {
		if u = y.pickUser(c); u == nil {
			return
		}
	}
	y.requests["Provider.RevokeGrant"]++
	n, err := c.tn.p.RevokeGrant(y.ctx, c.key, u.id)
	if err != nil || n < 1 {
		y.fail(fmt.Sprintf("%s: RevokeGrant", c), "user %s: %d revoked, %v", u.id, n, err)
		return
	}
	c.revoked += n
	// Every token the grant was issued (the heavy user's) or the newest,
	// each with its secret, so that only a revocation can refuse it.
	toks := []*oauth1.Credentials{u.tok}
	if len(u.toks) > 0 {
		toks, u.toks = u.toks, nil
	}
	for _, tok := range toks {
		r := yearRevoked{c, tok, "RevokeGrant"}
		y.tryRevoked(r, "just revoked (RevokeGrant)")
		if len(y.revoked) < 4096 {
			y.revoked = append(y.revoked, r)
		}
	}
	u.tok = nil
}

// tryRevoked signs a request with a revoked token, which must be refused
// with 401.
func (y *year) tryRevoked(r yearRevoked, kind string) {
	y.requests["revoked token tried"]++
	req, ri := y.signed(r.c, r.tok)
	rec := y.serve(r.c.tn, req)
	why := y.why(ri, rec.Code, rec.Body.String())
	y.refusals["revoked token: "+why]++
	if rec.Code == http.StatusOK {
		y.fail(fmt.Sprintf("%s: a revoked token works (%s)", r.c, kind), "answered %q", rec.Body)
	} else if rec.Code != http.StatusUnauthorized {
		y.fail(fmt.Sprintf("%s: a revoked token answered %s, not 401", r.c, why), "%s", kind)
	}
}
