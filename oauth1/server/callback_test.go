package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// requestWithCallback sends a temporary credential request with callback
// cb, from consumer "key", to p and returns the status.
func requestWithCallback(t *testing.T, p *Provider, cb string) (int, string) {
	t.Helper()
	now := time.Now()
	p.Settings = Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }}
	w := httptest.NewRecorder()
	p.RequestTokenHandler().ServeHTTP(w, providerRequest(t, "http://p.example/request", nil, now, oauth1.Param{Name: "oauth_callback", Value: cb}))
	return w.Code, w.Body.String()
}

// TestCallbackDefaultPolicy checks what a Provider accepts as
// oauth_callback when neither the registration nor CheckCallback says
// more: "oob", and absolute http and https URLs with a host, without
// userinfo, fragment, control characters or the parameters the provider
// adds.
func TestCallbackDefaultPolicy(t *testing.T) {
	for _, tt := range []struct {
		cb     string
		accept bool
	}{
		{"oob", true},
		{"https://good.example/cb", true},
		{"http://localhost:8080/cb?state=a%20b&x=1", true},
		{"https://GOOD.example/Cb/", true},
		{"https://xn--gd-9ja.example/cb", true}, // an IDN in punycode
		{"https://[::1]:8443/cb", true},

		{"livescript:alert(1)", false},
		{"blob:https://good.example/uuid", false},
		{"x:", false},
		{"ms-msdt:/id PCWDiagnostic", false},
		{"ms-msdt:/id%20PCWDiagnostic", false},
		{"intent://scan/#Intent;scheme=zxing;package=com.google.zxing;end", false},
		{"intent://scan/", false},
		{"javascript:alert(1)", false},
		{"JavaScript://good.example/%0Aalert(1)", false},
		{"data:text/html,<script>", false},
		{"file:///etc/passwd", false},
		{"com.example.app:/cb", false}, // a native app's, not registered
		{"https://good.example@evil.example/", false},
		{"https://good.example:x@evil.example/", false},
		{"https://evil.example#@good.example", false},
		{"https://good.example/cb#", false},
		{"https://good.example/cb?oauth_verifier=attacker", false},
		{"https://good.example/cb?x=1&oauth_token=attacker", false},
		{"https://good.example/cb?oauth%5Fverifier=attacker", false},
		{"https://good.example/cb%0d%0aSet-Cookie:%20a=b", false},
		{"https://good.example/cb%0D%0ASet-Cookie:%20a=b", false},
		{"https://good.example/cb\r\nSet-Cookie: a=b", false},
		{"https://good.example/cb%00", false},
		{"https://good.example/c b", false},
		{"https://good.example/cb\t", false},
		{"https://gооd.example/cb", false},       // Cyrillic o: not punycode
		{"https://good.example\u202e/cb", false}, // a bidi override
		{"https://%67ood.example/cb", false},
		{"https://good.example\\@evil.example/", false},
		{"https:evil.example", false},
		{"https:///evil.example", false},
		{"//evil.example/cb", false},
		{"/cb", false},
		{"https://good.example/" + strings.Repeat("a", 2048), false},
	} {
		p := &Provider{Consumers: Consumers{"key": {Secret: "secret"}}, Temporary: new(MemoryTemporaryStore), Tokens: new(MemoryTokenStore)}
		code, body := requestWithCallback(t, p, tt.cb)
		if accepted := code == http.StatusOK; accepted != tt.accept {
			t.Errorf("oauth_callback %q: %d %s; want accepted %v", tt.cb, code, body, tt.accept)
		}
		if !tt.accept && code != http.StatusBadRequest {
			t.Errorf("oauth_callback %q: %d, want 400 parameter_rejected", tt.cb, code)
		}
	}
}

// TestCallbackRegisteredSchemes checks that a scheme other than http and
// https is accepted for the clients that registered it, and only for
// them, and that scripting schemes are refused even then.
func TestCallbackRegisteredSchemes(t *testing.T) {
	reg := Registration{Secret: "secret", CallbackSchemes: []string{"com.example.app", "javascript", "x"}}
	for _, tt := range []struct {
		cb     string
		accept bool
	}{
		{"com.example.app:/cb", true},
		{"COM.Example.App:/cb?state=1", true},
		{"com.example.app://cb", true},
		{"x:", true},
		{"com.example.app:/cb#frag", false},
		{"com.example.app://user@cb", false},
		{"com.example.app:/cb%0A", false},
		{"com.example.other:/cb", false},
		{"javascript:alert(1)", false},
		{"ms-msdt:/id PCWDiagnostic", false},
		{"intent://scan/", false},
	} {
		p := &Provider{Consumers: Consumers{"key": reg}, Temporary: new(MemoryTemporaryStore), Tokens: new(MemoryTokenStore)}
		code, body := requestWithCallback(t, p, tt.cb)
		if accepted := code == http.StatusOK; accepted != tt.accept {
			t.Errorf("oauth_callback %q, schemes %q: %d %s; want accepted %v", tt.cb, reg.CallbackSchemes, code, body, tt.accept)
		}
	}
}

