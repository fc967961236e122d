package main

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/cmd/oauth1/internal/verify"
)

// jsonCase is a request for verify --json, and its text report's twin.
type jsonCase struct {
	name  string
	stdin string
	env   map[string]string
	args  []string
	code  int
}

// jsonCases are the requests of TestVerifyJSON: the X example valid, with
// the client's base string given, with a key mistake, two corpus cases
// (PHP's PECL oauth and Ruby's oauth gem, from the page's test data), and
// a signature that nothing reproduces.
func jsonCases(t *testing.T) []jsonCase {
	noTokenSecret, err := os.ReadFile("testdata/x-request-no-token-secret.txt")
	require.NoError(t, err)
	b, err := os.ReadFile("page/pagetest/testdata/corpus-cases.json")
	require.NoError(t, err)
	var corpus []sharedEntry
	require.NoError(t, json.Unmarshal(b, &corpus))
	sharedEnv := map[string]string{"OAUTH1_CONSUMER_SECRET": sharedConsumerSecret, "OAUTH1_TOKEN_SECRET": sharedTokenSecret}
	cs := []jsonCase{
		{"valid", xRequest, xEnv, []string{"--now", xTimestamp}, 0},
		{"given", strings.Replace(xRequest, "Ladies%20%2B", "Ladies%20%2C", 1), xEnv, []string{"--any-time", "--base-string", xBase}, 1},
		{"key-mistake", string(noTokenSecret), xEnv, []string{"--any-time"}, 1},
	}
	for _, e := range corpus {
		raw, scheme, err := sharedRequest(e)
		require.NoError(t, err)
		cs = append(cs, jsonCase{e.Library, raw, sharedEnv, []string{"--any-time", "--scheme", scheme}, 1})
	}
	other := map[string]string{"OAUTH1_CONSUMER_SECRET": "not the secret", "OAUTH1_TOKEN_SECRET": sharedTokenSecret}
	raw, _, err := sharedRequest(corpus[0])
	require.NoError(t, err)
	cs = append(cs, jsonCase{"nothing-reproduced", raw, other, []string{"--any-time", "--scheme", "https"}, 1})
	return cs
}

// TestVerifyJSON checks verify --json against golden files, and against
// the text report of the same request: the same exit status and verdict,
// the same mistake named, the same base strings; and no secret in it.
func TestVerifyJSON(t *testing.T) {
	for _, tc := range jsonCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			j := runCmd(t, tc.env, tc.stdin, append([]string{"verify", "--json"}, tc.args...)...)
			text := runCmd(t, tc.env, tc.stdin, append([]string{"verify"}, tc.args...)...)
			assert.Equal(t, tc.code, j.code, "exit status of --json")
			assert.Equal(t, text.code, j.code, "exit status of --json and of the text")
			assert.Empty(t, j.stderr)
			golden(t, "verify-json-"+tc.name, j.stdout)

			var rep verify.Report
			dec := json.NewDecoder(strings.NewReader(j.stdout))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&rep))
			switch rep.Verdict {
			case "valid":
				assert.True(t, strings.HasPrefix(text.stdout, "Signature valid"), "text says otherwise:\n%s", text.stdout)
				assert.Contains(t, text.stdout, "Signed base string:\n"+rep.BaseString+"\n")
			case "invalid":
				assert.Contains(t, text.stdout, "Signature NOT valid: "+rep.Problem+".\n"+rep.Summary+"\n")
				assert.Contains(t, text.stdout, "(what the client should have signed):\n"+rep.BaseString+"\n")
			default:
				t.Errorf("verdict %q", rep.Verdict)
			}
			if m := rep.Mistake; m != nil {
				switch m.Check {
				case "key":
					assert.Contains(t, text.stdout, "Key check: "+strings.Join(m.Kinds, ", ")+"\n"+m.Cause)
				case "base_string":
					assert.Contains(t, text.stdout, "Base string check: "+strings.Join(m.Kinds, ", ")+"\n")
					require.NotEmpty(t, m.Bugs)
					for _, bug := range m.Bugs {
						assert.Contains(t, text.stdout, bug)
					}
				case "none":
					assert.Contains(t, text.stdout, m.Cause)
				}
			}
			if rep.SignedBaseString != "" {
				if rep.SignedFrom == "reproduced" {
					assert.Contains(t, text.stdout, "(reproduced: its HMAC with the secrets given is the signature):\n"+rep.SignedBaseString+"\n")
				}
				require.NotNil(t, rep.Marked)
				assert.Equal(t, rep.BaseString, joinSpans(rep.Marked.Want))
				assert.Equal(t, rep.SignedBaseString, joinSpans(rep.Marked.Got))
				assert.NotEmpty(t, rep.Differences)
			}
			for _, secret := range []string{tc.env["OAUTH1_CONSUMER_SECRET"], tc.env["OAUTH1_TOKEN_SECRET"]} {
				for _, form := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), enc(secret)} {
					if form != "" && strings.Contains(j.stdout, form) {
						t.Errorf("a secret is in the JSON: %q", form)
					}
				}
			}
		})
	}
}

func joinSpans(ss []verify.Span) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Text)
	}
	return b.String()
}

// verify --json prints one JSON object and nothing on stderr, the warnings
// being in it; a request it cannot read is a usage error, with no JSON.
func TestVerifyJSONWarningsAndErrors(t *testing.T) {
	req := strings.Replace(xRequest, "Content-Length: 76", "Content-Length: 70", 1)
	j := runCmd(t, xEnv, req, "verify", "--json", "--any-time")
	text := runCmd(t, xEnv, req, "verify", "--any-time")
	assert.Empty(t, j.stderr)
	var rep verify.Report
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &rep))
	require.Len(t, rep.Warnings, 1)
	assert.Equal(t, "oauth1: warning: "+rep.Warnings[0]+"\n", text.stderr)

	bad := runCmd(t, xEnv, "not a request\n", "verify", "--json")
	assert.Equal(t, exitUsage, bad.code)
	assert.Empty(t, bad.stdout)
	assert.True(t, bytes.HasPrefix([]byte(bad.stderr), []byte("oauth1: ")), bad.stderr)
}

// The parameters of the report say where each came from, valid or not:
// the X example's include_entities is in the query and status in the
// body, as its published request shows.
func TestVerifyJSONSources(t *testing.T) {
	for _, args := range [][]string{{"--now", xTimestamp}, {"--now", xTimestamp, "--consumer-secret", "another"}} {
		j := runCmd(t, xEnv, xRequest, append([]string{"verify", "--json"}, args...)...)
		var rep verify.Report
		require.NoError(t, json.Unmarshal([]byte(j.stdout), &rep), j.stdout)
		got := map[string]string{}
		for _, p := range rep.Parameters {
			got[p.Name] = p.Source
		}
		assert.Equal(t, map[string]string{"include_entities": "query", "status": "body", "oauth_consumer_key": "protocol", "oauth_nonce": "protocol",
			"oauth_signature_method": "protocol", "oauth_timestamp": "protocol", "oauth_token": "protocol", "oauth_version": "protocol"}, got, "verdict %s", rep.Verdict)
	}
}
