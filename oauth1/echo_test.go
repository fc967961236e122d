package oauth1

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/countersign/countersign/percent"
)

// Secrets that need escaping in every format, each starting and ending
// with a marker, so that a secret redacted in part still shows.
const (
	echoMarker         = "Zq9Xw"
	echoConsumerSecret = echoMarker + "/c s+1é" + echoMarker
	echoTokenSecret    = echoMarker + "&t=%2" + echoMarker
)

// echoFormats returns a provider's error pages that echo a refused
// PLAINTEXT request, whose oauth_signature is the two secrets
// percent-encoded and joined with "&", each built with the standard
// library's encoders. known marks the pages only a scrubber that knows
// the secrets can clean: the secrets appear there outside any parameter.
func echoFormats() []struct {
	name  string
	body  string
	known bool
} {
	sig := percent.Encode(echoConsumerSecret) + "&" + percent.Encode(echoTokenSecret)
	form := "oauth_consumer_key=ck&oauth_signature=" + percent.Encode(sig) + "&oauth_token=t"
	jsonOf := func(v any) string {
		b, err := json.Marshal(v) // escapes & < > as \u0026 \u003c \u003e
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	qe := url.QueryEscape
	b64 := base64.StdEncoding.EncodeToString
	return []struct {
		name  string
		body  string
		known bool
	}{
		{"header", `Authorization: OAuth oauth_consumer_key="ck", oauth_signature="` + percent.Encode(sig) + `", oauth_token="t"`, false},
		{"form", form, false},
		{"form decoded", "oauth_signature=" + sig + "&oauth_token=t", false},
		{"JSON \\u0026", jsonOf(map[string]string{"oauth_signature": sig, "n": "1"}), false},
		{"JSON \\u0026 of the header", jsonOf(map[string]string{"authorization": `OAuth oauth_signature="` + sig + `", oauth_token="t"`}), false},
		{"JSON \\u0025", strings.ReplaceAll(jsonOf(map[string]string{"oauth_signature": percent.Encode(sig)}), "%", `\u0025`), false},
		{"JSON in JSON", jsonOf(map[string]string{"log": jsonOf(map[string]string{"oauth_signature": sig})}), false},
		{"space-separated", "oauth_signature=" + percent.Encode(echoConsumerSecret) + " " + percent.Encode(echoTokenSecret) + "\nbye", false},
		{"space-separated pairs", "oauth_consumer_key=ck oauth_signature=" + sig + " oauth_token=t", false},
		{"encoded once", "debug=" + qe(form), false},
		{"encoded twice", "debug=" + qe(qe(form)), false},
		{"encoded three times", "debug=" + qe(qe(qe(form))), false},
		{"path-escaped", "debug=" + url.PathEscape(form), false},
		{"HTML &amp;", "<tr><td>oauth_signature</td><td>" + html.EscapeString(sig) + "</td></tr>", false},
		{"HTML &#38;", "<td>oauth_signature</td><td>" + strings.ReplaceAll(sig, "&", "&#38;") + "</td>", false},
		{"XML", "<oauth_signature>" + html.EscapeString(sig) + "</oauth_signature>", false},
		{"query in a URL", "GET /at?oauth_signature=" + percent.Encode(sig) + "&x=1 HTTP/1.1", false},
		// Secrets outside any parameter.
		{"secrets in prose", "secrets were " + echoConsumerSecret + " and " + echoTokenSecret, true},
		{"secrets + for space", "x=" + qe(echoConsumerSecret) + "&y=" + qe(qe(echoTokenSecret)), true},
		{"secrets in JSON", jsonOf([]string{echoConsumerSecret, echoTokenSecret}), true},
		{"secrets in HTML", "<p>" + html.EscapeString(echoConsumerSecret+" "+echoTokenSecret) + "</p>", true},
		{"secrets in Python's JSON", strings.ReplaceAll(jsonOf([]string{echoConsumerSecret, echoTokenSecret}), "é", `\u00e9`), true},
		{"secrets in HTML numeric entities", "<p>" + strings.ReplaceAll(strings.ReplaceAll(echoConsumerSecret+" "+echoTokenSecret, "é", "&#233;"), "&t", "&#x26;t") + "</p>", true},
		{"signature in Python's JSON", strings.ReplaceAll(jsonOf(map[string]string{"oauth_signature": sig}), "é", `\u00e9`), false},
		{"secrets in hex", "dump: " + strings.ToUpper(hex.EncodeToString([]byte(echoConsumerSecret))) + " " + hex.EncodeToString([]byte(echoTokenSecret)), true},
		{"secrets in base64", "Authorization: Basic " + b64([]byte("ck:"+echoConsumerSecret)) + "\nX-Debug: " + b64([]byte("a"+echoTokenSecret+"b")), true},
	}
}

// TestScrubEchoFormats checks that no echo format leaks a secret of a
// PLAINTEXT request: with the secrets known (requests a Transport or the
// flow signed) and, for the formats that name oauth_signature, unknown
// (a request signed with Config.Sign). Before, a JSON "\u0026", a space
// for the "&" and a triple encoding leaked the token secret.
func TestScrubEchoFormats(t *testing.T) {
	// The secrets in base64 at the alignment the page uses, apart from
	// the marker, which base64 hides.
	b64 := base64.StdEncoding.EncodeToString
	leaks := []string{echoMarker, hex.EncodeToString([]byte(echoMarker)), strings.ToUpper(hex.EncodeToString([]byte(echoMarker))), b64([]byte("ck:" + echoConsumerSecret))[4:20], b64([]byte("a" + echoTokenSecret + "b"))[4:20]}
	for _, tt := range echoFormats() {
		for _, known := range []bool{true, false} {
			if tt.known && !known {
				continue
			}
			var secrets []string
			if known {
				secrets = []string{echoConsumerSecret, echoTokenSecret}
			}
			got := string(scrubEcho([]byte(tt.body), secrets...))
			for _, l := range leaks {
				if strings.Contains(got, l) {
					t.Errorf("%s (secrets known: %v): scrubEcho(%q) = %q, which holds %q", tt.name, known, tt.body, got, l)
				}
			}
			if !strings.Contains(got, "REDACTED") {
				t.Errorf("%s: scrubEcho(%q) = %q redacts nothing", tt.name, tt.body, got)
			}
		}
	}
}

// TestResponseErrorScrubsEveryField checks that every field of a
// ResponseError, read from a body or from a WWW-Authenticate challenge,
// is scrubbed, with the secrets known (a Transport signed the request) and
// unknown. Before, ParamsAbsent and ParamsRejected were not scrubbed (and
// a list split at the "&" of a PLAINTEXT signature escaped the value's
// end), nor was anything read from a challenge.
func TestResponseErrorScrubsEveryField(t *testing.T) {
	sig := percent.Encode(echoConsumerSecret) + "&" + percent.Encode(echoTokenSecret)
	qe := url.QueryEscape
	for _, tt := range []struct {
		name, header, body string
		known              bool // only a scrubber that knows the secrets can clean it
	}{
		{"rejected list", "", "oauth_problem=parameter_rejected&oauth_parameters_rejected=" + qe("oauth_signature="+sig), false},
		{"absent list", "", "oauth_problem=parameter_absent&oauth_parameters_absent=" + qe("oauth_verifier&oauth_signature="+sig), false},
		{"problem", "", "oauth_problem=" + qe("oauth_signature="+sig), false},
		{"challenge advice", `OAuth realm="r", oauth_problem="signature_invalid", oauth_problem_advice="` + percent.Encode("got oauth_signature="+sig) + `"`, "", false},
		{"challenge lists", `OAuth oauth_problem="parameter_rejected", oauth_parameters_rejected="` + percent.Encode("oauth_signature="+sig) + `", oauth_parameters_absent="` + percent.Encode("oauth_token_secret="+percent.Encode(echoTokenSecret)) + `"`, "", false},
		{"challenge problem", `OAuth oauth_problem="` + percent.Encode("oauth_signature: "+sig) + `"`, "", false},
		{"secrets in the lists", "", "oauth_problem=parameter_rejected&oauth_parameters_rejected=" + qe(echoConsumerSecret+"&"+echoTokenSecret) + "&oauth_parameters_absent=" + qe(qe(echoTokenSecret)), true},
		{"secrets in the challenge", `OAuth oauth_problem="parameter_rejected", oauth_parameters_rejected="` + percent.Encode(echoTokenSecret) + `", oauth_problem_advice="` + percent.Encode(echoConsumerSecret) + `"`, "", true},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tt.header != "" {
				w.Header().Set("WWW-Authenticate", tt.header)
			}
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, tt.body)
		}))
		cfg := &Config{ConsumerKey: "ck", ConsumerSecret: echoConsumerSecret, Signer: Plaintext{}, AllowInsecurePlaintext: true}
		for _, known := range []bool{true, false} {
			if tt.known && !known {
				continue
			}
			var resp *http.Response
			var err error
			if known {
				resp, err = cfg.Client(&Credentials{Token: "t", Secret: echoTokenSecret}).Get(srv.URL + "/r")
			} else {
				resp, err = http.Get(srv.URL + "/r")
			}
			if err != nil {
				t.Fatal(err)
			}
			cerr := CheckResponse(resp)
			resp.Body.Close()
			re, ok := cerr.(*ResponseError)
			if !ok {
				t.Fatalf("%s: CheckResponse = %v", tt.name, cerr)
			}
			got := fmt.Sprintf("%+v %q %q %q %s", re.ProblemReport, re.Body, re.BaseString, re.Advice, re.Error())
			if strings.Contains(got, echoMarker) {
				t.Errorf("%s (secrets known: %v): the ResponseError holds a secret: %s", tt.name, known, got)
			}
			if !strings.Contains(got, "REDACTED") {
				t.Errorf("%s (secrets known: %v): nothing redacted: %s", tt.name, known, got)
			}
		}
		srv.Close()
	}
}

