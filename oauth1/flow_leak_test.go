package oauth1_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// leakTemp is a temporary token whose secret must not leak either.
var leakTemp = oauth1.Credentials{Token: "leak-temp", Secret: "TEMP-secret%;"}

// spellings returns the ways a secret may be written in a URL or an echo.
func spellings(s string) []string {
	return []string{s, percent.Encode(s), percent.Encode(percent.Encode(s)), url.QueryEscape(s)}
}

// assertNoSecrets fails t if text holds a secret or a protocol parameter
// that only the signed request should carry.
func assertNoSecrets(t *testing.T, text string, extra ...string) {
	t.Helper()
	for _, s := range append([]string{leakConsumer.Secret, leakTemp.Secret}, extra...) {
		for _, sp := range spellings(s) {
			assert.NotContains(t, text, sp)
		}
	}
}

// closedPort returns the address of a loopback port that refuses
// connections.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// A token request that fails before any answer names the endpoint, not the
// signed URL: with query delivery and PLAINTEXT that held both secrets.
func TestTokenRequestErrorNamesEndpoint(t *testing.T) {
	addr := closedPort(t)
	for _, delivery := range []oauth1.Delivery{oauth1.QueryString, oauth1.AuthHeader, oauth1.FormBody} {
		for _, signer := range []oauth1.Signer{oauth1.Plaintext{}, oauth1.HMAC{}} {
			cfg := &oauth1.Config{
				ConsumerKey: leakConsumer.Token, ConsumerSecret: leakConsumer.Secret,
				Signer:                 signer,
				Delivery:               delivery,
				AllowInsecurePlaintext: true,
				Endpoint: oauth1.Endpoint{
					RequestTokenURL: "http://" + addr + "/rt?scope=read",
					AccessTokenURL:  "http://" + addr + "/at",
				},
			}
			_, err := cfg.RequestToken(context.Background())
			require.Error(t, err)
			_, err2 := cfg.AccessToken(context.Background(), &leakTemp, "verifier-123")
			require.Error(t, err2)
			for _, e := range []error{err, err2} {
				msg := e.Error()
				assertNoSecrets(t, msg)
				assert.NotContains(t, msg, "oauth_", "%s %s: %s", delivery, signer.SignatureMethod(), msg)
				var ue *url.Error
				require.ErrorAs(t, e, &ue)
				var oe *net.OpError
				assert.ErrorAs(t, e, &oe, "the cause stays reachable")
			}
			assert.Contains(t, err.Error(), `"http://`+addr+`/rt?scope=read": `)
			assert.Contains(t, err2.Error(), `"http://`+addr+`/at": `)
		}
	}
}

// echoProvider answers 401 with a body that echoes the request it got, as
// some providers' debug pages do, in the format the request asks for. It
// records the signatures it received.
func echoProvider(t *testing.T) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var sigs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		var sig string
		if ps, err := oauth1.ParseAuthHeader(auth); err == nil {
			for _, p := range ps {
				if p.Name == "oauth_signature" {
					sig = p.Value
				}
			}
		}
		for _, form := range []string{r.URL.RawQuery, string(body)} {
			if v, err := url.ParseQuery(form); err == nil && v.Has("oauth_signature") {
				sig = v.Get("oauth_signature")
			}
		}
		mu.Lock()
		sigs = append(sigs, sig)
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		switch r.URL.Query().Get("echo") {
		case "json":
			json.NewEncoder(w).Encode(map[string]string{
				"error": "invalid signature", "authorization": auth,
				"query": r.URL.RawQuery, "body": string(body), "oauth_signature": sig,
			})
		case "escaped":
			// The whole request, form-encoded into one parameter.
			io.WriteString(w, "oauth_problem=signature_invalid&debug_request="+
				url.QueryEscape(r.URL.RequestURI()+"\n"+auth+"\n"+string(body)))
		default:
			io.WriteString(w, "oauth_problem=signature_invalid&oauth_problem_advice="+url.QueryEscape("got "+auth+" "+r.URL.RawQuery)+
				"\n"+r.Method+" "+r.URL.RequestURI()+"\nAuthorization: "+auth+"\n\n"+string(body))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &sigs
}

