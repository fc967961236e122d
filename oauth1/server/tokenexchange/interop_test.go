package tokenexchange

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// oauthlibPython returns a python3 that can import oauthlib, or skips t
// (fails it, under COUNTERSIGN_REQUIRE_INTEROP=1) when there is none, as
// package oauth1's interop tests do; COUNTERSIGN_PYTHON names another.
func oauthlibPython(t *testing.T) string {
	t.Helper()
	candidates := []string{"python3", "/usr/bin/python3"}
	if py := os.Getenv("COUNTERSIGN_PYTHON"); py != "" {
		candidates = []string{py}
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import oauthlib").Run() == nil {
			return py
		}
	}
	msg := "the interop test needs python3 with oauthlib; on Debian: apt-get install python3-oauthlib"
	if os.Getenv("COUNTERSIGN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg + " (COUNTERSIGN_REQUIRE_INTEROP=1 forbids skipping)")
	}
	t.Skip(msg)
	return ""
}

// signByOauthlib prints the Authorization header that oauthlib's Client
// signs a form POST with.
const signByOauthlib = `
import sys
from oauthlib.oauth1 import Client
ck, cs, tok, ts, url, body, stamp, nonce = sys.argv[1:9]
c = Client(ck, client_secret=cs, resource_owner_key=tok, resource_owner_secret=ts,
           timestamp=stamp, nonce=nonce)
_, headers, _ = c.sign(url, http_method='POST', body=body,
                       headers={'Content-Type': 'application/x-www-form-urlencoded'})
print(headers['Authorization'])
`

// TestSignedByOauthlib: a signed exchange whose signature an
// implementation nobody here wrote made (Python's oauthlib) is verified
// and exchanged; the same signature on another body is refused.
func TestSignedByOauthlib(t *testing.T) {
	py := oauthlibPython(t)
	f := newFixture(t)
	body := "grant_type=" + strings.ReplaceAll(GrantType, ":", "%3A") + "&scope=read"
	out, err := exec.Command(py, "-c", signByOauthlib, consumerKey, consumerSecret, token1, tokenSecret,
		endpoint, body, strconv.FormatInt(f.clock.now().Unix(), 10), "oauthlib-nonce-1").CombinedOutput()
	require.NoError(t, err, "%s", out)
	auth := strings.TrimSpace(string(out))
	require.True(t, strings.HasPrefix(auth, "OAuth "), auth)

	r := post(nil, "", "")
	r.Body, r.ContentLength = httptestBody(body), int64(len(body))
	r.Header.Set("Authorization", auth)
	a := serve(t, f.h, r)
	wantToken(t, a, "at-1", "read")

	tampered := strings.Replace(body, "read", "write", 1)
	r = post(nil, "", "")
	r.Body, r.ContentLength = httptestBody(tampered), int64(len(tampered))
	r.Header.Set("Authorization", auth)
	a = serve(t, f.h, r)
	require.Equal(t, "invalid_client", a.fields["error"])
	require.Equal(t, "OAuth 1.0a: signature_invalid", a.fields["error_description"])
}
