package oauth1_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
	"github.com/countersign/countersign/oauth1/server"
)

// Config.Params reach every request of a Client, signed: the fake
// provider's Verifier recomputes the signature from what arrived.
func TestConfigParamsSignedAndSent(t *testing.T) {
	for _, d := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
		t.Run(deliveryName(d), func(t *testing.T) {
			srv := oauth1test.NewServer(rfcClient.Token, rfcClient.Secret)
			defer srv.Close()
			tok := srv.IssueToken()
			cfg := &oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret, Delivery: d, Params: []oauth1.Param{
				{Name: "xoauth_requestor_id", Value: "jane@example.com"},
			}}
			resp, err := cfg.Client(&tok).Post(srv.ResourceURL, "application/x-www-form-urlencoded", strings.NewReader("a=1"))
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, 200, resp.StatusCode, "body %s", body)
			assert.Contains(t, srv.LastBaseString(), "xoauth_requestor_id%3Djane%2540example.com")
		})
	}
}

func TestConfigParamsInHeader(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret, Params: []oauth1.Param{{Name: "xoauth_requestor_id", Value: "jane@example.com"}}}
	req, _ := http.NewRequest("GET", "https://api.example.com/feeds?q=1", nil)
	require.NoError(t, cfg.Sign(req, nil))
	p, err := parseOAuthHeader(req.Header.Get("Authorization"))
	require.NoError(t, err)
	assert.Equal(t, "jane@example.com", p["xoauth_requestor_id"])
	assert.Equal(t, "q=1", req.URL.RawQuery, "the request's own query is left alone")
	assert.Len(t, cfg.Params, 1, "the Config is not modified")

	// Params and SignAt's extra add up, and BaseString includes both.
	base, err := cfg.BaseString(req, nil, time.Unix(1, 0), "n", oauth1.Param{Name: "oauth_callback", Value: "oob"})
	require.NoError(t, err)
	assert.Contains(t, base, "oauth_callback%3Doob")
	assert.Contains(t, base, "xoauth_requestor_id%3Djane%2540example.com")

	cfg.Params = []oauth1.Param{{Name: "oauth_nonce", Value: "mine"}}
	req, _ = http.NewRequest("GET", "https://api.example.com/", nil)
	err = cfg.Sign(req, nil)
	assert.ErrorContains(t, err, "oauth_nonce is one the Config supplies")
}

