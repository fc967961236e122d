package exchange_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
)

// xStandIn is a stand-in of X's token endpoint, as X's guide states it
// (https://docs.x.com/fundamentals/authentication/oauth-2-0/oauth-1-0a-token-exchange):
// it refuses, with the field named, every request that differs from the
// guide's in method, path, content type, client authentication or any
// body field, and answers as X does: JSON access_token, refresh_token,
// expires_in, scope and token_type (no issued_token_type). An exchange run
// again for a user invalidates the pair issued before; refresh tokens are
// single-use.
type xStandIn struct {
	clientID, clientSecret string            // clientSecret "" is a public client
	users                  map[string]string // 1.0a token → its secret
	// answer, when set, answers the nth request (from 1) instead.
	answer func(n int, w http.ResponseWriter) bool

	mu        sync.Mutex
	n         int
	seq       int
	refresh   map[string]string // valid refresh token → user
	access    map[string]string // valid access token → user
	current   map[string][2]string
	exchanges int
	refreshes int
	problems  []string
}

func newXStandIn(t *testing.T, id, secret string, users map[string]string) (*xStandIn, *httptest.Server) {
	x := &xStandIn{clientID: id, clientSecret: secret, users: users,
		refresh: map[string]string{}, access: map[string]string{}, current: map[string][2]string{}}
	srv := httptest.NewUnstartedServer(x)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		x.mu.Lock()
		defer x.mu.Unlock()
		for _, p := range x.problems {
			t.Errorf("X stand-in refused a request: %s", p)
		}
	})
	return x, srv
}

func (x *xStandIn) refuse(w http.ResponseWriter, status int, code, format string, args ...any) {
	desc := fmt.Sprintf(format, args...)
	x.problems = append(x.problems, code+": "+desc)
	writeJSON(w, status, map[string]any{"error": code, "error_description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (x *xStandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.n++
	if x.answer != nil && x.answer(x.n, w) {
		return
	}
	if r.Method != http.MethodPost {
		x.refuse(w, 405, "invalid_request", "method %s, not POST", r.Method)
		return
	}
	if r.URL.Path != "/2/oauth2/token" || r.URL.RawQuery != "" {
		x.refuse(w, 404, "invalid_request", "path %q", r.URL.RequestURI())
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		x.refuse(w, 400, "invalid_request", "Content-Type %q", r.Header.Get("Content-Type"))
		return
	}
	b, _ := io.ReadAll(r.Body)
	form, err := url.ParseQuery(string(b))
	if err != nil {
		x.refuse(w, 400, "invalid_request", "body: %v", err)
		return
	}
	for k, v := range form {
		if len(v) != 1 {
			x.refuse(w, 400, "invalid_request", "%s repeated", k)
			return
		}
	}
	// Client authentication: Basic for a confidential client, client_id
	// in the body for a public one, never both, never the secret in the body.
	auth := r.Header.Get("Authorization")
	if x.clientSecret != "" {
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(x.clientID+":"+x.clientSecret))
		if auth != want {
			x.refuse(w, 401, "invalid_client", "Authorization %q", auth)
			return
		}
		if form.Has("client_id") {
			x.refuse(w, 400, "invalid_request", "client_id in the body of a confidential client")
			return
		}
	} else {
		if auth != "" {
			x.refuse(w, 400, "invalid_request", "Authorization on a public client")
			return
		}
		if form.Get("client_id") != x.clientID {
			x.refuse(w, 401, "invalid_client", "client_id %q", form.Get("client_id"))
			return
		}
	}
	want := map[string]bool{"grant_type": true, "client_id": x.clientSecret == ""}
	switch form.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:token-exchange":
		for _, k := range []string{"subject_token", "subject_token_type", "oauth_token_secret", "scope"} {
			want[k] = true
		}
		if !extraFields(x, w, form, want) {
			return
		}
		if got := form.Get("subject_token_type"); got != "urn:x:params:oauth:token-type:oauth1_token" {
			x.refuse(w, 400, "invalid_request", "subject_token_type %q", got)
			return
		}
		user, secret := form.Get("subject_token"), form.Get("oauth_token_secret")
		if s, ok := x.users[user]; !ok || s != secret || secret == "" {
			// X answers a wrong pair as invalid_grant, naming no secret.
			writeJSON(w, 400, map[string]any{"error": "invalid_grant", "error_description": "Value passed for the token was invalid."})
			return
		}
		x.exchanges++
		x.issue(w, user, form.Get("scope"))
	case "refresh_token":
		want["refresh_token"] = true
		if !extraFields(x, w, form, want) {
			return
		}
		user, ok := x.refresh[form.Get("refresh_token")]
		if !ok {
			writeJSON(w, 400, map[string]any{"error": "invalid_request", "error_description": "Value passed for the token was invalid."})
			return
		}
		x.refreshes++
		x.issue(w, user, "")
	default:
		x.refuse(w, 400, "unsupported_grant_type", "grant_type %q", form.Get("grant_type"))
	}
}

// extraFields refuses a body with a field the guide does not name.
func extraFields(x *xStandIn, w http.ResponseWriter, form url.Values, want map[string]bool) bool {
	var extra []string
	for k := range form {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		x.refuse(w, 400, "invalid_request", "fields the guide does not name: %s", strings.Join(extra, ", "))
		return false
	}
	return true
}

// issue invalidates the user's pair and answers a new one.
func (x *xStandIn) issue(w http.ResponseWriter, user, scope string) {
	if old, ok := x.current[user]; ok {
		delete(x.access, old[0])
		delete(x.refresh, old[1])
	}
	x.seq++
	at, rt := fmt.Sprintf("at-%d-%s", x.seq, user), fmt.Sprintf("rt-%d-%s", x.seq, user)
	x.current[user] = [2]string{at, rt}
	x.access[at], x.refresh[rt] = user, user
	if scope == "" {
		scope = "tweet.read users.read offline.access"
	}
	writeJSON(w, 200, map[string]any{"token_type": "bearer", "expires_in": 7200, "access_token": at, "scope": scope, "refresh_token": rt})
}

func (x *xStandIn) valid(access string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	_, ok := x.access[access]
	return ok
}