func TestMatchCallback(t *testing.T) {
	registered := []string{"https://good.example/cb", "https://good.example/app/", "https://q.example/r?a=1", "com.example.app:/cb", "http://local.example:8080", "oob"}
	for _, tt := range []struct {
		cb    string
		match bool
	}{
		{"https://good.example/cb", true},
		{"HTTPS://Good.EXAMPLE/cb", true},
		{"https://good.example:443/cb", true},
		{"https://good.example/cb?state=xyz", true},
		{"https://good.example/app/", true},
		{"https://good.example/app/x/y?z=1", true},
		{"https://good.example/app/.well-known", true},
		{"https://q.example/r?a=1", true},
		{"com.example.app:/cb", true},
		{"http://local.example:8080/", true},
		{"oob", true},

		{"https://good.example@evil.example/cb", false},
		{"https://good.example:443@evil.example/cb", false},
		{"https://evil.example#@good.example/cb", false},
		{"https://evil.example/cb", false},
		{"https://good.example.evil.example/cb", false},
		{"https://evilgood.example/cb", false},
		{"http://good.example/cb", false},
		{"https://good.example:8443/cb", false},
		{"https://good.example/CB", false},
		{"https://good.example/cbx", false},
		{"https://good.example/cb/", false},
		{"https://good.example/cb/../x", false},
		{"https://good.example/cb#x", false},
		{"https://good.example/cb?oauth_verifier=attacker", false},
		{"https://good.example/cb%0d%0aSet-Cookie:%20a=b", false},
		{"https://good.example/app", false},
		{"https://good.example/app/../admin", false},
		{"https://good.example/app/x/../../admin", false},
		{"https://good.example/app/%2e%2e/admin", false},
		{"https://good.example/app/%2E./admin", false},
		{"https://good.example/app/..;/admin", false},
		{"https://good.example/app/..%2Fadmin", false},
		{"https://good.example/app/x%5C..%5Cadmin", false},
		{"https://good.example/app\\..\\admin", false},
		{"https://q.example/r", false},
		{"https://q.example/r?a=1&b=2", false},
		{"https://q.example/r?a=2", false},
		{"com.example.app:/cb/x", false},
		{"com.example.app://cb", false},
		{"http://local.example/", false},
		{"https://gооd.example/cb", false},
		{"", false},
		{"cb", false},
	} {
		if err := matchCallback(registered, tt.cb); (err == nil) != tt.match {
			t.Errorf("matchCallback(%q) = %v, want match %v", tt.cb, err, tt.match)
		}
	}
	// Entries that are no absolute URL, or that hold userinfo or a
	// fragment, match nothing, not even themselves.
	for _, bad := range []string{"good.example/cb", "/cb", "https://u@good.example/cb", "https://good.example/cb#x", ""} {
		if err := matchCallback([]string{bad}, bad); err == nil {
			t.Errorf("matchCallback([%q], %[1]q) matched", bad)
		}
	}
	if err := matchCallback([]string{"https://good.example/cb"}, "oob"); err == nil {
		t.Error(`MatchCallback of "oob", not registered, matched`)
	}
}

