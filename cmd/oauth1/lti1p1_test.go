package main

import (
	"encoding/base64"
	"os"
	"strings"
	"testing"
)

// The example of 1EdTech's LTI Migration Guide, §"LTI 1.1 migration
// claim": its values and the sign it publishes (see
// oauth1/lti1p1/testdata/README.md).
const (
	ltiSecret  = "my-lti11-secret"
	ltiSign    = "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6+12ps="
	ltiPayload = "../../oauth1/lti1p1/testdata/guide-payload.json"
	// The guide's values signed with the RFC 5849 key "my-lti11-secret&":
	// printf '%s' '179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z' |
	//   openssl dgst -sha256 -hmac 'my-lti11-secret&' -binary | base64
	ltiSignRFC5849 = "EKfte9KBzPEwP7J9hYD0jSpEt6A5uuIl6LRGajBy2zk="
)

var ltiSignArgs = []string{"lti1p1", "sign", "--consumer-key", "179248902", "--deployment-id", "689302",
	"--iss", "https://lmsvendor.com", "--client-id", "PM48OJSfGDTAzAo", "--exp", "1551290856", "--nonce", "172we8671fd8z"}

func ltiGuidePayload(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(ltiPayload)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLTI1p1Sign(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"--secret", nil, append(append([]string{}, ltiSignArgs...), "--secret", ltiSecret)},
		{"environment", map[string]string{"OAUTH1_CONSUMER_SECRET": ltiSecret}, ltiSignArgs},
		{"consumer key from the environment", map[string]string{"OAUTH1_CONSUMER_SECRET": ltiSecret, "OAUTH1_CONSUMER_KEY": "179248902"},
			append([]string{"lti1p1", "sign"}, ltiSignArgs[4:]...)},
	} {
		r := runCmd(t, tc.env, "", tc.args...)
		if r.code != 0 || r.stdout != ltiSign+"\n" || r.stderr != "" {
			t.Errorf("%s: oauth1 lti1p1 sign = %d, stdout %q, stderr %q; want the guide's sign %s", tc.name, r.code, r.stdout, r.stderr, ltiSign)
		}
	}
}

