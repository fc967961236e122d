package oauth1_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
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
			want: &oauth1.ResponseError{StatusCode: 401, Problem: oauth1.ProblemTimestampRefused, Advice: "check your clock",
				MinTimestamp: 1700000000, MaxTimestamp: 1700000600,
				Body: []byte("oauth_problem=timestamp_refused&oauth_acceptable_timestamps=1700000000%2D1700000600&oauth_problem_advice=check+your+clock")},
			wantError: "oauth1: provider answered 401 Unauthorized: oauth_problem=timestamp_refused (acceptable 1700000000-1700000600) (check your clock)"},
		{name: "400 parameters absent", status: 400, body: "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_nonce%26oauth_timestamp",
			want: &oauth1.ResponseError{StatusCode: 400, Problem: oauth1.ProblemParameterAbsent, Params: []string{"oauth_nonce", "oauth_timestamp"},
				Body: []byte("oauth_problem=parameter_absent&oauth_parameters_absent=oauth_nonce%26oauth_timestamp")},
			wantError: "oauth1: provider answered 400 Bad Request: oauth_problem=parameter_absent (oauth_nonce, oauth_timestamp)"},
		{name: "challenge", status: 401,
			header: http.Header{"Www-Authenticate": {`Basic realm="x"`, `OAuth realm="Photos", oauth_problem="token_expired", oauth_problem_advice="sign in again"`}},
			body:   `{"errors":[{"code":89,"message":"Invalid or expired token."}]}`,
			want: &oauth1.ResponseError{StatusCode: 401, Problem: "token_expired", Advice: "sign in again",
				Body: []byte(`{"errors":[{"code":89,"message":"Invalid or expired token."}]}`)}},
		{name: "body before challenge", status: 401,
			header: http.Header{"Www-Authenticate": {`OAuth oauth_problem="token_expired"`}},
			body:   "oauth_problem=signature_invalid",
			want:   &oauth1.ResponseError{StatusCode: 401, Problem: oauth1.ProblemSignatureInvalid, Body: []byte("oauth_problem=signature_invalid")}},
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
	srv.Verifier.Now = func() time.Time { return now }
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
	cfg = &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: "wrong", Now: srv.Verifier.Now}
	resp, err = cfg.Client(&tok).Get(srv.ResourceURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.ErrorAs(t, oauth1.CheckResponse(resp), &re)
	assert.Equal(t, 401, re.StatusCode)
	assert.Equal(t, oauth1.ProblemSignatureInvalid, re.Problem)
}
