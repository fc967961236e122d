package oauth1_test

import (
	"context"
	"crypto"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

func TestCheckResponse(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name      string
		status    int
		header    http.Header
		body      string
		want      *oauth1.ResponseError // nil: CheckResponse returns nil
		wantError string
	}{
		{name: "200", status: 200, body: "oauth_problem=signature_invalid"},
		{name: "204 no body", status: 204},
		{name: "401 form body", status: 401,
			body: "oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1700000000%2D1700000600&oauth_problem_advice=check+your+clock",
			want: &oauth1.ResponseError{StatusCode: 401, ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemTimestampRefused, Advice: "check your clock",
				MinTimestamp: 1700000000, MaxTimestamp: 1700000600},
				Body: []byte("oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1700000000%2D1700000600&oauth_problem_advice=check+your+clock")},
			wantError: "oauth1: provider answered 401 Unauthorized: oauth_problem=timestamp_refused (acceptable 1700000000-1700000600) (check your clock)"},
		{name: "400 parameters absent", status: 400, body: "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_nonce%26oauth_timestamp",
			want: &oauth1.ResponseError{StatusCode: 400, ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemParameterAbsent, ParamsAbsent: []string{"oauth_nonce", "oauth_timestamp"}},
				Body: []byte("oauth_problem=parameter_absent&oauth_parameters_absent=oauth_nonce%26oauth_timestamp")},
			wantError: "oauth1: provider answered 400 Bad Request: oauth_problem=parameter_absent (oauth_nonce, oauth_timestamp)"},
		{name: "challenge", status: 401,
			header: http.Header{"Www-Authenticate": {`Basic realm="x"`, `OAuth realm="Photos", oauth_problem="token_expired", oauth_problem_advice="sign in again"`}},
			body:   `{"errors":[{"code":89,"message":"Invalid or expired token."}]}`,
			want: &oauth1.ResponseError{StatusCode: 401, ProblemReport: oauth1.ProblemReport{Problem: "token_expired", Advice: "sign in again"},
				Body: []byte(`{"errors":[{"code":89,"message":"Invalid or expired token."}]}`)}},
		{name: "body before challenge", status: 401,
			header: http.Header{"Www-Authenticate": {`OAuth oauth_problem="token_expired"`}},
			body:   "oauth_problem=signature_invalid",
			want:   &oauth1.ResponseError{StatusCode: 401, ProblemReport: oauth1.ProblemReport{Problem: oauth1.ProblemSignatureInvalid}, Body: []byte("oauth_problem=signature_invalid")}},
		{name: "no problem", status: 500, body: long,
			want: &oauth1.ResponseError{StatusCode: 500, Body: []byte(long[:1024])}},
		{name: "token secret kept out", status: 403, body: "oauth_token=a&oauth_token_secret=LEAK",
			want: &oauth1.ResponseError{StatusCode: 403}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tt.status, Header: tt.header, Body: io.NopCloser(strings.NewReader(tt.body))}
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			err := oauth1.CheckResponse(resp)
			if tt.want == nil {
				assert.NoError(t, err)
			} else {
				var re *oauth1.ResponseError
				require.ErrorAs(t, err, &re)
				assert.Equal(t, tt.want, re)
				if tt.wantError != "" {
					assert.EqualError(t, err, tt.wantError)
				}
			}
			// The body reads in full from its start, afterwards.
			body, rerr := io.ReadAll(resp.Body)
			require.NoError(t, rerr)
			assert.Equal(t, tt.body, string(body), "the body after CheckResponse")
			assert.NoError(t, resp.Body.Close())
		})
	}
}

func TestCheckResponseNil(t *testing.T) {
	assert.EqualError(t, oauth1.CheckResponse(nil), "oauth1: CheckResponse: nil response")
}

// CheckResponse reads what a real Verifier answers.
func TestCheckResponseFromVerifier(t *testing.T) {
	srv := oauth1test.NewServer(rfcClient.Token, rfcClient.Secret)
	defer srv.Close()
	now := time.Unix(1700000000, 0)
	srv.Provider.Now = func() time.Time { return now }
	tok := srv.IssueToken()

	// A clock ten minutes behind the provider's.
	cfg := &oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret, Now: func() time.Time { return now.Add(-10 * time.Minute) }}
	resp, err := cfg.Client(&tok).Get(srv.ResourceURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	var re *oauth1.ResponseError
	require.ErrorAs(t, oauth1.CheckResponse(resp), &re)
	assert.Equal(t, oauth1.ProblemTimestampRefused, re.Problem)
	assert.Equal(t, now.Add(-5*time.Minute).Unix(), re.MinTimestamp)
	assert.Equal(t, now.Add(5*time.Minute).Unix(), re.MaxTimestamp)

	// A wrong consumer secret.
	cfg = &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: "wrong", Now: srv.Provider.Now}
	resp, err = cfg.Client(&tok).Get(srv.ResourceURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.ErrorAs(t, oauth1.CheckResponse(resp), &re)
	assert.Equal(t, 401, re.StatusCode)
	assert.Equal(t, oauth1.ProblemSignatureInvalid, re.Problem)
}

