package oauth1

import (
	"net/url"
	"testing"
)

func TestScrubEcho(t *testing.T) {
	const cs, ts = "c/s+1", "t&s"
	tests := []struct{ in, want string }{
		{"oauth_problem=signature_invalid", "oauth_problem=signature_invalid"},
		{"a=1&oauth_signature=abc%2B%3D&b=2", "a=1&oauth_signature=REDACTED&b=2"},
		{`OAuth oauth_token="t", oauth_signature="abc%3D", x="y"`, `OAuth oauth_token="t", oauth_signature="REDACTED", x="y"`},
		{`{"OAuth_Signature": "abc=", "n": 1}`, `{"OAuth_Signature": "REDACTED", "n": 1}`},
		{`<oauth_signature>abc=</oauth_signature>`, `<oauth_signature>REDACTED</oauth_signature>`},
		{"debug=GET%20%2Fx%3Foauth_signature%3Dabc%252B%26y%3D1", "debug=GET%20%2Fx%3Foauth_signature%3DREDACTED%26y%3D1"},
		{"oauth_token_secret=new&oauth_token=t", "oauth_token_secret=REDACTED&oauth_token=t"},
		{"secret is c/s+1 or " + url.QueryEscape(cs) + " or c%2Fs%2B1 or c%252fs%252b1, and t&s", "secret is REDACTED or REDACTED or REDACTED or REDACTED, and REDACTED"},
	}
	for _, tt := range tests {
		if got := string(scrubEcho([]byte(tt.in), cs, ts, "")); got != tt.want {
			t.Errorf("scrubEcho(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripProtocolQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.com/rt?oauth_signature=x&scope=read&oauth_nonce=n", "https://api.example.com/rt?scope=read"},
		{"https://api.example.com/rt?OAuth_Token=x", "https://api.example.com/rt"},
		{"https://api.example.com/rt?oauth%5Fsignature=x&a=1#frag", "https://api.example.com/rt?a=1"},
		{"https://u:p@api.example.com/rt", "https://u:xxxxx@api.example.com/rt"},
		{"%zz", "https://fallback.example/at"},
	}
	for _, tt := range tests {
		if got := stripProtocolQuery(tt.in, "https://fallback.example/at?oauth_nonce=1"); got != tt.want {
			t.Errorf("stripProtocolQuery(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
