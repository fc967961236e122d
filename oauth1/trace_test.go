package oauth1_test

import (
	"context"
	"crypto"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
)

// traceLog collects what a Trace's Signed hook is given.
type traceLog struct {
	mu    sync.Mutex
	infos []oauth1.SignInfo
}

func (l *traceLog) ctx(parent context.Context) context.Context {
	return oauth1.WithTrace(parent, &oauth1.Trace{Signed: func(i oauth1.SignInfo) {
		l.mu.Lock()
		l.infos = append(l.infos, i)
		l.mu.Unlock()
	}})
}

func (l *traceLog) all() []oauth1.SignInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]oauth1.SignInfo(nil), l.infos...)
}

// The hook's base string is the one BaseString gives for the same request,
// time and nonce, whatever the delivery.
func TestTraceBaseStringIsBaseString(t *testing.T) {
	at := time.Unix(1318622958, 0)
	for _, d := range []oauth1.Delivery{oauth1.AuthHeader, oauth1.QueryString, oauth1.FormBody} {
		t.Run(deliveryName(d), func(t *testing.T) {
			cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret, Delivery: d, BodyHash: 0,
				Now: func() time.Time { return at }, Nonce: func() string { return "nonce" },
				Params: []oauth1.Param{{Name: "xoauth_requestor_id", Value: "jane"}}}
			newReq := func(ctx context.Context) *http.Request {
				r, err := http.NewRequestWithContext(ctx, "POST", "https://user:pass@api.example.com/a%20b?q=1#frag",
					strings.NewReader("status=hello%20world"))
				require.NoError(t, err)
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				return r
			}
			want, err := cfg.BaseString(newReq(context.Background()), &rfcToken, at, "nonce", oauth1.Param{Name: "oauth_verifier", Value: "v"})
			require.NoError(t, err)

			var log traceLog
			r := newReq(log.ctx(context.Background()))
			require.NoError(t, cfg.SignAt(r, &rfcToken, at, "nonce", oauth1.Param{Name: "oauth_verifier", Value: "v"}))
			infos := log.all()
			require.Len(t, infos, 1)
			got := infos[0]
			assert.Equal(t, want, got.BaseString)
			assert.Equal(t, "POST", got.Method)
			assert.Equal(t, "https://api.example.com/a%20b?q=1#frag", got.URL, "no user info, no protocol parameters")
			var names []string
			for _, p := range got.Params {
				names = append(names, p.Name+"="+p.Value)
			}
			assert.Equal(t, []string{
				"oauth_consumer_key=" + rfcClient.Token, "oauth_nonce=nonce", "oauth_signature_method=HMAC-SHA1",
				"oauth_timestamp=1318622958", "oauth_token=" + rfcToken.Token, "oauth_verifier=v", "oauth_version=1.0",
				"xoauth_requestor_id=jane",
			}, names)

			// Sign, which reads Now and Nonce, reports the same.
			r = newReq(log.ctx(context.Background()))
			require.NoError(t, cfg.Sign(r, &rfcToken))
			want, err = cfg.BaseString(newReq(context.Background()), &rfcToken, at, "nonce")
			require.NoError(t, err)
			infos = log.all()
			require.Len(t, infos, 2)
			assert.Equal(t, want, infos[1].BaseString)
		})
	}
}

// The Transport signs with the request's context, so a Client user sees
// every attempt; the provider computed the same base string from what
// arrived.
func TestTraceTransport(t *testing.T) {
	srv := oauth1test.NewServer(rfcClient.Token, rfcClient.Secret)
	defer srv.Close()
	tok := srv.IssueToken()
	cfg := &oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret}
	var log traceLog
	ctx := log.ctx(context.Background())
	client := cfg.Client(&tok)
	for i := range 2 {
		req, err := http.NewRequestWithContext(ctx, "GET", srv.ResourceURL+"?i="+fmt.Sprint(i), nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		infos := log.all()
		require.Len(t, infos, i+1)
		assert.Equal(t, srv.LastBaseString(), infos[i].BaseString)
	}
}

func TestTraceTokenRequests(t *testing.T) {
	srv := oauth1test.NewServer(rfcClient.Token, rfcClient.Secret)
	defer srv.Close()
	cfg := &oauth1.Config{ConsumerKey: srv.ConsumerKey, ConsumerSecret: srv.ConsumerSecret, Endpoint: srv.Endpoint}
	var log traceLog
	ctx := log.ctx(context.Background())
	res, err := cfg.RequestToken(ctx)
	require.NoError(t, err)
	temp := res.Credentials
	verifier, err := srv.Authorize(ctx, cfg.AuthorizationURL(temp))
	require.NoError(t, err)
	_, err = cfg.AccessToken(ctx, temp, verifier)
	require.NoError(t, err)
	infos := log.all()
	require.Len(t, infos, 2)
	for i, rec := range srv.Records() {
		assert.Equal(t, rec.BaseString, infos[i].BaseString)
	}
	assert.Contains(t, infos[0].Params, oauth1.Param{Name: "oauth_callback", Value: "oob"})
	assert.Contains(t, infos[1].Params, oauth1.Param{Name: "oauth_verifier", Value: verifier})
}

