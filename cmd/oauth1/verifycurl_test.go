package main

import (
	"strings"
	"testing"
)

// curl -v does not show the request body: what follows the "> " lines is
// curl's own ("} [7 bytes data]", "*", "<") and then the response's body,
// printed unmarked, which verify must not take for the request's. The
// transcripts are curl 7.88.1's, of a POST signed with the secrets cs and
// ts; its signature, kHhJOxB+LP+fKOZtx38wnRdAMO4=, is Python's
// hmac.new(b"cs&ts", base, hashlib.sha1) over the http base string of the
// body a=b%20c.
func TestVerifyCurlVerboseBody(t *testing.T) {
	const head = "> POST /x?q=1 HTTP/1.1\n" +
		"> Host: 127.0.0.1:18765\n" +
		"> User-Agent: curl/7.88.1\n" +
		"> Accept: */*\n" +
		`> Authorization: OAuth oauth_consumer_key="ck", oauth_nonce="AIMJFRQG6RETLUU76XCB4ETZ2P", oauth_signature="kHhJOxB%2BLP%2BfKOZtx38wnRdAMO4%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1796435817", oauth_token="tk", oauth_version="1.0"` + "\n" +
		"> Content-Type: application/x-www-form-urlencoded\n" +
		"> Content-Length: 7\n" +
		"> \n"
	transcripts := []struct{ name, text string }{
		{"to a terminal: the response body follows", "*   Trying 127.0.0.1:18765...\n" +
			"* Connected to 127.0.0.1 (127.0.0.1) port 18765 (#0)\n" + head +
			"< HTTP/1.1 401 Unauthorized\n< Content-Type: application/x-www-form-urlencoded\n< Content-Length: 31\n< \n" +
			"oauth_problem=signature_invalid* Connection #0 to host 127.0.0.1 left intact\n"},
		{"with the progress meter (stdout redirected)", "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n" +
			"                                 Dload  Upload   Total   Spent    Left  Speed\n" +
			"\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0*   Trying 127.0.0.1:18765...\n" +
			"* Connected to 127.0.0.1 (127.0.0.1) port 18765 (#0)\n" + head +
			"} [7 bytes data]\n* HTTP 1.0, assume close after body\n< HTTP/1.0 501 Unsupported method ('POST')\n< Content-Length: 357\n< \n" +
			"{ [357 bytes data]\n\r100   364  100   357  100     7  80387   1576 --:--:-- --:--:-- --:--:-- 91000\n* Closing connection 0\n"},
	}
	env := map[string]string{"OAUTH1_CONSUMER_SECRET": "cs", "OAUTH1_TOKEN_SECRET": "ts"}
	for _, tc := range transcripts {
		r := runCmd(t, env, tc.text, "verify", "--any-time", "--scheme", "http")
		if !strings.Contains(r.stderr, "curl -v does not show the body; give it with --data-raw") || strings.Contains(r.stderr, "bytes follow the headers") {
			t.Errorf("%s: without --data-raw, stderr does not ask for the body:\n%s", tc.name, r.stderr)
		}
		r = runCmd(t, env, tc.text, "verify", "--any-time", "--scheme", "http", "--data-raw", "a=b%20c")
		if r.code != exitOK || !strings.Contains(r.stdout, "Signature valid") {
			t.Errorf("%s: with --data-raw, exit %d, want %d:\n%s%s", tc.name, r.code, exitOK, r.stdout, r.stderr)
		}
	}
}
