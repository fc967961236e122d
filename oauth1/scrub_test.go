package oauth1

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/countersign/countersign/percent"
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
		{"a=1&oauth_signature_method=PLAINTEXT", "a=1&oauth_signature_method=PLAINTEXT"},
		{"<oauth_signature>abc=</oauth_signature>\n<a>b</a>", "<oauth_signature>REDACTED</oauth_signature>\n<a>b</a>"},
		{`{"oauth_signature": null, "n": 1}`, `{"oauth_signature": REDACTED, "n": 1}`},
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

// A provider that echoes a refused PLAINTEXT request shows the signature,
// percent(consumer secret) "&" percent(token secret), in whatever format its
// error page uses. CheckResponse knows neither secret, and must scrub the
// whole value, not stop at the "&" or "%26" in its middle.
func TestCheckResponseScrubsPlaintextSignature(t *testing.T) {
	const cs, ts = "CONSUMERSECRET", "TOKENSECRET"
	for _, body := range []string{
		// The Authorization header, as sent and as a JSON string.
		`OAuth oauth_consumer_key="k", oauth_signature="CONSUMERSECRET%26TOKENSECRET", oauth_signature_method="PLAINTEXT"`,
		`{"authorization": "OAuth oauth_signature=\"CONSUMERSECRET%26TOKENSECRET\", oauth_version=\"1.0\""}`,
		"Authorization: OAuth oauth_signature='CONSUMERSECRET%26TOKENSECRET'\r\n",
		// A form, as sent, decoded, and encoded inside another.
		"oauth_problem=signature_invalid&oauth_signature=CONSUMERSECRET%26TOKENSECRET&oauth_token=t",
		"oauth_problem=signature_invalid&oauth_signature=CONSUMERSECRET&TOKENSECRET&oauth_token=t",
		"oauth_problem=signature_invalid&oauth_signature=CONSUMERSECRET&TOKENSECRET",
		"oauth_problem=signature_invalid&oauth_signature=CONSUMERSECRET%26TOKENSECRET",
		"debug=POST%20%2Frt%3Foauth_signature%3DCONSUMERSECRET%2526TOKENSECRET%26oauth_token%3Dt",
		"debug=POST%20%2Frt%3Foauth_signature%3DCONSUMERSECRET%26TOKENSECRET%26oauth_token%3Dt",
		// JSON, encoded and decoded.
		`{"error": "signature_invalid", "oauth_signature": "CONSUMERSECRET%26TOKENSECRET", "n": 1}`,
		`{"error": "signature_invalid", "params": {"oauth_signature":"CONSUMERSECRET&TOKENSECRET"}}`,
		// An HTML table and a definition list.
		"<table><tr><td>oauth_signature</td><td>CONSUMERSECRET%26TOKENSECRET</td></tr></table>",
		"<tr><th>oauth_signature</th>\n  <td>CONSUMERSECRET&amp;TOKENSECRET</td></tr>",
		"<dl><dt>oauth_signature</dt><dd>CONSUMERSECRET&TOKENSECRET</dd></dl>",
		// Plain text.
		"refused: oauth_signature: CONSUMERSECRET&TOKENSECRET\nbye",
	} {
		resp := &http.Response{StatusCode: 401, Body: io.NopCloser(strings.NewReader(body))}
		err := CheckResponse(resp)
		re, ok := err.(*ResponseError)
		if !ok {
			t.Fatalf("CheckResponse(%q) = %v", body, err)
		}
		got := string(re.Body) + " " + re.Error()
		for _, s := range []string{cs, ts} {
			if strings.Contains(got, s) {
				t.Errorf("CheckResponse(%q): Body %q holds %s", body, re.Body, s)
			}
		}
		if !strings.Contains(string(re.Body), "REDACTED") {
			t.Errorf("CheckResponse(%q): Body %q redacts nothing", body, re.Body)
		}
		// What is after the signature survives.
		for _, after := range []string{"oauth_token", "oauth_version", "oauth_signature_method", "</td></tr>", `"n": 1`, "bye"} {
			if strings.Contains(body, after) && !strings.Contains(string(re.Body), after) {
				t.Errorf("CheckResponse(%q): Body %q lost %q", body, re.Body, after)
			}
		}
	}
}

