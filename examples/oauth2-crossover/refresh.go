package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	o2 "github.com/go-oauth2/oauth2/v4"
	"github.com/go-oauth2/oauth2/v4/manage"
	o2server "github.com/go-oauth2/oauth2/v4/server"
)

// accessLife is how long an exchanged access token lives (a test
// shortens it to see one expire); refreshed ones live an hour.
var accessLife = time.Hour

// refreshLife is how long a refresh token lives, renewed by every
// refresh: a migrated client keeps access for as long as it is used,
// with no new consent.
const refreshLife = 90 * 24 * time.Hour

// exchangeGrant is the go-oauth2 grant type the exchange grant is minted
// as. go-oauth2's Manager keeps its token settings per grant type and has
// no setter for a type of its own, and for one it does not know it mints
// no refresh token: the password grant's settings are the exchange's
// (configureManager), and the password grant itself is not served.
const exchangeGrant = o2.PasswordCredentials

// configureManager sets the lifetimes of tokens minted for exchanges and
// by refreshes, each refresh token used once (rotated).
func configureManager(m *manage.Manager) {
	m.SetPasswordTokenCfg(&manage.Config{AccessTokenExp: accessLife, RefreshTokenExp: refreshLife, IsGenerateRefresh: true})
	m.SetRefreshTokenCfg(&manage.RefreshingConfig{
		AccessTokenExp: time.Hour, RefreshTokenExp: refreshLife, IsGenerateRefresh: true,
		IsResetRefreshTime: true, IsRemoveAccess: true, IsRemoveRefreshing: true,
	})
}

// configureServer lets go-oauth2's token endpoint serve refresh_token
// only: token exchanges go to the tokenexchange.Handler, and this
// provider has no other grant.
func configureServer(s *o2server.Server) {
	s.SetAllowedGrantType(o2.Refreshing)
}

// checkRefresh authenticates the client of a refresh_token request and
// checks the refresh token was issued to it (RFC 6749 §6), which
// go-oauth2 v4.5 does not: its refresh grant takes any client's refresh
// token, and no secret (its issue #180). It answers the refusal itself
// and returns false, or returns true for go-oauth2 to refresh.
func checkRefresh(ctx context.Context, w http.ResponseWriter, r *http.Request, m *manage.Manager, clients clientStore, form url.Values) bool {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	} else if d, err := url.QueryUnescape(id); err == nil {
		id = d // RFC 6749 §2.3.1: form-encoded, as x/oauth2 sends it
		if d, err := url.QueryUnescape(secret); err == nil {
			secret = d
		}
	}
	c, known := clients[id]
	if !known || c.Secret == "" || !equal(secret, c.Secret) {
		w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return false
	}
	ti, err := m.LoadRefreshToken(ctx, form.Get("refresh_token"))
	if err != nil || ti.GetClientID() != c.ID {
		writeOAuthError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is unknown, expired, or another client's")
		return false
	}
	return true
}

// equal compares two secrets in constant time, lengths included.
func equal(a, b string) bool {
	x, y := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(x[:], y[:]) == 1
}

// writeOAuthError answers an RFC 6749 §5.2 error.
func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

// newServer returns the provider's server, with timeouts: without them, a
// client that sends headers, or a body, a byte at a time (or never) holds
// a connection, and the memory behind it, for as long as it likes.
// WriteTimeout leaves room for an exchange that waits for a concurrent
// one (10 s) or for the Issuer (its claim lasts 30 s).
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the headers and the body
		WriteTimeout:      45 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}