// A refusal that server.Verifier writes reads back, through CheckResponse,
// into the same ProblemReport, field by field.
func TestProblemReportRoundTrip(t *testing.T) {
	for _, report := range []oauth1.ProblemReport{
		{Problem: oauth1.ProblemParameterAbsent, ParamsAbsent: []string{"oauth_nonce", "oauth_timestamp"}},
		{Problem: oauth1.ProblemParameterRejected, ParamsRejected: []string{"oauth_callback"}, Advice: "register https://a.example/cb & try again: 100% sure"},
		{Problem: oauth1.ProblemTimestampRefused, MinTimestamp: 1700000000, MaxTimestamp: 1700000600, Advice: "check the clock"},
		{Problem: oauth1.ProblemBodyHashInvalid, Advice: "hash the body as sent"},
		{Problem: oauth1.ProblemSignatureInvalid},
		{Problem: oauth1.ProblemVersionRejected},
		{Problem: "custom_problem", ParamsAbsent: []string{"a"}, ParamsRejected: []string{"b", "c"}, MinTimestamp: 1, MaxTimestamp: 2, Advice: "every field at once"},
	} {
		t.Run(string(report.Problem), func(t *testing.T) {
			w := httptest.NewRecorder()
			new(server.Verifier).WriteError(w, &server.ProblemError{ProblemReport: report})
			var re *oauth1.ResponseError
			require.ErrorAs(t, oauth1.CheckResponse(w.Result()), &re)
			assert.Equal(t, report, re.ProblemReport, "sent %q", w.Body)
		})
	}
}

// A body that does not match its oauth_body_hash is body_hash_invalid, with
// advice and without the provider's base string, which is the one signed;
// a wrong key is signature_invalid.
func TestBodyHashMismatchIsItsOwnProblem(t *testing.T) {
	v := &server.Verifier{Store: server.Consumers{"key": {Secret: "secret"}}, Settings: server.Settings{Nonces: new(server.MemoryNonceStore), SendBaseString: true}}
	srv := httptest.NewServer(v.Middleware(http.NotFoundHandler()))
	defer srv.Close()
	put := func(secret string, base http.RoundTripper) *oauth1.ResponseError {
		t.Helper()
		cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: secret, BodyHash: crypto.SHA256}
		cl := &http.Client{Transport: &oauth1.Transport{Config: cfg, Base: base}}
		req, err := http.NewRequestWithContext(context.Background(), "PUT", srv.URL+"/doc", strings.NewReader(`{"a":1}`))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := cl.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var re *oauth1.ResponseError
		require.ErrorAs(t, oauth1.CheckResponse(resp), &re)
		return re
	}
	changed := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(`{"a":2}`)), 7
		return http.DefaultTransport.RoundTrip(r)
	})
	re := put("secret", changed)
	assert.Equal(t, 401, re.StatusCode)
	assert.Equal(t, oauth1.ProblemBodyHashInvalid, re.Problem)
	assert.Contains(t, re.Advice, "oauth_body_hash")
	assert.Empty(t, re.BaseString)

	re = put("wrong", nil)
	assert.Equal(t, oauth1.ProblemSignatureInvalid, re.Problem)
	assert.NotEmpty(t, re.BaseString)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The error of a token request answered with a status other than 2xx names
