package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"log"
	"net/http"

	"github.com/countersign/countersign/oauth1/server"
)

// app serves the provider's endpoints and its consent page.
type app struct {
	p           *server.Provider
	users       map[string][32]byte // name → SHA-256 of the password
	autoApprove string
	csrfKey     []byte // keys the consent form's anti-CSRF field; new at each start
}

func newHandler(p *server.Provider, users map[string]string, autoApprove string) http.Handler {
	a := &app{p: p, users: map[string][32]byte{}, autoApprove: autoApprove, csrfKey: randomKey()}
	for name, pw := range users {
		a.users[name] = sha256.Sum256([]byte(pw))
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.HandleFunc("GET /oauth/authorize", a.consent)
	mux.HandleFunc("POST /oauth/authorize", a.decide)
	mux.Handle("GET /api/me", p.Middleware(http.HandlerFunc(me)))
	return mux
}

// me answers the name of the user who approved the request's token.
func me(w http.ResponseWriter, r *http.Request) {
	v, _ := server.FromContext(r.Context())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store") // a user's data, for this token only
	json.NewEncoder(w).Encode(map[string]string{"name": v.User})
}

var consentPage = template.Must(template.New("").Parse(`<!doctype html>
<title>Authorize {{.ConsumerKey}}</title>
<p>{{.User}}, the application <b>{{.ConsumerKey}}</b> asks to act on your behalf{{if .Scope}} for {{.Scope}}{{end}}.
<form method="post" action="/oauth/authorize">
<input type="hidden" name="oauth_token" value="{{.Token}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button name="approve" value="1">Approve</button> <button name="deny" value="1">Deny</button>
</form>
`))

var codePage = template.Must(template.New("").Parse(`<!doctype html>
<title>Authorized</title>
<p>Type this code into the application: <b>{{.}}</b>
`))

// consent shows the signed-in user who asks for access, with a form to
// approve or deny; with -auto-approve it approves at once.
func (a *app) consent(w http.ResponseWriter, r *http.Request) {
	noFrames(w)
	token := r.URL.Query().Get("oauth_token")
	if a.autoApprove != "" {
		redirect, code, err := a.p.Authorize(r.Context(), server.Approval{Token: token, User: a.autoApprove})
		a.answer(w, r, redirect, code, err)
		return
	}
	user, ok := a.signedIn(w, r)
	if !ok {
		return
	}
	t, err := a.p.Pending(r.Context(), token)
	if err != nil {
		a.answer(w, r, "", "", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	consentPage.Execute(w, struct{ User, ConsumerKey, Scope, Token, CSRF string }{
		user, t.ConsumerKey, t.Scope, token, a.csrf(user, token)})
}

// decide records the signed-in user's answer to the consent form.
func (a *app) decide(w http.ResponseWriter, r *http.Request) {
	noFrames(w)
	user, ok := a.signedIn(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := r.PostFormValue("oauth_token")
	// The form must be the one consent showed this user for this token:
	// the browser sends Basic credentials with any site's form too.
	if !hmac.Equal([]byte(r.PostFormValue("csrf")), []byte(a.csrf(user, token))) {
		http.Error(w, "the form is stale or not this site's: open the authorization link again", http.StatusForbidden)
		return
	}
	if r.PostFormValue("approve") == "" {
		redirect, err := a.p.Deny(r.Context(), token)
		a.answer(w, r, redirect, "", err)
		return
	}
	redirect, code, err := a.p.Authorize(r.Context(), server.Approval{Token: token, User: user})
	a.answer(w, r, redirect, code, err)
}

// answer sends the user back to the client's callback, or shows the code
// of an out-of-band flow, or says why not.
func (a *app) answer(w http.ResponseWriter, r *http.Request, redirect, code string, err error) {
	switch {
	case errors.Is(err, server.ErrNotFound):
		http.Error(w, "unknown or expired authorization request: start again from the application", http.StatusNotFound)
	case errors.Is(err, server.ErrTokenUsed):
		http.Error(w, "this authorization request was answered already", http.StatusConflict)
	case errors.Is(err, server.ErrStoreUnavailable):
		w.Header().Set("Retry-After", "5")
		http.Error(w, "the service is unavailable; try again in a moment", http.StatusServiceUnavailable)
	case err != nil:
		log.Printf("authorize: %v", err)
		http.Error(w, "the authorization failed", http.StatusInternalServerError)
	case redirect != "":
		http.Redirect(w, r, redirect, http.StatusSeeOther)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		codePage.Execute(w, code)
	}
}

// signedIn returns the user of the request's HTTP Basic credentials, or
// asks for them and returns false.
func (a *app) signedIn(w http.ResponseWriter, r *http.Request) (string, bool) {
	name, pw, ok := r.BasicAuth()
	if ok {
		want, known := a.users[name]
		got := sha256.Sum256([]byte(pw))
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 && known {
			return name, true
		}
	}
	w.Header().Set("WWW-Authenticate", `Basic realm="provider", charset="UTF-8"`)
	http.Error(w, "sign in to authorize an application", http.StatusUnauthorized)
	return "", false
}

// csrf is the consent form's anti-CSRF value for user and token: only
// this process, which knows csrfKey, can make it.
func (a *app) csrf(user, token string) string {
	m := hmac.New(sha256.New, a.csrfKey)
	m.Write([]byte(user))
	m.Write([]byte{0})
	m.Write([]byte(token))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// noFrames keeps other sites from framing the consent page, so that no
// one can trick a user into clicking Approve (clickjacking).
func noFrames(w http.ResponseWriter) {
	w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
}
