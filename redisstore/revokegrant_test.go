package redisstore_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// TestRevokeGrantApprovedTemporary: alice approves a flow on one instance
// and disconnects the client on another before the client exchanged the
// temporary credentials: the exchange, on a third, is refused with
// token_revoked and stores no token; bob's flow for the same client goes
// through.
func TestRevokeGrantApprovedTemporary(t *testing.T) {
	addr := sharedAddr(t)
	testRevokeGrantApprovedTemporary(t, func() redis.UniversalClient { return newClient(t, addr) })
}

// testRevokeGrantApprovedTemporary is TestRevokeGrantApprovedTemporary with the clients newClient returns.
func testRevokeGrantApprovedTemporary(t *testing.T, newClient func() redis.UniversalClient) {
	prefix := testPrefix(t)
	p0, p1, p2 := newProvider(newClient(), prefix), newProvider(newClient(), prefix), newProvider(newClient(), prefix)
	ctx := context.Background()
	approve := func(user string) (*oauth1.Credentials, string) {
		rec := post(t, p0.RequestTokenHandler(), "http://provider.example/request_token", nil,
			oauth1.Param{Name: "oauth_callback", Value: "oob"})
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		form, err := url.ParseQuery(rec.Body.String())
		require.NoError(t, err)
		temp := &oauth1.Credentials{Token: form.Get("oauth_token"), Secret: form.Get("oauth_token_secret")}
		_, code, err := p1.Authorize(ctx, server.Approval{Token: temp.Token, User: user})
		require.NoError(t, err)
		return temp, code
	}
	alice, aliceCode := approve("alice")
	bob, bobCode := approve("bob")

	n, err := p2.RevokeGrant(ctx, client.ConsumerKey, "alice")
	assert.NoError(t, err)
	assert.Equal(t, 1, n, "credentials revoked: alice's approved temporary credentials")

	rec := post(t, p0.AccessTokenHandler(), "http://provider.example/access_token", alice, oauth1.Param{Name: "oauth_verifier", Value: aliceCode})
	assert.Equal(t, http.StatusUnauthorized, rec.Code, rec.Body.String())
	assert.Equal(t, "oauth_problem=token_revoked", rec.Body.String())
	assert.Empty(t, allKeys(t, newClient(), prefix+"token:*"), "token credentials stored")

	rec = post(t, p0.AccessTokenHandler(), "http://provider.example/access_token", bob, oauth1.Param{Name: "oauth_verifier", Value: bobCode})
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}