// the endpoint that answered, with its URL stripped of oauth_* query
// parameters and the password, and notes a request signed with an empty
// secret, never the secret.
func TestTokenStatusErrorNamesEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "oauth_problem=signature_invalid")
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	cfg := &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "s3cr3t", Endpoint: oauth1.Endpoint{
		RequestTokenURL: "http://user:pw0rd@" + host + "/initiate?app=1&oauth_extra=QSECRET",
		AccessTokenURL:  srv.URL + "/token",
	}}
	_, err := cfg.RequestToken(context.Background())
	require.Error(t, err)
	assert.Equal(t, "oauth1: temporary credential request to http://user:xxxxx@"+host+"/initiate?app=1: provider answered 401 Unauthorized: oauth_problem=signature_invalid", err.Error())

	_, err = cfg.AccessToken(context.Background(), &oauth1.Credentials{Token: "temp", Secret: "ts3cr3t"}, "code")
	require.Error(t, err)
	assert.Equal(t, "oauth1: token request to "+srv.URL+"/token: provider answered 401 Unauthorized: oauth_problem=signature_invalid", err.Error())

	// Empty secrets, noted.
	cfg.ConsumerSecret = ""
	_, err = cfg.AccessToken(context.Background(), &oauth1.Credentials{Token: "temp"}, "code")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(the request was signed with an empty consumer secret and an empty token secret)")
	cfg.ConsumerSecret = "s3cr3t"
	_, err = cfg.AccessToken(context.Background(), &oauth1.Credentials{Token: "temp"}, "code")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(the request was signed with an empty token secret)")
	assert.NotContains(t, err.Error(), "s3cr3t")

	// PLAINTEXT in the query: the signed URL holds both secrets; the
	// error names the endpoint only.
	cfg.Signer, cfg.Delivery, cfg.AllowInsecurePlaintext = oauth1.Plaintext{}, oauth1.QueryString, true
	_, err = cfg.AccessToken(context.Background(), &oauth1.Credentials{Token: "temp", Secret: "ts3cr3t"}, "code")
	require.Error(t, err)
	assert.Equal(t, "oauth1: token request to "+srv.URL+"/token: provider answered 401 Unauthorized: oauth_problem=signature_invalid", err.Error())
}

// CheckResponse notes, for a request a Transport signed, an empty secret
// in the key; not for a full key, nor for RSA.
func TestCheckResponseNotesEmptySecret(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "oauth_problem=signature_invalid")
	}))
	defer srv.Close()
	for _, tt := range []struct {
		name   string
		cfg    *oauth1.Config
		tok    *oauth1.Credentials
		notice string
	}{
		{"empty token secret", &oauth1.Config{ConsumerKey: "k", ConsumerSecret: "cs"}, &oauth1.Credentials{Token: "t"}, "(the request was signed with an empty token secret)"},
		{"empty consumer secret", &oauth1.Config{ConsumerKey: "k"}, nil, "(the request was signed with an empty consumer secret)"},
		{"full key", &oauth1.Config{ConsumerKey: "k", ConsumerSecret: "cs"}, &oauth1.Credentials{Token: "t", Secret: "ts"}, ""},
		{"RSA", &oauth1.Config{ConsumerKey: "k", Signer: oauth1.RSA{Key: rsaKey}}, &oauth1.Credentials{Token: "t"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.cfg.Client(tt.tok).Get(srv.URL + "/r")
			require.NoError(t, err)
			defer resp.Body.Close()
			err = oauth1.CheckResponse(resp)
			require.Error(t, err)
			if tt.notice == "" {
				assert.NotContains(t, err.Error(), "signed with")
			} else {
				assert.Contains(t, err.Error(), tt.notice)
			}
		})
	}
}