// A page that writes the "&" of a PLAINTEXT signature with spaces around it
// (or on one side) still shows the whole signature: the word after the
// "&" is the token secret, and CheckResponse, which does not know it for a
// response it did not sign, must scrub it with the rest.
func TestCheckResponseScrubsSpacedPlaintextSignature(t *testing.T) {
	const cs, ts = "CONSUMERSECRET", "TOKENSECRET"
	for _, echo := range []string{
		"oauth_signature CONSUMERSECRET & TOKENSECRET",
		"oauth_signature: CONSUMERSECRET & TOKENSECRET",
		"oauth_signature=CONSUMERSECRET & TOKENSECRET",
		"oauth_signature CONSUMERSECRET &TOKENSECRET",
		"oauth_signature CONSUMERSECRET& TOKENSECRET",
		"oauth_signature CONSUMERSECRET\t&\tTOKENSECRET",
		"oauth_signature CONSUMERSECRET %26 TOKENSECRET",
	} {
		for _, body := range []string{
			"refused: " + echo + "\nbye",
			"oauth_problem=signature_invalid&oauth_problem_advice=" + url.QueryEscape(echo+", bye"),
		} {
			resp := &http.Response{StatusCode: 401, Body: io.NopCloser(strings.NewReader(body))}
			re, ok := CheckResponse(resp).(*ResponseError)
			if !ok {
				t.Fatalf("CheckResponse(%q) is not a *ResponseError", body)
			}
			got := string(re.Body) + " " + re.Advice + " " + re.Error()
			for _, s := range []string{cs, ts} {
				if strings.Contains(got, s) {
					t.Errorf("CheckResponse(%q): Body %q, Advice %q hold %s", body, re.Body, re.Advice, s)
				}
			}
			if !strings.Contains(got, "bye") {
				t.Errorf("CheckResponse(%q): Body %q, Advice %q lost what follows the signature", body, re.Body, re.Advice)
			}
		}
	}
}

// A body longer than the 64 KiB CheckResponse reads is cut, and a secret
// the provider echoed at the cut is cut with it: the start of the secret
// that is left, in any spelling an echo uses, must not reach Advice.
func TestCheckResponseScrubsSecretCutAtLimit(t *testing.T) {
	const cs = "consumer-secret-0123456789"
	const ts = "token&secret/+~ 0123456789"
	const head = "oauth_problem=signature_invalid&oauth_problem_advice="
	long := os.Getenv("COUNTERSIGN_LONG_TESTS") == "1"
	for _, tt := range []struct{ name, spelled string }{
		{"as it is", ts},
		{"percent-encoded", percent.Encode(ts)},
		{"encoded twice", percent.Encode(percent.Encode(ts))},
		{"JSON escapes", strings.ReplaceAll(ts, "&", `\u0026`)},
		{"HTML entities", strings.ReplaceAll(ts, "&", "&amp;")},
		{"consumer secret", cs},
	} {
		// The advice is form-encoded in the body, byte by byte.
		enc := url.QueryEscape(tt.spelled)
		for keep := 1; keep < len(enc); keep++ {
			// Each cut scrubs 64 KiB: by default the cuts in the first
			// 12 bytes, where every spelling has its first escape, and
			// the last; all of them with COUNTERSIGN_LONG_TESTS=1.
			if !long && keep > 12 && keep < len(enc)-1 {
				continue
			}
			pad := strings.Repeat("x", maxResponseBytes-len(head)-keep)
			body := head + pad + enc + "+and+more"
			resp := &http.Response{StatusCode: 400, Body: io.NopCloser(strings.NewReader(body))}
			rec := &sentRecord{c: &Config{ConsumerSecret: cs}, tok: &Credentials{Token: "t", Secret: ts}}
			resp.Request = httptest.NewRequestWithContext(withSent(context.Background(), rec), "GET", "https://api.example/", nil)
			re, ok := CheckResponse(resp).(*ResponseError)
			if !ok {
				t.Fatalf("%s, keep %d: not a *ResponseError", tt.name, keep)
			}
			// What is left of the secret after the padding is nothing
			// or REDACTED.
			if left := strings.TrimLeft(re.Advice, "x"); left != "" && left != "REDACTED" {
				t.Errorf("%s: cut after %q: Advice ends %q", tt.name, enc[:keep], left)
			}
		}
	}
}
