package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// TestDemo runs the demo, as CI does, and checks that the grade reached the
// LMS.
func TestDemo(t *testing.T) {
	var out strings.Builder
	res, err := runDemo(&out)
	if err != nil {
		t.Fatalf("runDemo: %v\n%s", err, out.String())
	}
	if g, ok := res.lms.grade(res.sourcedID); !ok || g != 0.92 {
		t.Errorf("LMS grade for %s = %v, %v; want 0.92", res.sourcedID, g, ok)
	}
	for _, want := range []string{
		"tool:    launch verified: consumer=lms.example.edu user_id=learner-0ae836b9 roles=Learner resource_link_id=quiz-7",
		"signature and oauth_body_hash verified",
		"tool:    replaceResult 0.92 -> LMS: success",
		"replayed launch -> 401 oauth_problem=nonce_used",
		"roles=Instructor -> 401 oauth_problem=signature_invalid",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}

// The launch of the vector below, signed by Python's oauthlib 3.2.2 (an
// independent implementation) with:
//
//	from oauthlib.oauth1 import Client, SIGNATURE_HMAC, SIGNATURE_TYPE_BODY
//	c = Client("12345", client_secret="secret", signature_method=SIGNATURE_HMAC,
//	           signature_type=SIGNATURE_TYPE_BODY, callback_uri="about:blank",
//	           timestamp="1700000000", nonce="c8350c0e47782d16d2fa48b2090c1d8f")
//	uri, headers, body = c.sign("https://tool.example.com/lti/launch", http_method="POST",
//	    body=launchParams, headers={"Content-Type": "application/x-www-form-urlencoded"})
//
// with launchParams the list of pairs below, in order.
var launchParams = [][2]string{
	{"lti_message_type", "basic-lti-launch-request"},
	{"lti_version", "LTI-1p0"},
	{"resource_link_id", "88391-e1919-bb3456"},
	{"resource_link_title", "Weekly Blog"},
	{"user_id", "0ae836b9-7fc9-4060-006f-27b2066ac545"},
	{"roles", "Learner"},
	{"lis_person_name_full", "Jane Q. Public"},
	{"context_id", "8213060-006f-27b2066ac545"},
	{"context_title", "Design of Personal Environments"},
	{"lis_outcome_service_url", "https://lms.example.com/lti/outcomes"},
	{"lis_result_sourcedid", "feb-123-456-2929::28883"},
	{"launch_presentation_return_url", "https://lms.example.com/courses/42?tab=grades&x=a b"},
	{"tool_consumer_instance_guid", "lms.example.com"},
}

const (
	oauthlibLaunchSignature = "1mSvvATEWOqMOURoo+F79qCxSEs="
	oauthlibLaunchBody      = "lti_message_type=basic-lti-launch-request&lti_version=LTI-1p0&resource_link_id=88391-e1919-bb3456&resource_link_title=Weekly+Blog&user_id=0ae836b9-7fc9-4060-006f-27b2066ac545&roles=Learner&lis_person_name_full=Jane+Q.+Public&context_id=8213060-006f-27b2066ac545&context_title=Design+of+Personal+Environments&lis_outcome_service_url=https%3A%2F%2Flms.example.com%2Flti%2Foutcomes&lis_result_sourcedid=feb-123-456-2929%3A%3A28883&launch_presentation_return_url=https%3A%2F%2Flms.example.com%2Fcourses%2F42%3Ftab%3Dgrades%26x%3Da+b&tool_consumer_instance_guid=lms.example.com&oauth_nonce=c8350c0e47782d16d2fa48b2090c1d8f&oauth_timestamp=1700000000&oauth_version=1.0&oauth_signature_method=HMAC-SHA1&oauth_consumer_key=12345&oauth_callback=about%3Ablank&oauth_signature=1mSvvATEWOqMOURoo%2BF79qCxSEs%3D"
	vectorLaunchTime        = 1700000000
)

func vectorTool(logw io.Writer) *tool {
	t := newTool(map[string]consumer{"12345": {Secret: "secret", OutcomeHost: "lms.example.com"}}, logw)
	t.verifier.Now = func() time.Time { return time.Unix(vectorLaunchTime+30, 0) }
	return t
}

// TestLaunchVector checks the launch signature both ways against oauthlib:
// an LMS signing with this library produces oauthlib's signature, and the
// tool accepts oauthlib's launch and reads its parameters.
func TestLaunchVector(t *testing.T) {
	form := url.Values{}
	for _, p := range launchParams {
		form.Add(p[0], p[1])
	}
	r := httptest.NewRequest("POST", "https://tool.example.com/lti/launch", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	lmsConfig := &oauth1.Config{ConsumerKey: "12345", ConsumerSecret: "secret", Delivery: oauth1.FormBody}
	if err := lmsConfig.SignAt(r, nil, time.Unix(vectorLaunchTime, 0), "c8350c0e47782d16d2fa48b2090c1d8f",
		oauth1.Param{Name: "oauth_callback", Value: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	signed, err := url.ParseQuery(string(body))
	if err != nil {
		t.Fatal(err)
	}
	if got := signed.Get("oauth_signature"); got != oauthlibLaunchSignature {
		t.Errorf("launch oauth_signature = %q, want oauthlib's %q", got, oauthlibLaunchSignature)
	}

	var log strings.Builder
	tl := vectorTool(&log)
	r = httptest.NewRequest("POST", "https://tool.example.com/lti/launch", strings.NewReader(oauthlibLaunchBody))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	tl.launch(rec, r)
	if rec.Code != http.StatusOK {
		t.Fatalf("oauthlib launch: %d %s\n%s", rec.Code, rec.Body, log.String())
	}
	if !strings.Contains(rec.Body.String(), "Hello Jane Q. Public (Learner)") {
		t.Errorf("launch page:\n%s", rec.Body)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	want := launch{
		ConsumerKey: "12345", UserID: "0ae836b9-7fc9-4060-006f-27b2066ac545", Name: "Jane Q. Public",
		Roles: "Learner", ResourceLinkID: "88391-e1919-bb3456",
		OutcomeURL: "https://lms.example.com/lti/outcomes", SourcedID: "feb-123-456-2929::28883",
	}
	if len(tl.sessions) != 1 {
		t.Fatalf("%d sessions after one launch", len(tl.sessions))
	}
	for _, got := range tl.sessions {
		if got != want {
			t.Errorf("launch read as %+v, want %+v", got, want)
		}
	}
}

// The replaceResult request below, signed with oauthlib 3.2.2's signature
// functions (oauthlib's Client does not compute oauth_body_hash):
//
//	bh = base64.b64encode(hashlib.sha1(body).digest()).decode()
//	params = [("oauth_consumer_key", "12345"), ("oauth_nonce", "d41d8cd98f00b204"),
//	          ("oauth_signature_method", "HMAC-SHA1"), ("oauth_timestamp", "1700000100"),
//	          ("oauth_version", "1.0"), ("oauth_body_hash", bh)]
//	base = signature.signature_base_string("POST",
//	    signature.base_string_uri("https://lms.example.com/lti/outcomes"),
//	    signature.normalize_parameters(params))
//	signature.sign_hmac_sha1(base, "secret", "")
//
// with body the 767 bytes replaceResultXML("1700000000000",
// "feb-123-456-2929::28883", 0.92) returns (sha1sum 7e2db4e3853d…).
const (
	oauthlibOutcomeBodyHash  = "fi2044U9nyiGy0Ym0DPyhgdgTRI="
	oauthlibOutcomeSignature = "LXlYN/4h5oOnFC8orr8Xo6FGJWI="
)

// TestOutcomeVector checks the replaceResult request the tool signs, with
// oauth_body_hash, against oauthlib.
func TestOutcomeVector(t *testing.T) {
	tl := vectorTool(io.Discard)
	l := launch{ConsumerKey: "12345", OutcomeURL: "https://lms.example.com/lti/outcomes", SourcedID: "feb-123-456-2929::28883"}
	r, err := outcomeRequest(context.Background(), l, "1700000000000", 0.92)
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.outcomeConfig("12345").SignAt(r, nil, time.Unix(1700000100, 0), "d41d8cd98f00b204"); err != nil {
		t.Fatal(err)
	}
	ps, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.Name] = p.Value
	}
	if got["oauth_body_hash"] != oauthlibOutcomeBodyHash || got["oauth_signature"] != oauthlibOutcomeSignature {
		t.Errorf("replaceResult oauth_body_hash, oauth_signature = %q, %q; want oauthlib's %q, %q",
			got["oauth_body_hash"], got["oauth_signature"], oauthlibOutcomeBodyHash, oauthlibOutcomeSignature)
	}
	if _, ok := got["oauth_token"]; ok {
		t.Errorf("replaceResult carries oauth_token")
	}
}

// TestOutcomeRefusals checks that the LMS's outcome service takes no grade
// from a request whose body changed after signing, or for an unknown
// result, and that the tool sends grades nowhere but the consumer's host.
func TestOutcomeRefusals(t *testing.T) {
	const key, secret = "lms.example.edu", "s3cret"
	l := newLMS(key, secret, io.Discard)
	srv := httptest.NewServer(l)
	defer srv.Close()
	tl := newTool(map[string]consumer{key: {Secret: secret, OutcomeHost: strings.TrimPrefix(srv.URL, "http://")}}, io.Discard)
	l.results["known"] = "learner"

	send := func(sourcedID string, tamper func([]byte) []byte) (*http.Response, string) {
		t.Helper()
		r, err := outcomeRequest(context.Background(), launch{ConsumerKey: key, OutcomeURL: srv.URL + "/lti/outcomes", SourcedID: sourcedID}, "1", 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if err := tl.outcomeConfig(key).Sign(r, nil); err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r.Body)
		body = tamper(body)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	same := func(b []byte) []byte { return b }

	resp, body := send("known", func(b []byte) []byte { return bytes.Replace(b, []byte(">0.5<"), []byte(">1.0<"), 1) })
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "body_hash_invalid") {
		t.Errorf("tampered body: %d %s, want 401 body_hash_invalid", resp.StatusCode, body)
	}
	if g, ok := l.grade("known"); ok {
		t.Errorf("tampered body recorded grade %v", g)
	}
	resp, body = send("unknown", same)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<imsx_codeMajor>failure</imsx_codeMajor>") {
		t.Errorf("unknown sourcedId: %d %s, want a failure envelope", resp.StatusCode, body)
	}
	resp, body = send("known", same)
	if g, ok := l.grade("known"); resp.StatusCode != http.StatusOK || !ok || g != 0.5 {
		t.Errorf("genuine request: %d %s; grade %v, %v; want 0.5", resp.StatusCode, body, g, ok)
	}

	if err := tl.checkOutcomeURL(key, "http://169.254.169.254/latest/meta-data"); err == nil {
		t.Errorf("checkOutcomeURL accepted another host")
	}
	if err := tl.checkOutcomeURL("other-consumer", srv.URL+"/lti/outcomes"); err == nil {
		t.Errorf("checkOutcomeURL accepted the host of another consumer")
	}
}

// TestServerTimeouts checks that the tool's server bounds how long a
// client may take to send its request and how long an idle connection
// stays open, and leaves a handler time to send a grade (10 s).
func TestServerTimeouts(t *testing.T) {
	srv := newServer("127.0.0.1:0", http.NotFoundHandler())
	for name, d := range map[string]time.Duration{
		"ReadHeaderTimeout": srv.ReadHeaderTimeout, "ReadTimeout": srv.ReadTimeout,
		"WriteTimeout": srv.WriteTimeout, "IdleTimeout": srv.IdleTimeout,
	} {
		if d <= 0 {
			t.Errorf("%s is not set", name)
		}
	}
	if srv.WriteTimeout <= 10*time.Second {
		t.Errorf("WriteTimeout %v leaves no room for sending a grade (10 s)", srv.WriteTimeout)
	}
}
