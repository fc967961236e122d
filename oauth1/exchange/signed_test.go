package exchange_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

const (
	consumerKey    = "qyprd-consumer-key"
	consumerSecret = "consumer-SECRET-3"
	o2ID           = "oauth2-client-id"
	o2Secret       = "oauth2-client-SECRET-4"
)

// A captured request, as oauthlib_resource.py reads it.
type wireRequest struct {
	HTTPMethod string            `json:"http_method"`
	URI        string            `json:"uri"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
}

// recorder captures every request and answers with answer.
type recorder struct {
	mu     sync.Mutex
	reqs   []wireRequest
	answer func(w http.ResponseWriter, r *http.Request, body []byte)
}

func newRecorder(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, body []byte)) (*recorder, *httptest.Server) {
	rec := &recorder{answer: answer}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, wireRequest{HTTPMethod: r.Method, URI: "http://" + r.Host + r.URL.RequestURI(),
			Headers: map[string]string{"Authorization": r.Header.Get("Authorization"), "Content-Type": r.Header.Get("Content-Type"), "Accept": r.Header.Get("Accept")},
			Body:    string(b)})
		rec.mu.Unlock()
		rec.answer(w, r, b)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return rec, srv
}

// findPython returns a python3 that imports oauthlib, or "". Debian's
// packages install for /usr/bin/python3, which need not be the python3
// first in PATH; COUNTERSIGN_PYTHON names another.
var findPython = sync.OnceValue(func() string {
	for _, c := range []string{os.Getenv("COUNTERSIGN_PYTHON"), "/usr/bin/python3", "python3"} {
		if c != "" && exec.Command(c, "-c", "import oauthlib, jwt, cryptography").Run() == nil {
			return c
		}
	}
	return ""
})

// oauthlibVerify has oauthlib's ResourceEndpoint check each request as
// signed by the consumer and the token; it skips (fails, under
// COUNTERSIGN_REQUIRE_INTEROP=1) without python3 and oauthlib.
func oauthlibVerify(t *testing.T, tok oauth1.Credentials, pubPEM string, reqs []wireRequest) []map[string]any {
	t.Helper()
	py := findPython()
	if py == "" {
		msg := "the signed exchange is verified by python3 with oauthlib; on Debian: apt-get install python3-oauthlib python3-jwt python3-cryptography"
		if os.Getenv("COUNTERSIGN_REQUIRE_INTEROP") == "1" {
			t.Fatal(msg + " (COUNTERSIGN_REQUIRE_INTEROP=1 forbids skipping)")
		}
		t.Skip(msg)
	}
	const helper = "testdata/oauthlib_resource.py"
	_, err := os.ReadFile(helper) // an input of the test, for go test's cache
	require.NoError(t, err)
	in, err := json.Marshal(map[string]any{"client_key": consumerKey, "client_secret": consumerSecret,
		"token": tok.Token, "token_secret": tok.Secret, "rsa_public_pem": pubPEM, "requests": reqs})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, helper)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	var res []map[string]any
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	require.Len(t, res, len(reqs))
	return res
}

// tampered returns copies of r that a verifier must refuse.
func tampered(r wireRequest) []wireRequest {
	var out []wireRequest
	a := r
	a.Headers = map[string]string{}
	for k, v := range r.Headers {
		a.Headers[k] = strings.Replace(v, `oauth_token="`, `oauth_token="x`, 1)
	}
	out = append(out, a)
	b := r
	b.HTTPMethod = "PUT"
	out = append(out, b)
	c := r
	c.URI = strings.Replace(r.URI, "/migrate", "/migrat%65", 1) + "x"
	out = append(out, c)
	if strings.Contains(r.Headers["Content-Type"], "form") {
		d := r
		d.Body = strings.Replace(r.Body, "scope=", "scope=x", 1) + "&z=1"
		out = append(out, d)
	}
	return out
}

func TestSignedIntuit(t *testing.T) {
	t.Parallel()
	tok := oauth1.Credentials{Token: "qyprd-intuit-token", Secret: "intuit-token-SECRET-5"}
	rec, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.URL.Path == "/oauth2/v1/tokens/bearer" {
			form, _ := url.ParseQuery(string(body))
			id, secret, _ := r.BasicAuth()
			if id != o2ID || secret != o2Secret || form.Get("grant_type") != "refresh_token" || form.Get("refresh_token") != "AB11-refresh" {
				writeJSON(w, 400, map[string]any{"error": "invalid_grant"})
				return
			}
			writeJSON(w, 200, map[string]any{"access_token": "eyJ-refreshed", "refresh_token": "AB11-refresh-2", "token_type": "bearer", "expires_in": 3600, "x_refresh_token_expires_in": 8726400})
			return
		}
		// Intuit's migration answer.
		writeJSON(w, 200, map[string]any{"realmId": "123146090856284", "refresh_token": "AB11-refresh", "x_refresh_token_expires_in": 8726400,
			"access_token": "eyJ-access", "token_type": "bearer", "expires_in": 3600})
	})
	s := &exchange.Signed{
		Config:       &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret},
		URL:          srv.URL + "/v2/oauth2/tokens/migrate",
		ClientID:     o2ID,
		ClientSecret: o2Secret,
		Scopes:       []string{"com.intuit.quickbooks.accounting"},
		Extra:        map[string]string{"redirect_uri": "https://developer.intuit.com/v2/OAuth2Playground/RedirectUrl"},
		RefreshURL:   srv.URL + "/oauth2/v1/tokens/bearer",
	}
	got, err := s.Exchange(context.Background(), tok)
	require.NoError(t, err)
	assert.Equal(t, "eyJ-access", got.AccessToken)
	assert.Equal(t, "AB11-refresh", got.RefreshToken)
	assert.Equal(t, "123146090856284", got.Extra("realmId"))
	assert.EqualValues(t, 3600, got.ExpiresIn)

	require.Len(t, rec.reqs, 1)
	r := rec.reqs[0]
	assert.Equal(t, "POST", r.HTTPMethod)
	assert.Equal(t, "/v2/oauth2/tokens/migrate", strings.TrimPrefix(r.URI, srv.URL))
	assert.Equal(t, "application/json", r.Headers["Content-Type"])
	assert.Equal(t, "application/json", r.Headers["Accept"])
	var body map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Body), &body))
	assert.Equal(t, map[string]string{"scope": "com.intuit.quickbooks.accounting", "redirect_uri": "https://developer.intuit.com/v2/OAuth2Playground/RedirectUrl",
		"client_id": o2ID, "client_secret": o2Secret}, body)
	assert.NotContains(t, r.Body+r.URI+r.Headers["Authorization"], tok.Secret)
	assert.NotContains(t, r.Body+r.URI+r.Headers["Authorization"], consumerSecret)
	assert.Contains(t, r.Headers["Authorization"], `oauth_signature_method="HMAC-SHA1"`)

	reqs := append([]wireRequest{r}, tampered(r)...)
	res := oauthlibVerify(t, tok, "", reqs)
	assert.Equal(t, true, res[0]["valid"], "oauthlib: %v", res[0])
	for i, v := range res[1:] {
		assert.Equal(t, false, v["valid"], "tampered request %d: %v", i, v)
	}

	// Refresh at Intuit's token endpoint, through x/oauth2.
	got.Expiry = time.Now().Add(-time.Minute)
	fresh, err := s.TokenSource(context.Background(), got).Token()
	require.NoError(t, err)
	assert.Equal(t, "eyJ-refreshed", fresh.AccessToken)
	assert.Equal(t, "AB11-refresh-2", fresh.RefreshToken)
}

func TestSignedXeroRSA(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	require.NoError(t, err)
	pubPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
	tok := oauth1.Credentials{Token: "xero-oauth1-token", Secret: "xero-token-SECRET-6"}
	rec, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		// Xero's answer, expires_in a string as its script shows it.
		writeJSON(w, 200, map[string]any{"access_token": "xero.jwt", "expires_in": "1800", "token_type": "Bearer",
			"refresh_token": "xero-refresh", "xero_tenant_id": "a3ef-tenant"})
	})
	s := &exchange.Signed{
		Config:       &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Signer: oauth1.RSA{Key: key}},
		URL:          srv.URL + "/oauth/migrate?tenantType=ORGANISATION",
		ClientID:     o2ID,
		ClientSecret: o2Secret,
		Scopes:       []string{"offline_access", "accounting.transactions"},
	}
	start := time.Now()
	got, err := s.Exchange(context.Background(), tok)
	require.NoError(t, err)
	assert.Equal(t, "xero.jwt", got.AccessToken)
	assert.EqualValues(t, 1800, got.ExpiresIn)
	assert.WithinRange(t, got.Expiry, start.Add(1800*time.Second), time.Now().Add(1800*time.Second))
	assert.Equal(t, "a3ef-tenant", got.Extra("xero_tenant_id"))

	require.Len(t, rec.reqs, 1)
	r := rec.reqs[0]
	assert.Equal(t, "/oauth/migrate?tenantType=ORGANISATION", strings.TrimPrefix(r.URI, srv.URL))
	var body map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.Body), &body))
	assert.Equal(t, map[string]string{"scope": "offline_access accounting.transactions", "client_id": o2ID, "client_secret": o2Secret}, body)
	assert.Contains(t, r.Headers["Authorization"], `oauth_signature_method="RSA-SHA1"`)

	c := r
	c.URI = strings.Replace(r.URI, "ORGANISATION", "PRACTICE", 1)
	reqs := append([]wireRequest{r, c}, tampered(r)...)
	res := oauthlibVerify(t, tok, pubPEM, reqs)
	assert.Equal(t, true, res[0]["valid"], "oauthlib: %v", res[0])
	for i, v := range res[1:] {
		assert.Equal(t, false, v["valid"], "tampered request %d: %v", i, v)
	}
}

// A form body, renamed fields, another method: the generic shape, whose
// form fields are signed too.
func TestSignedFormGeneric(t *testing.T) {
	t.Parallel()
	tok := oauth1.Credentials{Token: "partner-token", Secret: "partner-token-SECRET-7"}
	rec, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		writeJSON(w, 200, map[string]any{"access_token": "at", "refresh_token": "rt", "expires_in": 86400, "token_type": "bearer"})
	})
	s := &exchange.Signed{
		Config:       &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Signer: oauth1.HMAC{Hash: 5}}, // crypto.SHA256
		URL:          srv.URL + "/partner/oauth2/migrate",
		Method:       http.MethodPut,
		Body:         exchange.Form,
		ClientID:     o2ID,
		ClientSecret: o2Secret,
		Scopes:       []string{"a", "b"},
		Names:        exchange.Names{ClientID: "oauth2_client_id", ClientSecret: "oauth2_client_secret", Scope: "requested_scope"},
		Extra:        map[string]string{"grant": "oauth1 migration"},
	}
	_, err := s.Exchange(context.Background(), tok)
	require.NoError(t, err)
	require.Len(t, rec.reqs, 1)
	r := rec.reqs[0]
	assert.Equal(t, "PUT", r.HTTPMethod)
	assert.Equal(t, "application/x-www-form-urlencoded", r.Headers["Content-Type"])
	form, err := url.ParseQuery(r.Body)
	require.NoError(t, err)
	assert.Equal(t, url.Values{"oauth2_client_id": {o2ID}, "oauth2_client_secret": {o2Secret}, "requested_scope": {"a b"}, "grant": {"oauth1 migration"}}, form)
	assert.Contains(t, r.Headers["Authorization"], `oauth_signature_method="HMAC-SHA256"`)
	d := r
	d.Body = strings.Replace(r.Body, "requested_scope=a", "requested_scope=c", 1)
	res := oauthlibVerify(t, tok, "", []wireRequest{r, d})
	assert.Equal(t, true, res[0]["valid"], "oauthlib: %v", res[0])
	assert.Equal(t, false, res[1]["valid"], "a changed form field: %v", res[1])

	// "-" leaves a field out.
	s.Names.Scope = "-"
	_, err = s.Exchange(context.Background(), tok)
	require.NoError(t, err)
	form, _ = url.ParseQuery(rec.reqs[1].Body)
	assert.False(t, form.Has("requested_scope"))
	assert.False(t, form.Has("scope"))
}

func TestSignedRefusalScrubbed(t *testing.T) {
	tok := oauth1.Credentials{Token: "qyprd-intuit-token", Secret: "intuit-token-SECRET-5"}
	_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":"invalid_client","error_description":"got %s and %s and %s; header %s"}`,
			tok.Secret, consumerSecret, o2Secret, strings.ReplaceAll(r.Header.Get("Authorization"), `"`, `\"`))
	})
	s := &exchange.Signed{
		Config: &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Signer: oauth1.Plaintext{}, AllowInsecurePlaintext: true},
		URL:    srv.URL + "/v2/oauth2/tokens/migrate", ClientID: o2ID, ClientSecret: o2Secret,
	}
	_, err := s.Exchange(context.Background(), tok)
	var xe *exchange.Error
	require.ErrorAs(t, err, &xe)
	assert.Equal(t, "invalid_client", xe.Code)
	out := fmt.Sprintf("%v %+v %#v", err, xe, xe)
	for _, secret := range []string{tok.Secret, consumerSecret, o2Secret} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, "REDACTED")
}

