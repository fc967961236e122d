package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

func demoApp(t *testing.T) *httptest.Server {
	t.Helper()
	cfg := &oauth1.Config{}
	p := startDemoProvider(cfg)
	t.Cleanup(p.Close)
	cfg.ConsumerKey, cfg.ConsumerSecret = demoClient.Token, demoClient.Secret
	cfg.Endpoint = oauth1.Endpoint{RequestTokenURL: p.URL + "/initiate", AuthorizeURL: p.URL + "/authorize", AccessTokenURL: p.URL + "/token"}
	app := httptest.NewUnstartedServer(nil)
	cfg.Callback = "http://" + app.Listener.Addr().String() + "/callback"
	app.Config.Handler = newApp(cfg)
	app.Start()
	t.Cleanup(app.Close)
	return app
}

func browser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar}
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The callback completes only the flow that the same browser started: a
// callback URL from an attacker's approved flow, opened in a victim's
// browser, signs nobody in (login CSRF).
func TestCallbackBoundToBrowser(t *testing.T) {
	app := demoApp(t)

	// The attacker starts a flow, approves it, and keeps the callback URL
	// instead of following it.
	attacker := browser()
	var callback string
	attacker.CheckRedirect = func(r *http.Request, _ []*http.Request) error {
		if r.URL.Path == "/callback" {
			callback = r.URL.String()
			return http.ErrUseLastResponse
		}
		return nil
	}
	get(t, attacker, app.URL+"/login")
	if callback == "" {
		t.Fatal("the flow never reached the callback")
	}

	if code, body := get(t, browser(), callback); code != http.StatusBadRequest || strings.Contains(body, "Signed in") {
		t.Errorf("victim's browser opening the attacker's callback: %d %q, want 400 and no sign-in", code, body)
	}

	// The browser that started a flow completes it.
	if code, body := get(t, browser(), app.URL+"/login"); code != http.StatusOK || !strings.Contains(body, "Signed in") {
		t.Errorf("a browser's own flow: %d %q, want 200 and signed in", code, body)
	}
}

// TestServerTimeouts checks that the server bounds how long a client may
// take to send its request and how long an idle connection stays open, and
// leaves a handler time for its call to the provider.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s is not set", name)
		}
	}
	if srv.WriteTimeout <= 30*time.Second {
		t.Errorf("WriteTimeout %v leaves no room for the provider call (30 s)", srv.WriteTimeout)
	}
}

// The example reads the oauth1 command's OAUTH1_* names; the former ones
// still work, with a warning that names the new one.
func TestGetenvNames(t *testing.T) {
	tests := []struct {
		env      map[string]string
		name     string
		want     string
		warnings string
	}{
		{map[string]string{"OAUTH1_CONSUMER_KEY": "new"}, "OAUTH1_CONSUMER_KEY", "new", ""},
		{map[string]string{"OAUTH1_CONSUMER_KEY": "new", "OAUTH_CONSUMER_KEY": "old"}, "OAUTH1_CONSUMER_KEY", "new", ""},
		{map[string]string{"OAUTH_CONSUMER_KEY": "old"}, "OAUTH1_CONSUMER_KEY", "old", "warning: $OAUTH_CONSUMER_KEY is deprecated; set $OAUTH1_CONSUMER_KEY instead\n"},
		{map[string]string{"OAUTH_CONSUMER_SECRET": "s"}, "OAUTH1_CONSUMER_SECRET", "s", "warning: $OAUTH_CONSUMER_SECRET is deprecated; set $OAUTH1_CONSUMER_SECRET instead\n"},
		{map[string]string{"KEY_PASSWORD": "pw"}, "OAUTH1_KEY_PASSWORD", "pw", "warning: $KEY_PASSWORD is deprecated; set $OAUTH1_KEY_PASSWORD instead\n"},
		{map[string]string{}, "OAUTH1_CONSUMER_KEY", "", ""},
	}
	for _, tt := range tests {
		var w strings.Builder
		got := getenv(func(k string) string { return tt.env[k] }, &w, tt.name)
		if got != tt.want || w.String() != tt.warnings {
			t.Errorf("getenv(%v, %s) = %q, warnings %q; want %q, %q", tt.env, tt.name, got, w.String(), tt.want, tt.warnings)
		}
	}
}
