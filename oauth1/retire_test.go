package oauth1_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// The headers of the RFCs' own examples: RFC 9745 §2.2 and §3 and RFC 8594
// §3. @1688169599 is 2023-06-30 23:59:59 UTC (date -u -d @1688169599).
var retiring = http.Header{
	"Deprecation": {"@1688169599"},
	"Sunset":      {"Sat, 31 Dec 2018 23:59:59 GMT"},
	"Link":        {`<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html"`},
}

const retiringText = " (the provider deprecates this API as of 2023-06-30 23:59:59 UTC and retires it at 2018-12-31 23:59:59 UTC (see https://developer.example.com/deprecation))"

// A ResponseError names the Deprecation and Sunset the provider sent, so
// that a developer reading a refusal learns why.
func TestResponseErrorNamesRetirement(t *testing.T) {
	resp := &http.Response{StatusCode: 410, Header: retiring.Clone(),
		Body: io.NopCloser(strings.NewReader("oauth_problem=version_rejected"))}
	err := oauth1.CheckResponse(resp)
	require.Error(t, err)
	assert.Equal(t, "oauth1: provider answered 410 Gone: oauth_problem=version_rejected"+retiringText, err.Error())

	// Through a token request of the flow too.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range retiring {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, "oauth_problem=version_rejected")
	}))
	defer srv.Close()
	c := &oauth1.Config{ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44", Endpoint: oauth1.Endpoint{RequestTokenURL: srv.URL + "/request_token"}}
	_, err = c.RequestToken(context.Background())
	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), "oauth_problem=version_rejected"+retiringText), err.Error())
}

// What a hostile provider puts in the headers reaches the message only as
// a date or as printable ASCII without spaces.
func TestResponseErrorRetirementHostile(t *testing.T) {
	for _, link := range []string{
		"<https://evil.example/\x1b[2J>; rel=deprecation",
		"<https://evil.example/a\r\nb>; rel=deprecation",
		"<https://evil.example/ spaced>; rel=deprecation",
		"<https://evil.example/" + strings.Repeat("a", 4096) + ">; rel=deprecation",
	} {
		resp := &http.Response{StatusCode: 401, Header: http.Header{"Link": {link}, "Deprecation": {"@1688169599\x1b[2J"}}, Body: http.NoBody}
		err := oauth1.CheckResponse(resp)
		require.Error(t, err)
		assert.Equal(t, "oauth1: provider answered 401 Unauthorized", err.Error())
	}
}
