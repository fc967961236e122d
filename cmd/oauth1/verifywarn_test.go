package main

import (
	"strings"
	"testing"
)

// verify warns, as sign does, when the request carries an oauth_token and
// no token secret was given: the check then uses an empty token secret.
func TestVerifyWarnsTokenWithoutSecret(t *testing.T) {
	const warning = "oauth1: warning: the request carries an oauth_token but no token secret was given (--token-secret or $OAUTH1_TOKEN_SECRET)"
	header := func(params string) string {
		return "GET /1/me HTTP/1.1\nHost: api.example.com\nAuthorization: OAuth " + params + "\n\n"
	}
	const proto = `oauth_consumer_key="ck", oauth_nonce="n", oauth_signature="c2ln", oauth_timestamp="1700000000", oauth_version="1.0"`
	secret := map[string]string{"OAUTH1_CONSUMER_SECRET": "cs"}
	both := map[string]string{"OAUTH1_CONSUMER_SECRET": "cs", "OAUTH1_TOKEN_SECRET": "ts"}
	tests := []struct {
		name string
		env  map[string]string
		req  string
		args []string
		warn bool
	}{
		{"token in the header", secret, header(proto + `, oauth_signature_method="HMAC-SHA1", oauth_token="tk"`), nil, true},
		{"token secret in the environment", both, header(proto + `, oauth_signature_method="HMAC-SHA1", oauth_token="tk"`), nil, false},
		{"token secret by flag", secret, header(proto + `, oauth_signature_method="HMAC-SHA1", oauth_token="tk"`), []string{"--token-secret", "ts"}, false},
		{"no token", secret, header(proto + `, oauth_signature_method="HMAC-SHA1"`), nil, false},
		{"empty token", secret, header(proto + `, oauth_signature_method="HMAC-SHA1", oauth_token=""`), nil, false},
		{"RSA uses no token secret", secret, header(proto + `, oauth_signature_method="RSA-SHA1", oauth_token="tk"`), nil, false},
		{"token in the query", secret, "GET /1/me?oauth_consumer_key=ck&oauth_token=tk&oauth_signature_method=HMAC-SHA1&oauth_nonce=n&oauth_timestamp=1700000000&oauth_signature=c2ln HTTP/1.1\nHost: api.example.com\n\n", nil, true},
		{"token in the form body", secret, "POST /1/me HTTP/1.1\nHost: api.example.com\nContent-Type: application/x-www-form-urlencoded\nContent-Length: 104\n\noauth_consumer_key=ck&oauth_token=tk&oauth_signature_method=HMAC-SHA1&oauth_nonce=n&oauth_timestamp=1&a=b\n", nil, true},
	}
	for _, tt := range tests {
		r := runCmd(t, tt.env, tt.req, append([]string{"verify", "--any-time"}, tt.args...)...)
		if got := strings.Contains(r.stderr, warning); got != tt.warn {
			t.Errorf("%s: warning %v, want %v; stderr:\n%s", tt.name, got, tt.warn, r.stderr)
		}
		if strings.Contains(r.stderr, "cs") || strings.Contains(r.stderr, "ts\n") {
			t.Errorf("%s: a secret in stderr:\n%s", tt.name, r.stderr)
		}
	}
}
