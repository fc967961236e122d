package response

import (
	"io"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		status   int
		body     string
	}{
		{"curl -i", "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n\r\noauth_problem=nonce_used", 401, "oauth_problem=nonce_used"},
		{"curl -i -L: the last response", "HTTP/1.1 302 Found\nLocation: /b\n\nHTTP/2 200\ncontent-type: text/plain\n\nok\n", 200, "ok\n"},
		{"curl -v", "* Connected\n> GET / HTTP/1.1\n> Host: a.example\n>\n< HTTP/1.1 400 Bad Request\n< Content-Type: text/plain\n<\nbad\n", 400, "bad\n"},
	} {
		resp, err := Parse([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || string(b) != tt.body {
			t.Errorf("%s: %d %q, want %d %q", tt.name, resp.StatusCode, b, tt.status, tt.body)
		}
	}
	if _, err := Parse([]byte("GET / HTTP/1.1\n\n")); err == nil {
		t.Error("Parse of a request: no error")
	}
}
