package exchange_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/exchange"
)

// usedTransport counts the requests it sends.
type usedTransport struct {
	n  atomic.Int32
	tr *http.Transport
}

func newUsedTransport(t *testing.T) *usedTransport {
	u := &usedTransport{tr: &http.Transport{}}
	t.Cleanup(u.tr.CloseIdleConnections)
	return u
}

func (u *usedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	u.n.Add(1)
	return u.tr.RoundTrip(r)
}

// An HTTP client passed in the context the x/oauth2 way
// (oauth2.HTTPClient) sends the exchange and the refreshes when the
// exchange has no client of its own (issue 40, item 12); one of its own
// comes first. The caller's client is not changed: its redirect policy is
// replaced on a copy.
func TestContextHTTPClient(t *testing.T) {
	t.Run("TokenExchange", func(t *testing.T) {
		x, srv := newXStandIn(t, xID, xSecret, xUsers())
		ctxTr := newUsedTransport(t)
		ctxClient := &http.Client{Transport: ctxTr}
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, ctxClient)
		e := exchange.X(xID, xSecret)
		e.TokenURL = srv.URL + "/2/oauth2/token"

		tok, err := e.Exchange(ctx, alice)
		require.NoError(t, err)
		assert.EqualValues(t, 1, ctxTr.n.Load(), "the exchange went through the context's client")

		expired := *tok
		expired.Expiry = time.Now().Add(-time.Minute)
		_, err = e.TokenSource(ctx, &expired).Token()
		require.NoError(t, err)
		assert.EqualValues(t, 2, ctxTr.n.Load(), "the refresh went through the context's client")
		assert.Equal(t, 1, x.refreshes)
		assert.Nil(t, ctxClient.CheckRedirect, "the caller's client is not changed")

		own := newUsedTransport(t)
		e.HTTPClient = &http.Client{Transport: own}
		_, err = e.Exchange(ctx, alice)
		require.NoError(t, err)
		assert.EqualValues(t, 1, own.n.Load(), "HTTPClient comes first")
		assert.EqualValues(t, 2, ctxTr.n.Load(), "the context's client is not used when HTTPClient is set")
	})

	t.Run("Signed", func(t *testing.T) {
		_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			writeJSON(w, 200, map[string]any{"access_token": "at-" + r.URL.Path, "refresh_token": "rt", "token_type": "bearer", "expires_in": 3600})
		})
		ctxTr := newUsedTransport(t)
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: ctxTr})
		s := &exchange.Signed{
			Config:   &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret},
			URL:      srv.URL + "/migrate",
			ClientID: o2ID, ClientSecret: o2Secret,
			RefreshURL: srv.URL + "/token",
		}
		tok, err := s.Exchange(ctx, oauth1.Credentials{Token: "t", Secret: "token-SECRET"})
		require.NoError(t, err)
		assert.Equal(t, "at-/migrate", tok.AccessToken)
		assert.EqualValues(t, 1, ctxTr.n.Load(), "the exchange went through the context's client")

		tok.Expiry = time.Now().Add(-time.Minute)
		got, err := s.TokenSource(ctx, tok).Token()
		require.NoError(t, err)
		assert.Equal(t, "at-/token", got.AccessToken)
		assert.EqualValues(t, 2, ctxTr.n.Load(), "the refresh went through the context's client")
	})

	t.Run("redirect not followed", func(t *testing.T) {
		_, srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		})
		ctxTr := newUsedTransport(t)
		ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: ctxTr})
		e := exchange.X(xID, xSecret)
		e.TokenURL = srv.URL + "/2/oauth2/token"
		_, err := e.Exchange(ctx, alice)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "redirected")
		assert.EqualValues(t, 1, ctxTr.n.Load(), "one request, the redirect not followed")
	})
}