// What a real Verifier refuses, its Observe sees as a ProblemError whose
// report the client reads back whole.
func TestProblemReportRoundTripFromVerifier(t *testing.T) {
	now := time.Unix(1700000000, 0)
	var mu sync.Mutex
	var refused *server.ProblemError
	v := &server.Verifier{Store: server.Consumers{"key": {Secret: "secret"}}, Observe: func(_ *http.Request, _ *server.Verification, err error) {
		mu.Lock()
		refused, _ = err.(*server.ProblemError)
		mu.Unlock()
	}, Settings: server.Settings{Nonces: new(server.MemoryNonceStore), Now: func() time.Time { return now }, BodyHash: crypto.SHA256}}
	srv := httptest.NewServer(v.Middleware(http.NotFoundHandler()))
	defer srv.Close()
	for _, tt := range []struct {
		name string
		cfg  *oauth1.Config
		want oauth1.Problem
	}{
		{"clock behind", &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret", BodyHash: crypto.SHA256, Now: func() time.Time { return now.Add(-time.Hour) }}, oauth1.ProblemTimestampRefused},
		{"no body hash", &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret", Now: func() time.Time { return now }}, oauth1.ProblemParameterAbsent},
		{"PLAINTEXT over http", &oauth1.Config{ConsumerKey: "key", ConsumerSecret: "secret", BodyHash: crypto.SHA256, Signer: oauth1.Plaintext{}, AllowInsecurePlaintext: true}, oauth1.ProblemSignatureMethodRejected},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			refused = nil
			mu.Unlock()
			req, err := http.NewRequest("PUT", srv.URL+"/doc", strings.NewReader(`{}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			resp, err := tt.cfg.Client(nil).Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var re *oauth1.ResponseError
			require.ErrorAs(t, oauth1.CheckResponse(resp), &re)
			mu.Lock()
			defer mu.Unlock()
			require.NotNil(t, refused, "Observe saw no ProblemError")
			assert.Equal(t, tt.want, refused.Problem)
			assert.Equal(t, refused.ProblemReport, re.ProblemReport)
		})
	}
}

// TestResponseErrorTextIsBounded checks that Error prints a provider's
// problem report, from a form body or a WWW-Authenticate challenge, on one
// line of bounded size: a code, names or advice with CR/LF, ANSI escapes or
// a bidi override are quoted with them escaped, and 63 KiB of advice or
// 500 names print at most the documented amount.
func TestResponseErrorTextIsBounded(t *testing.T) {
	forged := "x\r\ntime=2026-12-04T00:00:00Z level=INFO msg=ok"
	name := "oauth_" + strings.Repeat("n", 100)
	names := strings.Repeat(name+"%26", 499) + name // 500 names, 54 KiB
	bigAdvice := "\x1b[2J" + strings.Repeat("a", 63<<10)
	// 8 names of 64 bytes per list, 256 bytes of advice, all quoted and
	// escaped, and the fixed words: well under 3 KiB.
	const bound = 3 << 10
	for _, tt := range []struct {
		name   string
		header string // WWW-Authenticate
		body   string
		want   string
	}{
		{"code", "", "oauth_problem=" + url.QueryEscape(forged), `oauth_problem="x\r\ntime=2026-12-04T00:00:00Z level=INFO msg=ok"`},
		{"names", "", "oauth_problem=parameter_rejected&oauth_parameters_rejected=" + url.QueryEscape(forged+"&oauth_b\x1b[31m"),
			`("x\r\ntime=2026-12-04T00:00:00Z level=INFO msg=ok", "oauth_b\x1b[31m")`},
		{"many names", "", "oauth_problem=parameter_absent&oauth_parameters_absent=" + names, ", and 492 more)"},
		{"advice", "", "oauth_problem=signature_invalid&oauth_problem_advice=" + url.QueryEscape(bigAdvice), `("\x1b[2Jaaaa`},
		{"bidi advice", "", "oauth_problem=signature_invalid&oauth_problem_advice=" + url.QueryEscape("ok \u202egnp.exe"), `("ok \u202egnp.exe")`},
		{"challenge", `OAuth realm="r", oauth_problem="` + url.PathEscape(forged) + `"`, "", `oauth_problem="x\r\ntime=`},
		{"plain stays plain", "", "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_verifier&oauth_problem_advice=Send+the+code.",
			"oauth_problem=parameter_absent (oauth_verifier) (Send the code.)"},
	} {
		resp := &http.Response{StatusCode: 401, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
		if tt.header != "" {
			resp.Header.Set("WWW-Authenticate", tt.header)
		}
		err := oauth1.CheckResponse(resp)
		require.Error(t, err, tt.name)
		got := err.Error()
		if strings.ContainsAny(got, "\r\n\x1b\u202e") || len(got) > bound {
			t.Errorf("%s: Error() = %d bytes %q, want one line of at most %d bytes without control characters", tt.name, len(got), got[:min(len(got), 200)], bound)
		}
		assert.Contains(t, got, tt.want, tt.name)
		// fmt prints an error's Error under these verbs, and %#v in Go
		// syntax, with strings quoted.
		for _, verb := range []string{"%v", "%+v", "%s", "%q", "%#v"} {
			if out := fmt.Sprintf(verb, err); strings.ContainsAny(out, "\r\n\x1b\u202e") {
				t.Errorf("%s: Sprintf(%q) = %.200q holds a control character", tt.name, verb, out)
			}
		}
	}
}

// A hostile provider cannot exhaust a client (issue 35, item 4): one
// 10 MiB Link header of empty links made CheckResponse allocate about
// 470 MB reading the retirement notice; net/http's own parse of it costs
// about 59 MB. CheckResponse now reads a few links of a few KiB.
func TestCheckResponseHostileLinkHeader(t *testing.T) {
	h := http.Header{"Link": {strings.Repeat("<>,", (10<<20)/3)}, "Deprecation": {"@1688169599"}}
	var err error
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = oauth1.CheckResponse(&http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader("oauth_problem=version_rejected"))})
	runtime.ReadMemStats(&after)
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("CheckResponse allocated %d bytes", n)
	if n > 1<<20 {
		t.Errorf("CheckResponse allocated %d bytes for a 10 MiB Link header, want at most 1 MiB", n)
	}
	if err == nil || !strings.Contains(err.Error(), "deprecates this API as of 2023-06-30 23:59:59 UTC") {
		t.Errorf("CheckResponse = %v, want the deprecation named", err)
	}
}
