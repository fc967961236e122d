package tokenexchange

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// requestsPython returns a python3 that can import requests, or skips t
// (fails it, under COUNTERSIGN_REQUIRE_INTEROP=1) when there is none;
// COUNTERSIGN_PYTHON names another, as for oauthlibPython.
func requestsPython(t *testing.T) string {
	t.Helper()
	candidates := []string{"python3", "/usr/bin/python3"}
	if py := os.Getenv("COUNTERSIGN_PYTHON"); py != "" {
		candidates = []string{py}
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import requests").Run() == nil {
			return py
		}
	}
	msg := "the interop test needs python3 with requests; on Debian: apt-get install python3-requests"
	if os.Getenv("COUNTERSIGN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg + " (COUNTERSIGN_REQUIRE_INTEROP=1 forbids skipping)")
	}
	t.Skip(msg)
	return ""
}

// exchangeByRequests posts X's shape with Python's requests once for
// each secret, the client authenticated by requests' HTTP Basic
// (auth=(id, secret)), which sends the credentials raw, and prints the
// statuses and JSON answers.
const exchangeByRequests = `
import json, sys, requests
url, cid, token, token_secret, grant_type, token_type = sys.argv[1:7]
out = []
for secret in sys.argv[7:]:
    r = requests.post(url, auth=(cid, secret), timeout=10, data={
        'grant_type': grant_type, 'subject_token': token,
        'subject_token_type': token_type, 'oauth_token_secret': token_secret})
    out.append({'status': r.status_code, 'body': r.json()})
print(json.dumps(out))
`

// TestBasicByRequests: a client secret with '+', '%' and ':', sent raw
// by Python's requests (as Authlib's client_secret_basic does too), is
// accepted over loopback HTTP; a wrong one is refused with the reason.
func TestBasicByRequests(t *testing.T) {
	py := requestsPython(t)
	const secret = "a+b%2Bc:d%e f"
	f := newFixture(t)
	f.h.Clients = clientMap{clientID: {ID: clientID, Secret: secret, ConsumerKey: consumerKey}}
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	out, err := exec.Command(py, "-c", exchangeByRequests, srv.URL, clientID,
		token1, tokenSecret, GrantType, OAuth1TokenType, "a+b%2Bc:d%e g", secret).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got []struct {
		Status int            `json:"status"`
		Body   map[string]any `json:"body"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Len(t, got, 2)

	require.Equal(t, 401, got[0].Status, "%v", got[0].Body)
	require.Equal(t, "invalid_client", got[0].Body["error"])
	require.Contains(t, got[0].Body["error_description"], "neither form-decoded (RFC 6749 section 2.3.1) nor as sent")

	require.Equal(t, 200, got[1].Status, "%v", got[1].Body)
	require.Equal(t, "at-1", got[1].Body["access_token"])
}
