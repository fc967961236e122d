package main

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
)

// authItems splits an Authorization header into "OAuth", its realm item and
// its other name="value" items, sorted: the order of the parameters is not
// significant (RFC 5849 §3.5.1), their bytes are.
func authItems(t *testing.T, h string) (realm string, items []string) {
	t.Helper()
	rest, ok := strings.CutPrefix(h, "OAuth ")
	if !ok {
		t.Fatalf("header %q does not start with \"OAuth \"", h)
	}
	items = strings.Split(rest, ", ")
	if strings.HasPrefix(items[0], "realm=") {
		realm, items = items[0], items[1:]
	}
	slices.Sort(items)
	return realm, items
}

// rfcHeader unfolds an Authorization header as RFC 5849 prints it, one
// parameter a line.
func rfcHeader(lines ...string) string {
	return "OAuth " + strings.Join(lines, ", ")
}

// TestSignRFC5849Plaintext reproduces the PLAINTEXT requests of RFC 5849
// §2.1 (temporary credentials) and §2.3 (token credentials), which have no
// oauth_nonce, oauth_timestamp or oauth_version. The client secret is
// ja893SD9 (§2.1's signature) and the temporary credentials' secret
// xyz4992k83j47x0b (§2.1's response).
func TestSignRFC5849Plaintext(t *testing.T) {
	env := map[string]string{"OAUTH1_CONSUMER_KEY": "jd83jd92dhsh93js", "OAUTH1_CONSUMER_SECRET": "ja893SD9"}
	bare := []string{"sign", "-X", "POST", "--signature-method", "PLAINTEXT", "--no-nonce", "--no-timestamp", "--no-version", "--realm", "Example", "--show-secrets"}
	tests := []struct {
		name string
		args []string
		want string // as RFC 5849 prints it, unfolded
	}{
		{"§2.1", []string{"--callback", "http://client.example.net/cb?x=1", "https://server.example.com/request_temp_credentials"}, rfcHeader(
			`realm="Example"`,
			`oauth_consumer_key="jd83jd92dhsh93js"`,
			`oauth_signature_method="PLAINTEXT"`,
			`oauth_callback="http%3A%2F%2Fclient.example.net%2Fcb%3Fx%3D1"`,
			`oauth_signature="ja893SD9%26"`)},
		{"§2.3", []string{"--token", "hdk48Djdsa", "--token-secret", "xyz4992k83j47x0b", "--verifier", "473f82d3", "https://server.example.com/request_token"}, rfcHeader(
			`realm="Example"`,
			`oauth_consumer_key="jd83jd92dhsh93js"`,
			`oauth_token="hdk48Djdsa"`,
			`oauth_signature_method="PLAINTEXT"`,
			`oauth_verifier="473f82d3"`,
			`oauth_signature="ja893SD9%26xyz4992k83j47x0b"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, env, "", append(slices.Clone(bare), tt.args...)...)
			got, ok := strings.CutPrefix(strings.TrimSuffix(r.stdout, "\n"), "Authorization: ")
			if r.code != 0 || r.stderr != "" || !ok {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			gotRealm, gotItems := authItems(t, got)
			wantRealm, wantItems := authItems(t, tt.want)
			if gotRealm != wantRealm || !slices.Equal(gotItems, wantItems) {
				t.Errorf("Authorization: %s\nwant the parameters of RFC 5849 %s: %s", got, tt.name, tt.want)
			}
			if !strings.HasPrefix(got, "OAuth "+wantRealm+", ") {
				t.Errorf("Authorization: %s\nwant the realm first", got)
			}
		})
	}

	// Batch mode says the same with no_nonce and no_timestamp.
	line := `{"http_method":"POST","url":"https://server.example.com/request_temp_credentials","signature_method":"PLAINTEXT","no_nonce":true,"no_timestamp":true,"version":false,"realm":"Example","callback":"http://client.example.net/cb?x=1"}`
	r := runCmd(t, env, line+"\n", "sign", "--json", "--show-secrets")
	var res sign.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("sign --json: exit %d, %v, stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	gotRealm, gotItems := authItems(t, res.Authorization)
	wantRealm, wantItems := authItems(t, tests[0].want)
	if gotRealm != wantRealm || !slices.Equal(gotItems, wantItems) {
		t.Errorf("sign --json: authorization %s\nwant the parameters of RFC 5849 §2.1: %s", res.Authorization, tests[0].want)
	}
	wantBase := "POST&https%3A%2F%2Fserver.example.com%2Frequest_temp_credentials&" +
		"oauth_callback%3Dhttp%253A%252F%252Fclient.example.net%252Fcb%253Fx%253D1%26oauth_consumer_key%3Djd83jd92dhsh93js%26oauth_signature_method%3DPLAINTEXT"
	if res.BaseString != wantBase {
		t.Errorf("sign --json: base string\n%s\nwant\n%s", res.BaseString, wantBase)
	}
}

// TestSignNoNonceTimestampRefused checks that --no-nonce and --no-timestamp
// are refused where the library would sign something else than asked.
func TestSignNoNonceTimestampRefused(t *testing.T) {
	u := "https://server.example.com/request_token"
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--signature-method", "PLAINTEXT", "--no-nonce"}, "--no-nonce and --no-timestamp (no_nonce, no_timestamp) go together"},
		{[]string{"--signature-method", "PLAINTEXT", "--no-timestamp"}, "--no-nonce and --no-timestamp (no_nonce, no_timestamp) go together"},
		{[]string{"--no-nonce", "--no-timestamp"}, "--no-nonce and --no-timestamp need PLAINTEXT: HMAC-SHA1 signs oauth_nonce and oauth_timestamp"},
		{[]string{"--signature-method", "HMAC-SHA256", "--no-nonce", "--no-timestamp"}, "need PLAINTEXT: HMAC-SHA256 signs"},
		{[]string{"--signature-method", "PLAINTEXT", "--no-nonce", "--no-timestamp", "--nonce", "n"}, "leave out the nonce and timestamp that --nonce or --timestamp gives"},
		{[]string{"--signature-method", "PLAINTEXT", "--no-nonce", "--no-timestamp", "--timestamp", "1"}, "leave out the nonce and timestamp that --nonce or --timestamp gives"},
	}
	for _, tt := range tests {
		r := runCmd(t, xEnv, "", append(append([]string{"sign"}, tt.args...), u)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("oauth1 sign %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestSignHeaderParam checks that --header-param sends a parameter that is
// not oauth_* in the Authorization header and signs it, as RFC 5849
// §3.4.1.3.1 says of every parameter of the header but realm: the signature
// is computed here from a base string written out by hand.
func TestSignHeaderParam(t *testing.T) {
	env := map[string]string{"OAUTH1_CONSUMER_KEY": "ck", "OAUTH1_CONSUMER_SECRET": "cs", "OAUTH1_TOKEN": "tk", "OAUTH1_TOKEN_SECRET": "ts"}
	base := "POST&https%3A%2F%2F123456.restlets.api.netsuite.com%2Frest%2Faccesstoken&" +
		"oauth_consumer_key%3Dck%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dtk%26" +
		"oauth_verifier%3Dv%26oauth_version%3D1.0%26role%3D3%26x%2520y%3Da%2520b"
	mac := hmac.New(sha1.New, []byte("cs&ts"))
	mac.Write([]byte(base))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	sigEnc := strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(sig)
	want := `Authorization: OAuth realm="123456", oauth_consumer_key="ck", oauth_nonce="n", oauth_signature="` + sigEnc +
		`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1", oauth_token="tk", oauth_verifier="v", oauth_version="1.0", role="3", x%20y="a%20b"` + "\n"
	r := runCmd(t, env, "", "sign", "-X", "POST", "--realm", "123456", "--verifier", "v", "--header-param", "role=3", "--header-param", "x y=a b",
		"--nonce", "n", "--timestamp", "1", "https://123456.restlets.api.netsuite.com/rest/accesstoken")
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s\nstderr %q", r.code, r.stdout, want, r.stderr)
	}

	line := `{"url":"https://a.example/x","header_params":[["role","3"]],"nonce":"n","timestamp":1}`
	r = runCmd(t, env, line+"\n", "sign", "--json")
	var res sign.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("sign --json: exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
	if !strings.HasSuffix(res.BaseString, "%26role%3D3") || !strings.HasSuffix(res.Authorization, `, role="3"`) {
		t.Errorf("sign --json with header_params: base string %q, authorization %q; want role=3 in both", res.BaseString, res.Authorization)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--header-param", "role"}, `--header-param "role" is not name=value`},
		{[]string{"--header-param", "=3"}, `--header-param "=3" is not name=value`},
		{[]string{"--header-param", "role=3", "--query"}, "travel in the Authorization header; with query or body delivery"},
		{[]string{"--header-param", "role=3", "--body", "-d", "a=1"}, "travel in the Authorization header; with query or body delivery"},
		{[]string{"--header-param", "oauth_nonce=x"}, "header parameter oauth_nonce has a flag of its own: --nonce"},
		{[]string{"--header-param", "oauth_callback=x"}, "header parameter oauth_callback has a flag of its own: --callback"},
		{[]string{"--header-param", "realm=x"}, "header parameter realm has a flag of its own: --realm"},
		{[]string{"--header-param", "oauth_signature=x"}, "header parameter oauth_signature has a flag of its own: none"},
	} {
		r := runCmd(t, env, "", append(append([]string{"sign"}, tt.args...), "https://a.example/x")...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("oauth1 sign %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestMethodWords checks that "method" means one thing: --signature-method
// and signature_method the signature method, -X, --request and http_method
// the HTTP method; the former --method and "method" are refused with a
// hint, and an HTTP method that is no RFC 9110 token, or a signature
// method's name, is refused.
func TestMethodWords(t *testing.T) {
	u := "https://a.example/x"
	fixed := []string{"--nonce", "n", "--timestamp", "1"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "HMAC-SHA256"}, `oauth1 sign: --method was renamed --signature-method (the signature method: HMAC-SHA1, PLAINTEXT, ...); -X or --request sets the HTTP method; see "oauth1 sign -h"`},
		{[]string{"-method=POST"}, `oauth1 sign: --method was renamed --signature-method`},
		{[]string{"-X", "HMAC-MD5"}, `oauth1: HTTP method "HMAC-MD5" is a signature method's name: give the signature method with --signature-method`},
		{[]string{"--request", "plaintext"}, `HTTP method "plaintext" is a signature method's name`},
		{[]string{"-X", "RSA-SHA1"}, `HTTP method "RSA-SHA1" is a signature method's name`},
		{[]string{"-X", "GE T"}, `oauth1: HTTP method "GE T" is not a token (RFC 9110 §9.1`},
		{[]string{"-X", "POST\r\nX-Evil: 1"}, `HTTP method "POST\r\nX-Evil: 1" is not a token`},
		{[]string{"-X", "GÉT"}, `is not a token`},
		{[]string{"-X", "GET(1)"}, `is not a token`},
		{[]string{"--signature-method", "PUT"}, `that is an HTTP method: give it with -X PUT (http_method in batch mode)`},
	} {
		r := runCmd(t, xEnv, "", append(append(append([]string{"sign"}, tt.args...), fixed...), u)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("oauth1 sign %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
	// Any token is a method (RFC 9110 §9.1), extension methods included.
	for _, m := range []string{"PROPFIND", "M-SEARCH", "x!#$%&'*+.^_`|~"} {
		r := runCmd(t, xEnv, "", append(append([]string{"sign", "-X", m, "--explain"}, fixed...), u)...)
		if r.code != 0 || !strings.Contains(r.stdout, "Method:   "+strings.ToUpper(m)+"\n") {
			t.Errorf("oauth1 sign -X %q: exit %d, stderr %q; want it signed", m, r.code, r.stderr)
		}
	}

	in := `{"method":"HMAC-MD5","url":"https://a.example/x"}` + "\n" +
		`{"method":"POST","url":"https://a.example/x"}` + "\n" +
		`{"http_method":"HMAC-MD5","url":"https://a.example/x"}` + "\n" +
		`{"http_method":"GE T","url":"https://a.example/x"}` + "\n" +
		`{"http_method":"PUT","url":"https://a.example/x","signature_method":"HMAC-SHA256","nonce":"n","timestamp":1}` + "\n"
	r := runCmd(t, xEnv, in, "sign", "--json")
	if r.code != exitFailure {
		t.Errorf("sign --json: exit %d, want 1", r.code)
	}
	var res []sign.Result
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for dec.More() {
		var x sign.Result
		if err := dec.Decode(&x); err != nil {
			t.Fatal(err)
		}
		res = append(res, x)
	}
	wantErr := []string{
		`oauth1: field "method" was renamed "http_method" (the HTTP method); "signature_method" is the signature method`,
		`oauth1: field "method" was renamed "http_method" (the HTTP method); "signature_method" is the signature method`,
		`oauth1: HTTP method "HMAC-MD5" is a signature method's name`,
		`oauth1: HTTP method "GE T" is not a token`,
		``,
	}
	if len(res) != len(wantErr) {
		t.Fatalf("sign --json: %d results, want %d:\n%s", len(res), len(wantErr), r.stdout)
	}
	for i, w := range wantErr {
		if !strings.HasPrefix(res[i].Error, w) || (w == "") != (res[i].Error == "") {
			t.Errorf("line %d: error %q, want %q", i+1, res[i].Error, w)
		}
	}
	if !strings.HasPrefix(res[4].BaseString, "PUT&") || !strings.Contains(res[4].BaseString, "oauth_signature_method%3DHMAC-SHA256") {
		t.Errorf("line 5: base string %q, want PUT signed with HMAC-SHA256", res[4].BaseString)
	}
}

// TestSignSchemes checks that sign refuses a URL whose scheme is not http
// or https, which OAuth 1.0 does not sign, and takes either in any case.
func TestSignSchemes(t *testing.T) {
	for _, u := range []string{"ftp://a.example/x", "file://a.example/etc/passwd", "ws://a.example/x", "mailto://a.example"} {
		r := runCmd(t, xEnv, "", "sign", u)
		scheme, _, _ := strings.Cut(u, ":")
		want := "oauth1: URL scheme \"" + scheme + "\" is not http or https: OAuth 1.0 signs HTTP requests\n"
		if r.code != exitUsage || r.stdout != "" || r.stderr != want {
			t.Errorf("oauth1 sign %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", u, r.code, r.stdout, r.stderr, want)
		}
		r = runCmd(t, xEnv, `{"url":"`+u+`"}`+"\n", "sign", "--json")
		if r.code != exitFailure || !strings.Contains(r.stdout, `is not http or https`) {
			t.Errorf("oauth1 sign --json with url %s: exit %d, stdout %q; want exit 1 and the error", u, r.code, r.stdout)
		}
	}
	for _, u := range []string{"http://a.example/x", "HTTPS://a.example/x"} {
		if r := runCmd(t, xEnv, "", "sign", u); r.code != 0 {
			t.Errorf("oauth1 sign %s: exit %d, stderr %q; want it signed", u, r.code, r.stderr)
		}
	}
}

// TestHelpCommand checks that "oauth1 help COMMAND" prints what "oauth1
// COMMAND -h" prints, and that "oauth1 version -h" prints the usage of
// version, not an error.
func TestHelpCommand(t *testing.T) {
	for _, name := range []string{"sign", "explain", "diff", "verify", "version"} {
		want := runCmd(t, nil, "", name, "-h")
		got := runCmd(t, nil, "", "help", name)
		if got != want || got.code != 0 || !strings.HasPrefix(got.stdout, "usage: oauth1 "+name) {
			t.Errorf("oauth1 help %s = %+v\nwant oauth1 %s -h = %+v", name, got, name, want)
		}
	}
	for _, h := range []string{"-h", "--help"} {
		r := runCmd(t, nil, "", "version", h)
		if r.code != 0 || r.stdout != "usage: oauth1 version\n" || r.stderr != "" {
			t.Errorf("oauth1 version %s: exit %d, stdout %q, stderr %q; want exit 0 and \"usage: oauth1 version\"", h, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, nil, "", "help"); r.code != 0 || r.stdout != usage {
		t.Errorf("oauth1 help: exit %d, stdout %q; want the usage", r.code, r.stdout)
	}
	if r := runCmd(t, nil, "", "help", "-h"); r.code != 0 || r.stdout != usage {
		t.Errorf("oauth1 help -h: exit %d, stdout %q; want the usage", r.code, r.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "frobnicate"}, `oauth1: help: unknown command "frobnicate"; see "oauth1 -h"` + "\n"},
		{[]string{"help", "sign", "verify"}, `oauth1: help takes one command; "verify" is extra; see "oauth1 -h"` + "\n"},
		{[]string{"version", "--frobnicate"}, `oauth1 version: unknown flag -frobnicate; see "oauth1 version -h"` + "\n"},
	} {
		r := runCmd(t, nil, "", tt.args...)
		if r.code != exitUsage || r.stdout != "" || r.stderr != tt.want {
			t.Errorf("oauth1 %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}
