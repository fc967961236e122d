package oauth1

import (
	"net/url"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/a", "https://API.EXAMPLE.COM:443/b?c", true},
		{"HTTP://api.example.com:80/", "http://api.example.com/x", true},
		{"https://[::1]/", "https://[::1]:443/", true},
		{"https://api.example.com/", "http://api.example.com/", false},
		{"https://api.example.com/", "https://api.example.com:8443/", false},
		{"https://api.example.com/", "https://upload.example.com/", false},
		{"https://example.com/", "https://evil.example.com/", false},
		{"https://api.example.com/", "https://api.example.com.evil/", false},
		{"https://127.0.0.1:1234/", "https://127.0.0.1:1235/", false},
		{"ftp://a/", "ftp://a/", false}, // no default port known: never the same
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := sameOrigin(a, b); got != tt.want {
			t.Errorf("sameOrigin(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