// The extra parameters of the token requests: oauth_* ones travel as
// protocol parameters, others in the body of a POST or the query of a GET.
func TestTokenRequestExtras(t *testing.T) {
	tokenBody := "oauth_token=t&oauth_token_secret=s&oauth_callback_confirmed=true"
	newCfg := func(method string) (*oauth1.Config, *cannedBase) {
		base := &cannedBase{status: 200, body: tokenBody}
		return &oauth1.Config{
			ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret,
			Endpoint: oauth1.Endpoint{
				RequestTokenURL: "https://photos.example.net/initiate?v=2",
				AccessTokenURL:  "https://photos.example.net/token",
				TokenMethod:     method,
			},
			HTTPClient: &http.Client{Transport: base},
		}, base
	}
	ctx := context.Background()

	t.Run("GET puts them in the query", func(t *testing.T) {
		cfg, base := newCfg("GET")
		_, err := cfg.RequestToken(ctx, oauth1.Param{Name: "x_auth_access_type", Value: "read write"})
		require.NoError(t, err)
		assert.Equal(t, "v=2&x_auth_access_type=read%20write", base.reqs[0].URL.RawQuery)
		assert.Equal(t, "", base.bodies[0])
	})

	// The signature was computed with Python oauthlib 3.2.2, and openssl
	// agrees over the base string written out by hand:
	//
	//	Client('dpf43f3p2l4k3l03', client_secret='kd94hf93k423kf44', timestamp='1', nonce='n').sign(
	//	    'https://photos.example.net/token', http_method='POST',
	//	    body='x_auth_mode=client_auth&x_auth_username=jane&x_auth_password=p%26ss%20word',
	//	    headers={'Content-Type': 'application/x-www-form-urlencoded'})
	//	printf '%s' 'POST&https%3A%2F%2Fphotos.example.net%2Ftoken&oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3Dn%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_version%3D1.0%26x_auth_mode%3Dclient_auth%26x_auth_password%3Dp%2526ss%2520word%26x_auth_username%3Djane' |
	//	    openssl dgst -sha1 -hmac 'kd94hf93k423kf44&' -binary | base64
	t.Run("xAuth", func(t *testing.T) {
		cfg, base := newCfg("")
		cfg.Now = func() time.Time { return time.Unix(1, 0) }
		cfg.Nonce = func() string { return "n" }
		_, err := cfg.XAuthToken(ctx, "jane", "p&ss word")
		require.NoError(t, err)
		const want = `OAuth oauth_consumer_key="dpf43f3p2l4k3l03", oauth_nonce="n", ` +
			`oauth_signature="DEiWBxNuUoCYkINOJFxlnJAZL2Y%3D", oauth_signature_method="HMAC-SHA1", ` +
			`oauth_timestamp="1", oauth_version="1.0"`
		assert.Equal(t, want, base.reqs[0].Header.Get("Authorization"))
		assert.Equal(t, "x_auth_mode=client_auth&x_auth_username=jane&x_auth_password=p%26ss%20word", base.bodies[0])
		assert.Equal(t, "application/x-www-form-urlencoded", base.reqs[0].Header.Get("Content-Type"))
	})

	// The signature was computed with openssl over the base string
	// written out by hand:
	//
	//	printf '%s' 'POST&https%3A%2F%2Fphotos.example.net%2Ftoken&oauth_consumer_key%3Ddpf43f3p2l4k3l03%26oauth_nonce%3Dn%26oauth_session_handle%3Dh%25201%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1%26oauth_token%3Dnnch734d00sl2jdk%26oauth_version%3D1.0' |
	//	    openssl dgst -sha1 -hmac 'kd94hf93k423kf44&pfkkdhi9sl3r4s00' -binary | base64
	t.Run("session renewal", func(t *testing.T) {
		cfg, base := newCfg("")
		cfg.Now = func() time.Time { return time.Unix(1, 0) }
		cfg.Nonce = func() string { return "n" }
		_, err := cfg.RenewToken(ctx, &rfcToken, "h 1")
		require.NoError(t, err)
		const want = `OAuth oauth_consumer_key="dpf43f3p2l4k3l03", oauth_nonce="n", ` +
			`oauth_session_handle="h%201", oauth_signature="jhvSr3GPgrUDNzUzX44rR8HJBVw%3D", ` +
			`oauth_signature_method="HMAC-SHA1", oauth_timestamp="1", oauth_token="nnch734d00sl2jdk", oauth_version="1.0"`
		assert.Equal(t, want, base.reqs[0].Header.Get("Authorization"))
		assert.Equal(t, "", base.bodies[0])
	})

	// Each exchange checks its own arguments and refuses, before sending
	// anything, what would make it another exchange or send a parameter
	// twice.
	t.Run("refusals", func(t *testing.T) {
		cfg, base := newCfg("")
		xAuth := []oauth1.Param{{Name: "x_auth_mode", Value: "client_auth"}, {Name: "x_auth_username", Value: "u"}, {Name: "x_auth_password", Value: "secret-password"}}
		for _, tt := range []struct {
			name string
			call func() (*oauth1.TokenResponse, error)
			want string
		}{
			{"AccessToken nil temp", func() (*oauth1.TokenResponse, error) { return cfg.AccessToken(ctx, nil, rfcVerifier) }, "oauth1: token request: nil temporary credentials"},
			{"AccessToken as xAuth used to be called", func() (*oauth1.TokenResponse, error) { return cfg.AccessToken(ctx, nil, "", xAuth...) }, "Config.XAuthToken"},
			{"AccessToken as renewal used to be called", func() (*oauth1.TokenResponse, error) {
				return cfg.AccessToken(ctx, &rfcToken, "", oauth1.Param{Name: "oauth_session_handle", Value: "h"})
			}, "oauth1: token request: empty verification code"},
			{"AccessToken temp without token", func() (*oauth1.TokenResponse, error) {
				return cfg.AccessToken(ctx, &oauth1.Credentials{Secret: "s"}, rfcVerifier)
			}, "the temporary credentials have no token"},
			{"AccessToken empty code", func() (*oauth1.TokenResponse, error) { return cfg.AccessToken(ctx, &rfcTemp, "") }, "empty verification code"},
			{"AccessToken code in extra", func() (*oauth1.TokenResponse, error) {
				return cfg.AccessToken(ctx, &rfcTemp, rfcVerifier, oauth1.Param{Name: "oauth_verifier", Value: "x"})
			}, "oauth1: token request: extra parameter oauth_verifier: pass it as the code argument"},
			{"XAuthToken empty username", func() (*oauth1.TokenResponse, error) { return cfg.XAuthToken(ctx, "", "secret-password") }, "oauth1: xAuth token request: empty username"},
			{"XAuthToken empty password", func() (*oauth1.TokenResponse, error) { return cfg.XAuthToken(ctx, "u", "") }, "oauth1: xAuth token request: empty password"},
			{"XAuthToken x_auth_mode in extra", func() (*oauth1.TokenResponse, error) { return cfg.XAuthToken(ctx, "u", "secret-password", xAuth[0]) }, "extra parameter x_auth_mode"},
			{"XAuthToken x_auth_password in extra", func() (*oauth1.TokenResponse, error) { return cfg.XAuthToken(ctx, "u", "secret-password", xAuth[2]) }, "extra parameter x_auth_password"},
			{"RenewToken nil token", func() (*oauth1.TokenResponse, error) { return cfg.RenewToken(ctx, nil, "h") }, "oauth1: token renewal: nil token credentials"},
			{"RenewToken token without token", func() (*oauth1.TokenResponse, error) { return cfg.RenewToken(ctx, &oauth1.Credentials{}, "h") }, "the token credentials have no token"},
			{"RenewToken empty handle", func() (*oauth1.TokenResponse, error) { return cfg.RenewToken(ctx, &rfcToken, "") }, "oauth1: token renewal: empty session handle"},
			{"RenewToken handle in extra", func() (*oauth1.TokenResponse, error) {
				return cfg.RenewToken(ctx, &rfcToken, "h", oauth1.Param{Name: "oauth_session_handle", Value: "h2"})
			}, "extra parameter oauth_session_handle: pass it as the sessionHandle argument"},
			{"RequestToken empty name", func() (*oauth1.TokenResponse, error) {
				return cfg.RequestToken(ctx, oauth1.Param{Name: "", Value: "x"})
			}, "empty name"},
			{"RequestToken callback in extra", func() (*oauth1.TokenResponse, error) {
				return cfg.RequestToken(ctx, oauth1.Param{Name: "oauth_callback", Value: "x"})
			}, "oauth1: temporary credential request: extra parameter oauth_callback: set Config.Callback instead"},
		} {
			res, err := tt.call()
			assert.Nil(t, res, tt.name)
			if assert.ErrorContains(t, err, tt.want, tt.name) {
				assert.NotContains(t, err.Error(), "secret-password", tt.name)
			}
		}
		assert.Empty(t, base.reqs, "nothing was sent")
	})
}