func TestResponseErrorScrubsEcho(t *testing.T) {
	srv, sigs := echoProvider(t)
	for _, echo := range []string{"text", "json", "escaped"} {
		for _, delivery := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
			for _, signer := range []oauth1.Signer{oauth1.Plaintext{}, oauth1.HMAC{}} {
				name := echo + "/" + deliveryName(delivery) + "/" + signer.SignatureMethod()
				cfg := &oauth1.Config{
					ConsumerKey: leakConsumer.Token, ConsumerSecret: leakConsumer.Secret, Signer: signer, Delivery: delivery, AllowInsecurePlaintext: true,
					Endpoint: oauth1.Endpoint{
						RequestTokenURL: srv.URL + "/rt?echo=" + echo,
						AccessTokenURL:  srv.URL + "/at?echo=" + echo,
					},
				}
				_, err := cfg.AccessToken(context.Background(), &leakTemp, "verifier-123")
				var re *oauth1.ResponseError
				require.ErrorAs(t, err, &re, name)
				sig := (*sigs)[len(*sigs)-1]
				require.NotEmpty(t, sig, name)
				// The echo is there, with the secrets taken out.
				assert.Contains(t, string(re.Body), "REDACTED", name)
				assert.Contains(t, string(re.Body), "leak-temp", name)
				assertNoSecrets(t, string(re.Body)+"\n"+re.Advice+"\n"+err.Error(), sig)
			}
		}
	}
}

// The scrubbed body keeps what is not secret: the problem report stays
// readable and a harmless echo stays as it was.
func TestResponseErrorKeepsHarmlessBody(t *testing.T) {
	cfg := answeringProvider(t, 400, "text/plain", "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_verifier")
	_, err := cfg.RequestToken(context.Background())
	var re *oauth1.ResponseError
	require.True(t, errors.As(err, &re))
	assert.Equal(t, "oauth_problem=parameter_absent&oauth_parameters_absent=oauth_verifier", string(re.Body))
	assert.Equal(t, oauth1.Problem("parameter_absent"), re.Problem)
	assert.Contains(t, err.Error(), "answered 400")
	assert.Equal(t, []string{"oauth_verifier"}, re.ParamsAbsent)
}

// A token endpoint that redirects to another port of the same host would
// get the Authorization header from net/http, which compares host names
// only, and a 307 replays a FormBody delivery's body; with PLAINTEXT both
// carry the secrets. The flow follows a redirect only to the same scheme,
// host and port.
func TestTokenRequestRedirect(t *testing.T) {
	other := &hopRecorder{}
	otherSrv := httptest.NewTLSServer(other)
	defer otherSrv.Close()
	origin := &hopRecorder{}
	originSrv := httptest.NewTLSServer(origin)
	defer originSrv.Close()
	origin.next = func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, otherSrv.URL+"/at?x=1", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, "/at", http.StatusTemporaryRedirect)
		default:
			io.WriteString(w, "oauth_token=t&oauth_token_secret=s")
		}
	}
	for _, delivery := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
		cfg := &oauth1.Config{
			ConsumerKey: leakConsumer.Token, ConsumerSecret: leakConsumer.Secret, Signer: oauth1.Plaintext{}, Delivery: delivery,
			Endpoint:   oauth1.Endpoint{AccessTokenURL: originSrv.URL + "/away"},
			HTTPClient: originSrv.Client(),
		}
		_, err := cfg.AccessToken(context.Background(), &leakTemp, "verifier-123")
		require.ErrorContains(t, err, "redirected to "+otherSrv.URL+"/at?x=1, another scheme, host or port")
		assertNoSecrets(t, err.Error())
		other.mu.Lock()
		assert.Empty(t, other.hops, "%s: the other host got %+v", delivery, other.hops)
		other.mu.Unlock()

		cfg.Endpoint.AccessTokenURL = originSrv.URL + "/here"
		res, err := cfg.AccessToken(context.Background(), &leakTemp, "verifier-123")
		require.NoError(t, err, delivery)
		tok := res.Credentials
		assert.Equal(t, "t", tok.Token)
	}
}