func TestSignedPrintsRedacted(t *testing.T) {
	s := &exchange.Signed{Config: &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}, ClientID: o2ID, ClientSecret: o2Secret}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "s", s)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "s", *s)
	out := fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s) + logged.String()
	assert.NotContains(t, out, o2Secret)
	assert.NotContains(t, out, consumerSecret)
	assert.Contains(t, out, consumerKey)
}

func TestSignedBadInput(t *testing.T) {
	tok := oauth1.Credentials{Token: "t", Secret: "s"}
	for _, tc := range []struct {
		s    exchange.Signed
		want string
	}{
		{exchange.Signed{URL: "http://127.0.0.1:1/m"}, "no Config"},
		{exchange.Signed{Config: &oauth1.Config{ConsumerKey: "k"}}, "no URL"},
		{exchange.Signed{Config: &oauth1.Config{ConsumerKey: "k"}, URL: "http://127.0.0.1:1/m", Extra: map[string]string{"client_secret": "x"}}, "Extra field"},
		{exchange.Signed{Config: &oauth1.Config{ConsumerKey: "k"}, URL: "http://127.0.0.1:1/m", Body: 7}, "unknown body Format"},
		{exchange.Signed{Config: &oauth1.Config{ConsumerKey: "k"}, URL: "http://127.0.0.1:1/m", Method: "BAD METHOD"}, "bad URL or Method"},
	} {
		_, err := tc.s.Exchange(context.Background(), tok)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := (&exchange.Signed{Config: &oauth1.Config{ConsumerKey: "k"}, URL: "http://127.0.0.1:1/m"}).Exchange(context.Background(), oauth1.Credentials{})
	assert.ErrorContains(t, err, "no token")
}