// Whatever the delivery, a provider's Verifier accepts the token requests
// with extra parameters, and finds them where they were sent.
func TestTokenRequestExtrasVerified(t *testing.T) {
	for _, d := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
		for _, method := range []string{"POST", "GET"} {
			t.Run(deliveryName(d)+"/"+method, func(t *testing.T) {
				store := exampleStore{consumer: rfcClient, tokens: map[string]string{rfcToken.Token: rfcToken.Secret}}
				srv := exampleProvider(store, func(w http.ResponseWriter, r *http.Request, v *server.Verification) {
					if r.FormValue("x_auth_username") != "jane" || !slices.Contains(v.Params, oauth1.Param{Name: "oauth_session_handle", Value: "h"}) {
						http.Error(w, "oauth_problem=parameter_absent", http.StatusBadRequest)
						return
					}
					io.WriteString(w, "oauth_token=t2&oauth_token_secret=s2")
				})
				defer srv.Close()
				cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret, Delivery: d,
					Endpoint: oauth1.Endpoint{AccessTokenURL: srv.URL + "/token", TokenMethod: method}}
				tok, err := cfg.RenewToken(context.Background(), &rfcToken, "h",
					oauth1.Param{Name: "x_auth_username", Value: "jane"})
				require.NoError(t, err)
				assert.Equal(t, "t2", tok.Credentials.Token)
			})
		}
	}
}

// deliveryName names d in test names.
func deliveryName(d oauth1.Delivery) string {
	return map[oauth1.Delivery]string{oauth1.AuthHeader: "header", oauth1.QueryString: "query", oauth1.FormBody: "body"}[d]
}