func TestLTI1p1SignUsage(t *testing.T) {
	env := map[string]string{"OAUTH1_CONSUMER_SECRET": ltiSecret}
	with := func(args ...string) []string { return append(append([]string{}, ltiSignArgs...), args...) }
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, ltiSignArgs, `oauth1 lti1p1 sign: no secret: give the LTI 1.1 shared secret with --secret or $OAUTH1_CONSUMER_SECRET; see "oauth1 lti1p1 sign -h"`},
		{env, []string{"lti1p1", "sign", "--iss", "i"}, `oauth1 lti1p1 sign: --consumer-key is missing; see "oauth1 lti1p1 sign -h"`},
		{env, with("--exp", "1551290856.0"), `oauth1 lti1p1 sign: --exp "1551290856.0" is not a whole number of seconds since 1970 (as the id_token's exp, 1551290856 say); see "oauth1 lti1p1 sign -h"`},
		{env, with("--exp", "-3"), `oauth1 lti1p1 sign: --exp "-3" is not a whole number of seconds since 1970 (as the id_token's exp, 1551290856 say); see "oauth1 lti1p1 sign -h"`},
		{env, with("extra"), `oauth1 lti1p1 sign: extra argument "extra"; see "oauth1 lti1p1 sign -h"`},
		{env, []string{"lti1p1", "frob"}, `oauth1 lti1p1: unknown subcommand "frob" (want sign or verify); see "oauth1 lti1p1 -h"`},
	} {
		r := runCmd(t, tc.env, "", tc.args...)
		if r.code != exitUsage || r.stdout != "" || r.stderr != tc.want+"\n" {
			t.Errorf("oauth1 %q = %d, stdout %q, stderr %q; want exit 2, stderr %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}

func TestLTI1p1Verify(t *testing.T) {
	guide := ltiGuidePayload(t)
	b64 := base64.RawURLEncoding.EncodeToString
	jwt := b64([]byte(`{"alg":"RS256","typ":"JWT"}`)) + "." + b64([]byte(guide)) + ".c2lnbmF0dXJl"
	const verifies = `oauth_consumer_key_sign verifies: oauth_consumer_key "179248902", deployment_id "689302", LTI 1.1 user_id "34212"` + "\n"
	const signed = `The tool signed:  "179248902&689302&https://lmsvendor.com&PM48OJSfGDTAzAo&1551290856&172we8671fd8z"` + "\n"
	for _, tc := range []struct {
		name     string
		env      map[string]string
		stdin    string
		args     []string
		code     int
		stdout   string // a prefix of stdout
		inStdout string
		stderr   string
	}{
		{name: "FILE", args: []string{"--secret", ltiSecret, ltiPayload}, stdout: verifies},
		{name: "stdin, secret from the environment", env: map[string]string{"OAUTH1_CONSUMER_SECRET": ltiSecret}, stdin: guide, stdout: verifies},
		{name: "a whole JWT", args: []string{"--secret", ltiSecret}, stdin: jwt + "\n", stdout: verifies,
			stderr: "oauth1: read the payload of a JWT; its signature is not checked here, as the tool's JWT library checks it\n"},
		{name: "another secret", args: []string{"--secret", "another-secret"}, stdin: guide, code: 1,
			stdout: "oauth_consumer_key_sign does not verify.\n" + signed + "Why: no known mistake reproduces the sign", inStdout: "Check that the platform signs with the LTI 1.1 shared secret"},
		{name: "the RFC 5849 key", args: []string{"--secret", ltiSecret}, stdin: strings.Replace(guide, ltiSign, ltiSignRFC5849, 1), code: 1,
			stdout: "oauth_consumer_key_sign does not verify.\n" + signed + "Why: the platform's mistake is rfc5849-key: "},
		{name: "no claim", args: []string{"--secret", ltiSecret}, stdin: `{"iss":"i"}`, code: 1,
			stderr: "oauth1: lti1p1: the id_token has no oauth_consumer_key_sign in the https://purl.imsglobal.org/spec/lti/claim/lti1p1 claim: the platform sent no LTI 1.1 migration claim; nothing to verify\n"},
		{name: "no nonce", args: []string{"--secret", ltiSecret}, stdin: strings.Replace(guide, `"nonce"`, `"n"`, 1), code: 1,
			stderr: "oauth1: cannot verify oauth_consumer_key_sign: the payload's nonce is empty\n"},
		{name: "not JSON", args: []string{"--secret", ltiSecret}, stdin: "hello", code: 2,
			stderr: "oauth1: lti1p1: payload is not a JSON object: invalid character 'h' looking for beginning of value\n"},
		{name: "wrong type", args: []string{"--secret", ltiSecret}, stdin: strings.Replace(guide, `"iss": "https://lmsvendor.com"`, `"iss": ["x"]`, 1), code: 2,
			stderr: "oauth1: lti1p1: iss is an array, want a string\n"},
		{name: "huge input", args: []string{"--secret", ltiSecret}, stdin: strings.Repeat(" ", 2<<20), code: 2,
			stderr: "oauth1: the input is over 1402197 bytes; an id_token payload is a few kilobytes\n"},
		{name: "no secret", stdin: guide, code: 2,
			stderr: `oauth1 lti1p1 verify: no secret: give the LTI 1.1 shared secret with --secret or $OAUTH1_CONSUMER_SECRET; see "oauth1 lti1p1 verify -h"` + "\n"},
		{name: "two files", args: []string{"--secret", ltiSecret, "a", "b"}, code: 2,
			stderr: `oauth1 lti1p1 verify: extra argument "b" after FILE; see "oauth1 lti1p1 verify -h"` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCmd(t, tc.env, tc.stdin, append([]string{"lti1p1", "verify"}, tc.args...)...)
			if r.code != tc.code || !strings.HasPrefix(r.stdout, tc.stdout) || !strings.Contains(r.stdout, tc.inStdout) || r.stderr != tc.stderr {
				t.Errorf("oauth1 lti1p1 verify = %d\nstdout %q\nstderr %q\nwant %d, stdout from %q containing %q, stderr %q", r.code, r.stdout, r.stderr, tc.code, tc.stdout, tc.inStdout, tc.stderr)
			}
			for _, secret := range []string{ltiSecret, "another-secret"} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("the output holds the secret %q", secret)
				}
			}
		})
	}
}

func TestLTI1p1Help(t *testing.T) {
	for _, args := range [][]string{{"help", "lti1p1"}, {"lti1p1", "-h"}, {"lti1p1", "sign", "-h"}, {"lti1p1", "verify", "-h"}} {
		r := runCmd(t, nil, "", args...)
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "usage: oauth1 lti1p1 ") {
			t.Errorf("oauth1 %q = %d, stdout %.60q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, nil, "", "lti1p1"); r.code != exitUsage || !strings.HasPrefix(r.stderr, "usage: oauth1 lti1p1 ") {
		t.Errorf("oauth1 lti1p1 = %d, stderr %.60q", r.code, r.stderr)
	}
	if r := runCmd(t, nil, "", "-h"); !strings.Contains(r.stdout, "lti1p1 sign|verify") {
		t.Errorf("oauth1 -h does not list lti1p1")
	}
}
