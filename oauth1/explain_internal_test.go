package oauth1

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/countersign/countersign/percent"
)

// TestSetBaseStringFailsClosed checks which base strings a ResponseError
// keeps: only a single, complete one from a signature_invalid answer, and
// none that holds a signature or a secret.
func TestSetBaseStringFailsClosed(t *testing.T) {
	const (
		cs = "consumer-secret-xyz"
		ts = "token-secret-xyz"
	)
	signed := "GET&https%3A%2F%2Fapi.example%2Fa&oauth_consumer_key%3Dk%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dt%26oauth_version%3D1.0"
	answer := func(base string) string {
		return "oauth_problem=signature_invalid&oauth_signature_base_string=" + percent.Encode(base)
	}
	tests := []struct {
		name, body string
		keep       bool
		want       string // in Error(), if kept
	}{
		{"the provider's", answer(strings.Replace(signed, "https", "http", 1)), true, "the client signed scheme https but the provider sees http"},
		{"equal", answer(signed), true, "the key or the signature's encoding differs"},
		{"not signature_invalid", "oauth_problem=nonce_used&oauth_signature_base_string=" + percent.Encode(signed), false, ""},
		{"twice", answer(signed) + "&oauth_signature_base_string=" + percent.Encode(signed), false, ""},
		{"malformed escape", "oauth_problem=signature_invalid&oauth_signature_base_string=GET%ZZ", false, ""},
		{"holds oauth_signature", answer(signed + "%26oauth_signature%3Dabc"), false, ""},
		{"holds oauth_token_secret", answer(signed + "%26oauth_token_secret%3Dabc"), false, ""},
		{"holds the consumer secret", answer(signed + "%26x%3D" + cs), false, ""},
		{"holds the token secret encoded", answer(signed + "%26x%3D" + url.QueryEscape(url.QueryEscape(ts))), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newResponseError(401, []byte(tt.body), cs, ts)
			e.setBaseString([]byte(tt.body), signed, cs, ts)
			if kept := e.BaseString != ""; kept != tt.keep {
				t.Fatalf("BaseString = %q; want kept %v", e.BaseString, tt.keep)
			}
			msg := e.Error()
			if tt.keep && !strings.Contains(msg, tt.want) || !tt.keep && strings.Contains(msg, "base string") {
				t.Errorf("Error() = %q; want %q", msg, tt.want)
			}
			for _, s := range []string{cs, ts} {
				if strings.Contains(msg, s) || strings.Contains(e.BaseString, s) {
					t.Errorf("%q leaks: %q, %q", s, msg, e.BaseString)
				}
			}
		})
	}
}

// TestDiagnoseSensitiveValue checks that the first difference is named
// without its cause, which may quote the value, when the parameter looks
// like a password.
func TestDiagnoseSensitiveValue(t *testing.T) {
	signed := "POST&https%3A%2F%2Fapi.example%2Fa&oauth_consumer_key%3Dk%26x_auth_password%3Dhunter2"
	provider := "POST&https%3A%2F%2Fapi.example%2Fa&oauth_consumer_key%3Dk%26x_auth_password%3Dhunter3"
	got := diagnose(provider, signed)
	if !strings.Contains(got, `"x_auth_password"`) || strings.Contains(got, "hunter") {
		t.Errorf("diagnose = %q; want the parameter named and its value left out", got)
	}
}

// TestCheckResponseTruncatedBaseString checks that a body CheckResponse
// could not read whole yields no base string, which would be cut short.
func TestCheckResponseTruncatedBaseString(t *testing.T) {
	body := "oauth_problem=signature_invalid&oauth_signature_base_string=GET%26http%253A%252F%252Fa%26" + strings.Repeat("x", maxResponseBytes)
	resp := &http.Response{StatusCode: 401, Header: http.Header{}, Body: http.NoBody}
	resp.Body = readCloser{strings.NewReader(body), http.NoBody}
	err := CheckResponse(resp)
	if e, ok := err.(*ResponseError); !ok || e.Problem != ProblemSignatureInvalid || e.BaseString != "" {
		t.Errorf("CheckResponse = %#v; want signature_invalid without a base string", err)
	}
}