// TestMatchCallbackLoopback checks RFC 8252 §7.3: a registered http
// callback to a loopback IP literal without a port matches that literal on
// any port, and nothing that merely looks like it; localhost (§8.3) and a
// registered port get no such rule.
func TestMatchCallbackLoopback(t *testing.T) {
	registered := []string{"http://127.0.0.1/cb", "http://[::1]/app/", "http://localhost/cb", "http://127.0.0.1:9000/fixed"}
	for _, tt := range []struct {
		cb    string
		match bool
	}{
		{"http://127.0.0.1/cb", true},
		{"http://127.0.0.1:51234/cb", true},
		{"http://127.0.0.1:1/cb", true},
		{"http://127.0.0.1:65535/cb?state=x", true},
		{"http://[::1]:8080/app/done", true},
		{"http://[::1]/app/", true},
		{"http://localhost/cb", true},
		{"http://127.0.0.1:9000/fixed", true},

		{"http://127.0.0.1.evil.example/cb", false},
		{"http://127.0.0.1.evil.example:8080/cb", false},
		{"http://127.0.0.1:8080.evil.example/cb", false},
		{"http://127.0.0.1:8080@evil.example/cb", false},
		{"http://evil.example@127.0.0.1:8080/cb", false},
		{"http://127.0.0.1:8080:80/cb", false},
		{"http://127.0.0.1:0/cb", false},
		{"http://127.0.0.1:65536/cb", false},
		{"http://127.0.0.1:080808/cb", false},
		{"http://127.0.0.1:+80/cb", false},
		{"http://127.0.0.1:8080/other", false},
		{"http://127.0.0.1:8080/cb/", false},
		{"http://127.0.0.1:8080/cb/../x", false},
		{"http://127.0.0.1:8080/cb#x", false},
		{"https://127.0.0.1:8080/cb", false},
		{"http://127.0.0.2:8080/cb", false},
		{"http://127.1:8080/cb", false},
		{"http://0x7f.0.0.1:8080/cb", false},
		{"http://[::1]:8080/cb", false},
		{"http://[::1]:8080/app/../admin", false},
		{"http://[0:0:0:0:0:0:0:1]:8080/app/x", false},
		{"http://[::1%25lo]:8080/app/x", false},
		{"http://[::ffff:127.0.0.1]:8080/cb", false},
		{"http://localhost:8080/cb", false},
		{"http://127.0.0.1:9001/fixed", false},
		{"http://[::1]:8080.evil.example/app/", false},
	} {
		if err := matchCallback(registered, tt.cb); (err == nil) != tt.match {
			t.Errorf("matchCallback(%q) = %v, want match %v", tt.cb, err, tt.match)
		}
	}
	// Only an IP literal on the loopback, over http, gets any port.
	for _, reg := range []string{"https://127.0.0.1/cb", "http://10.0.0.1/cb", "http://example.com/cb", "http://127.0.0.1:80/cb"} {
		u := strings.Replace(reg, "/cb", ":8080/cb", 1)
		u = strings.Replace(u, ":80:8080", ":8080", 1)
		if err := matchCallback([]string{reg}, u); err == nil {
			t.Errorf("matchCallback([%q], %q) matched another port", reg, u)
		}
	}
}

// TestMatchCallbackEncodedDotSegments: after a registered prefix, a dot
// segment hidden under any depth of percent-encoding, an overlong or
// invalid UTF-8 encoding of '.' or '/', a backslash or a fragment in any
// encoding matches nothing, since a server or proxy that decodes the path
// again would leave the prefix.
func TestMatchCallbackEncodedDotSegments(t *testing.T) {
	registered := []string{"https://good.example/app/"}
	for _, tt := range []struct {
		cb    string
		match bool
	}{
		{"https://good.example/app/x", true},
		{"https://good.example/app/a.b/c..d/...e", true},
		{"https://good.example/app/caf%C3%A9", true},
		{"https://good.example/app/a%2541", true}, // "a%41", then "aA"
		{"https://good.example/app/%7Euser", true},

		{"https://good.example/app/%252e%252e/admin", false},
		{"https://good.example/app/%252E%252E/admin", false},
		{"https://good.example/app/%25252e%25252e/admin", false},
		{"https://good.example/app/%2525252e%2525252e/admin", false},
		{"https://good.example/app/%2e%2E/admin", false},
		{"https://good.example/app/%2E%2e/admin", false},
		{"https://good.example/app/.%2e/admin", false},
		{"https://good.example/app/%2e/admin", false},
		{"https://good.example/app/%c0%ae%c0%ae/admin", false},
		{"https://good.example/app/%C0%AE%C0%AE/admin", false},
		{"https://good.example/app/%e0%80%ae%e0%80%ae/admin", false},
		{"https://good.example/app/%25c0%25ae%25c0%25ae/admin", false},
		{"https://good.example/app/..%c0%afadmin", false},
		{"https://good.example/app/..%2fadmin", false},
		{"https://good.example/app/..%252fadmin", false},
		{"https://good.example/app/..%5cadmin", false},
		{"https://good.example/app/..%255cadmin", false},
		{"https://good.example/app/x%5C..%5Cadmin", false},
		{"https://good.example/app/..;/admin", false},
		{"https://good.example/app/..%3b/admin", false},
		{"https://good.example/app/..%253b/admin", false},
		{"https://good.example/app/.../admin", false},
		{"https://good.example/app/..%20/admin", false},
		{"https://good.example/app/%ef%bc%8e%ef%bc%8e/admin", false}, // fullwidth full stops
		{"https://good.example/app/x%2523frag", false},
		{"https://good.example/app/x%253fq=1", false},
		{"https://good.example/app/x%2500", false},
		{"https://good.example/app/x%ff", false},
		{"https://good.example/app/%25", false},
		{"https://good.example/app/%252", false},
	} {
		if err := matchCallback(registered, tt.cb); (err == nil) != tt.match {
			t.Errorf("matchCallback(%q) = %v, want match %v", tt.cb, err, tt.match)
		}
	}
}