// BenchmarkScrubEcho scrubs the largest body CheckResponse reads, an echo
// of a form that names oauth_signature once every 64 bytes.
func BenchmarkScrubEcho(b *testing.B) {
	body := []byte(strings.Repeat("a=1&oauth_signature=abc%26def&x=0123456789abcdefghijklmnopqrstuv\n", 1024)[:maxResponseBytes])
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		scrubEcho(body, echoConsumerSecret, echoTokenSecret)
	}
}

// FuzzScrubEcho checks that scrubEcho never panics and that a secret never
// survives it as it is, nor percent-encoded; and that scrubCut redacts a
// text cut inside a secret.
func FuzzScrubEcho(f *testing.F) {
	for _, tt := range echoFormats() {
		f.Add(tt.body, echoTokenSecret)
	}
	f.Add(`{"oauth_signature":"a\u0026b"} %25%2 \u00 &#x; &#99999999;`, "b%2")
	f.Fuzz(func(t *testing.T, body, secret string) {
		// REDACTED's letters and the text around it could spell a secret
		// that holds them.
		if len(secret) < 4 || strings.ContainsAny(strings.ToUpper(secret), "REDACT") {
			scrubEcho([]byte(body), secret)
			scrubCut([]byte(body), secret)
			return
		}
		got := string(scrubEcho([]byte(body), secret))
		for _, form := range []string{secret, percent.Encode(secret), url.QueryEscape(secret), percent.Encode(percent.Encode(secret))} {
			if strings.Contains(asciiLower(got), asciiLower(form)) {
				t.Fatalf("scrubEcho(%q, %q) = %q holds %q", body, secret, got, form)
			}
		}
		// A text cut inside the secret, as it is or percent-encoded,
		// ends redacted.
		for _, form := range []string{secret, percent.Encode(secret)} {
			cut := body + form[:len(form)/2]
			if got := string(scrubCut([]byte(cut), secret)); !strings.HasSuffix(got, "REDACTED") {
				t.Fatalf("scrubCut(%q, %q) = %q, want it to end with REDACTED", cut, secret, got)
			}
		}
	})
}

// asciiLower lowers ASCII letters only, so that percent-encodings compare
// without regard to the case of their hex digits; strings.ToLower would
// turn every invalid UTF-8 byte into U+FFFD, making unequal texts equal.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
