package oauth1_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// Secrets that no signed request may carry anywhere but to their owner.
var (
	leakConsumer = oauth1.Credentials{Token: "leak-consumer-key", Secret: "CONSUMER-secret/+="}
	leakToken    = oauth1.Credentials{Token: "leak-token", Secret: "TOKEN-secret&?"}
)

// hop is what a server received: the request line's query, the
// Authorization header and the body.
type hop struct {
	path, query, auth, body string
}

// hopRecorder is a handler that records each request it gets, then calls
// next, if set.
type hopRecorder struct {
	mu   sync.Mutex
	hops []hop
	next http.HandlerFunc
}

func (h *hopRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.hops = append(h.hops, hop{r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), string(b)})
	h.mu.Unlock()
	if h.next != nil {
		h.next(w, r)
		return
	}
	io.WriteString(w, "ok")
}

func (h *hopRecorder) last(t *testing.T) hop {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	require.NotEmpty(t, h.hops, "the server got no request")
	return h.hops[len(h.hops)-1]
}

// signed reports whether a hop carries protocol parameters, and fails t if
// an unsigned one carries a secret all the same.
func (h hop) signed(t *testing.T) bool {
	t.Helper()
	all := h.query + "\n" + h.auth + "\n" + h.body
	if strings.Contains(all, "oauth_") {
		return true
	}
	for _, s := range []string{leakConsumer.Secret, leakToken.Secret, url.QueryEscape(leakConsumer.Secret), url.QueryEscape(leakToken.Secret)} {
		assert.NotContains(t, all, s, "an unsigned hop carries a secret")
	}
	return false
}

// TestTransportRedirects follows redirects through a real http.Client
// between https servers on loopback: a server on another port is another
// host, which gets the request unsigned unless RedirectHosts lists it, and
// never gets PLAINTEXT.
func TestTransportRedirects(t *testing.T) {
	other := &hopRecorder{}
	otherSrv := httptest.NewTLSServer(other)
	defer otherSrv.Close()
	plain := &hopRecorder{}
	plainSrv := httptest.NewServer(plain)
	defer plainSrv.Close()
	otherHost := strings.TrimPrefix(otherSrv.URL, "https://")

	origin := &hopRecorder{}
	originSrv := httptest.NewTLSServer(origin)
	defer originSrv.Close()
	origin.next = func(w http.ResponseWriter, r *http.Request) {
		code := http.StatusFound
		if r.URL.Query().Get("code") == "307" {
			code = http.StatusTemporaryRedirect
		}
		switch r.URL.Path {
		case "/cross":
			http.Redirect(w, r, otherSrv.URL+"/end?a=1", code)
		case "/same":
			// Another spelling of the same origin: the default port is
			// not involved, so only case may differ.
			http.Redirect(w, r, strings.Replace(originSrv.URL, "https://", "HTTPS://", 1)+"/end?a=1", code)
		case "/http":
			http.Redirect(w, r, plainSrv.URL+"/end?a=1", code)
		default:
			io.WriteString(w, "ok")
		}
	}

	tests := []struct {
		name       string
		signer     oauth1.Signer
		delivery   oauth1.Delivery
		path       string // on the origin: /cross, /same or /http
		code       string // 302 or 307
		allow      []string
		to         *hopRecorder
		wantSigned bool
	}{
		{"header, other host, 302", nil, oauth1.AuthHeader, "/cross", "302", nil, other, false},
		{"header, other host, 307", nil, oauth1.AuthHeader, "/cross", "307", nil, other, false},
		{"query, other host", nil, oauth1.QueryString, "/cross", "302", nil, other, false},
		{"body, other host, 307", nil, oauth1.FormBody, "/cross", "307", nil, other, false},
		{"PLAINTEXT header, other host", oauth1.Plaintext{}, oauth1.AuthHeader, "/cross", "307", nil, other, false},
		{"PLAINTEXT query, other host", oauth1.Plaintext{}, oauth1.QueryString, "/cross", "302", nil, other, false},
		{"PLAINTEXT query, other host listed", oauth1.Plaintext{}, oauth1.QueryString, "/cross", "302", []string{otherHost}, other, false},
		{"header, same host", nil, oauth1.AuthHeader, "/same", "302", nil, origin, true},
		{"query, same host, 307", nil, oauth1.QueryString, "/same", "307", nil, origin, true},
		{"PLAINTEXT query, same host", oauth1.Plaintext{}, oauth1.QueryString, "/same", "302", nil, origin, true},
		{"header, other host listed", nil, oauth1.AuthHeader, "/cross", "302", []string{"example.com", strings.ToUpper(otherHost)}, other, true},
		{"query, other host listed", nil, oauth1.QueryString, "/cross", "307", []string{otherHost}, other, true},
		{"header, listed without its port", nil, oauth1.AuthHeader, "/cross", "302", []string{"127.0.0.1"}, other, false},
		{"header, listed, https to http", nil, oauth1.AuthHeader, "/http", "302", []string{strings.TrimPrefix(plainSrv.URL, "http://")}, plain, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := &http.Client{Transport: &oauth1.Transport{
				Config:        &oauth1.Config{ConsumerKey: leakConsumer.Token, ConsumerSecret: leakConsumer.Secret, Signer: tt.signer, Delivery: tt.delivery},
				Token:         &leakToken,
				Base:          originSrv.Client().Transport,
				RedirectHosts: tt.allow,
			}}
			req, err := http.NewRequest("POST", originSrv.URL+tt.path+"?code="+tt.code, strings.NewReader("b=2"))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := client.Do(req)
			require.NoError(t, err)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)

			first := origin.hops[len(origin.hops)-1]
			if tt.to == origin {
				first = origin.hops[len(origin.hops)-2]
			}
			require.Equal(t, tt.path, first.path)
			assert.True(t, first.signed(t), "the caller's own request went unsigned")
			end := tt.to.last(t)
			require.Equal(t, "/end", end.path)
			assert.Equal(t, tt.wantSigned, end.signed(t), "redirected request: %+v", end)
			if tt.code == "307" {
				assert.Contains(t, end.body, "b=2", "307 replays the body")
			}
		})
	}
}