// Nothing a hook is given holds a secret, not even with PLAINTEXT, whose
// signature is made of them.
func TestTraceHoldsNoSecret(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret, Signer: oauth1.Plaintext{}}
	var log traceLog
	r, _ := http.NewRequestWithContext(log.ctx(context.Background()), "GET", "https://api.example.com/", nil)
	require.NoError(t, cfg.Sign(r, &rfcToken))
	require.Contains(t, r.Header.Get("Authorization"), rfcToken.Secret, "PLAINTEXT sends the secrets")
	infos := log.all()
	require.Len(t, infos, 1)
	for _, format := range []string{"%v", "%+v", "%#v"} {
		s := fmt.Sprintf(format, infos[0])
		assert.NotContains(t, s, rfcClient.Secret)
		assert.NotContains(t, s, rfcToken.Secret)
		assert.NotContains(t, s, "oauth_signature=")
	}
}

func TestTraceNotCalledOnFailure(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret}
	var log traceLog
	r, _ := http.NewRequestWithContext(log.ctx(context.Background()), "GET", "https://api.example.com/?a=%zz", nil)
	require.Error(t, cfg.Sign(r, nil))
	assert.Empty(t, log.all())
}

func TestWithTraceComposes(t *testing.T) {
	var calls []string
	ctx := oauth1.WithTrace(context.Background(), &oauth1.Trace{Signed: func(oauth1.SignInfo) { calls = append(calls, "outer") }})
	ctx = oauth1.WithTrace(ctx, &oauth1.Trace{}) // no hooks: changes nothing
	ctx = oauth1.WithTrace(ctx, &oauth1.Trace{Signed: func(oauth1.SignInfo) { calls = append(calls, "inner") }})
	r, _ := http.NewRequestWithContext(ctx, "GET", "https://api.example.com/", nil)
	require.NoError(t, (&oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret}).Sign(r, nil))
	assert.Equal(t, []string{"inner", "outer"}, calls)
}

// A trace changes nothing in what is sent: the same header, and a body
// that signing had to read (to hash it) still reads in full.
func TestTraceChangesNothing(t *testing.T) {
	cfg := &oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret, BodyHash: crypto.SHA256,
		Now: func() time.Time { return time.Unix(1, 0) }, Nonce: func() string { return "n" }}
	newReq := func(ctx context.Context) *http.Request {
		// No GetBody: signing must buffer the body to hash it.
		r, err := http.NewRequestWithContext(ctx, "POST", "https://api.example.com/", io.NopCloser(strings.NewReader(`{"a":1}`)))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	plain := newReq(context.Background())
	require.NoError(t, cfg.Sign(plain, nil))
	var log traceLog
	traced := newReq(log.ctx(context.Background()))
	require.NoError(t, cfg.Sign(traced, nil))
	assert.Equal(t, plain.Header.Get("Authorization"), traced.Header.Get("Authorization"))
	body, err := io.ReadAll(traced.Body)
	require.NoError(t, err)
	assert.Equal(t, `{"a":1}`, string(body))
	require.Len(t, log.all(), 1)
	assert.Contains(t, log.all()[0].BaseString, "oauth_body_hash")
}

// The Signed hook reports a key with an empty part, as the oauth1 command
// warns of it: an empty consumer secret, and a token without its secret,
// for the methods that use the secrets, and never for RSA.
func TestTraceEmptySecrets(t *testing.T) {
	at := time.Unix(1318622958, 0)
	for _, tt := range []struct {
		name                string
		secret              string
		signer              oauth1.Signer
		tok                 *oauth1.Credentials
		wantConsumer, wantT bool
	}{
		{"full key", "cs", nil, &oauth1.Credentials{Token: "t", Secret: "ts"}, false, false},
		{"empty consumer secret", "", nil, nil, true, false},
		{"token without secret", "cs", nil, &oauth1.Credentials{Token: "t"}, false, true},
		{"both, PLAINTEXT", "", oauth1.Plaintext{}, &oauth1.Credentials{Token: "t"}, true, true},
		{"empty token and secret", "cs", nil, &oauth1.Credentials{}, false, false},
		{"RSA", "", oauth1.RSA{Key: rsaKey}, &oauth1.Credentials{Token: "t"}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var log traceLog
			cfg := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: tt.secret, Signer: tt.signer}
			r, err := http.NewRequestWithContext(log.ctx(context.Background()), "GET", "https://api.example.com/r", nil)
			require.NoError(t, err)
			require.NoError(t, cfg.SignAt(r, tt.tok, at, "n"))
			infos := log.all()
			require.Len(t, infos, 1)
			assert.Equal(t, tt.wantConsumer, infos[0].EmptyConsumerSecret, "EmptyConsumerSecret")
			assert.Equal(t, tt.wantT, infos[0].EmptyTokenSecret, "EmptyTokenSecret")
		})
	}
}
