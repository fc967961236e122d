package main

import (
	"strings"
	"testing"
)

// The headers of a provider retiring OAuth 1.0a, as RFC 9745 and RFC 8594
// write them: @1780272000 is 2026-06-01 00:00:00 UTC
// (date -u -d 2026-06-01 +%s).
const retiringHeaders = "Deprecation: @1780272000\n" +
	"Sunset: Thu, 31 Dec 2026 23:59:59 GMT\n" +
	"Link: <https://developer.example.com/oauth2-migration>; rel=\"deprecation\"\n" +
	"Link: <https://developer.example.com/oauth2-migration>; rel=\"sunset\"\n"

const retiringWarning = "the provider deprecates this API as of 2026-06-01 00:00:00 UTC and retires it at 2026-12-31 23:59:59 UTC (see https://developer.example.com/oauth2-migration)"

func TestResponse(t *testing.T) {
	gone := "HTTP/1.1 410 Gone\r\n" + strings.ReplaceAll(retiringHeaders, "\n", "\r\n") +
		"Content-Type: application/x-www-form-urlencoded\r\n\r\n" +
		"oauth_problem=version_rejected&oauth_problem_advice=OAuth%201.0a%20was%20retired%20at%202026-12-31%2023%3A59%3A59%20UTC"
	tests := []struct {
		name           string
		in             string
		code           int
		stdout, stderr string
	}{
		{"success that announces", "HTTP/1.1 200 OK\n" + retiringHeaders + "Content-Type: application/json\n\n{\"steps\":8042}\n",
			0, "200 OK\n", "oauth1: warning: " + retiringWarning + "\n"},
		{"success", "HTTP/2 200\ncontent-type: application/json\n\n{}", 0, "200 OK\n", ""},
		{"refusal after the cut-off", gone, 1,
			"oauth1: provider answered 410 Gone: oauth_problem=version_rejected (OAuth 1.0a was retired at 2026-12-31 23:59:59 UTC) (" + retiringWarning + ")\n", ""},
		{"after a 100 Continue and a redirect", "HTTP/1.1 100 Continue\n\nHTTP/1.1 302 Found\nLocation: /b\n\n" + gone, 1,
			"oauth1: provider answered 410 Gone: oauth_problem=version_rejected (OAuth 1.0a was retired at 2026-12-31 23:59:59 UTC) (" + retiringWarning + ")\n", ""},
		{"curl -v", "* Connected to api.example.com\n> GET /v1/me HTTP/1.1\n> Host: api.example.com\n>\n< HTTP/1.1 200 OK\n< " +
			strings.ReplaceAll(strings.TrimSuffix(retiringHeaders, "\n"), "\n", "\n< ") + "\n<\n{\"steps\":8042}\n* Connection left intact\n",
			0, "200 OK\n", "oauth1: warning: " + retiringWarning + "\n"},
		{"hostile links", "HTTP/1.1 200 OK\nLink: <https://evil.example/a b>; rel=deprecation\nLink: <https://evil.example/" + strings.Repeat("a", 3000) + ">; rel=sunset\n\n", 0, "200 OK\n", ""},
		{"control character", "HTTP/1.1 200 OK\nLink: <https://evil.example/\x1b[2J>; rel=deprecation\n\n", 2, "",
			"oauth1: the input is not an HTTP response: malformed MIME header line: \"Link: <https://evil.example/\\x1b[2J>; rel=deprecation\"\n"},
		{"refusal with the provider's base string", "HTTP/1.1 401 Unauthorized\nContent-Type: application/x-www-form-urlencoded\n\n" +
			"oauth_problem=signature_invalid&oauth_signature_base_string=GET%26https%253A%252F%252Fapi.example.com%252Fme%26oauth_consumer_key%253Dck", 1,
			"oauth1: provider answered 401 Unauthorized: oauth_problem=signature_invalid\n" +
				"The provider's base string (oauth_signature_base_string):\n" +
				"GET&https%3A%2F%2Fapi.example.com%2Fme&oauth_consumer_key%3Dck\n" +
				"Compare it with the one the client signed (oauth1 sign --explain prints it): oauth1 diff 'PROVIDER_BASE' 'CLIENT_BASE'.\n", ""},
		{"a base string with a newline and an escape", "HTTP/1.1 401 Unauthorized\nContent-Type: application/x-www-form-urlencoded\n\n" +
			"oauth_problem=signature_invalid&oauth_signature_base_string=GET%26a%0Ab%1B%5B2J", 1,
			"oauth1: provider answered 401 Unauthorized: oauth_problem=signature_invalid\n" +
				"The provider's base string (oauth_signature_base_string):\n" +
				"\"GET&a\\nb\\x1b[2J\"\n" +
				"Compare it with the one the client signed (oauth1 sign --explain prints it): oauth1 diff 'PROVIDER_BASE' 'CLIENT_BASE'.\n", ""},
		{"not a response", "GET / HTTP/1.1\nHost: a\n\n", 2, "",
			"oauth1: the input is not an HTTP response: it does not start with a status line such as HTTP/1.1 200 OK\n"},
		{"malformed status", "HTTP/1.1 abc\n\n", 2, "", "oauth1: the input is not an HTTP response: malformed HTTP status code \"abc\"\n"},
		{"empty", "", 2, "", "oauth1: the input is not an HTTP response: it does not start with a status line such as HTTP/1.1 200 OK\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, nil, tt.in, "response")
			if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
				t.Errorf("oauth1 response = %d, stdout %q, stderr %q\nwant %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
	if r := runCmd(t, nil, "", "response", "a", "b"); r.code != exitUsage {
		t.Errorf("oauth1 response a b: exit %d, want %d", r.code, exitUsage)
	}
	if r := runCmd(t, nil, "", "help", "response"); r.code != exitOK || !strings.Contains(r.stdout, "usage: oauth1 response [FILE]") {
		t.Errorf("oauth1 help response = %d, %q", r.code, r.stdout)
	}
}
