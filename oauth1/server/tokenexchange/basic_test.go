package tokenexchange

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// basicHeader is an Authorization header of HTTP Basic with id and secret
// exactly as given: no encoding.
func basicHeader(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
}

// TestBasicSecretForms: a client secret with '+', '%' or ':' is accepted
// HTTP Basic form-encoded, as RFC 6749 §2.3.1 says (golang.org/x/oauth2),
// and as sent raw (Python's requests, Authlib's client_secret_basic). The
// encoded forms are written out by hand, not computed.
func TestBasicSecretForms(t *testing.T) {
	for _, tc := range []struct {
		name, id, secret string // as registered
		sentID, sent     string // in the header
	}{
		{"plus raw", clientID, "se+cret", clientID, "se+cret"},
		{"plus encoded", clientID, "se+cret", clientID, "se%2Bcret"},
		{"%2B raw", clientID, "se%2Bcret", clientID, "se%2Bcret"},
		{"%2B encoded", clientID, "se%2Bcret", clientID, "se%252Bcret"},
		{"colon raw", clientID, "se:cret", clientID, "se:cret"},
		{"colon encoded", clientID, "se:cret", clientID, "se%3Acret"},
		{"percent raw", clientID, "se%cret", clientID, "se%cret"},
		{"percent encoded", clientID, "se%cret", clientID, "se%25cret"},
		{"space encoded", clientID, "se cret", clientID, "se+cret"},
		{"all raw", clientID, "a+b%2Bc:d%e f", clientID, "a+b%2Bc:d%e f"},
		{"all encoded", clientID, "a+b%2Bc:d%e f", clientID, "a%2Bb%252Bc%3Ad%25e+f"},
		{"id with plus raw", "app+1", "se+cret", "app+1", "se+cret"},
		{"id with plus encoded", "app+1", "se+cret", "app%2B1", "se%2Bcret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.h.Clients = clientMap{tc.id: {ID: tc.id, Secret: tc.secret, ConsumerKey: consumerKey}}
			r := post(secretForm(), "", "")
			r.Header.Set("Authorization", basicHeader(tc.sentID, tc.sent))
			a := serve(t, f.h, r)
			wantToken(t, a, "at-1", "read write")
			require.Equal(t, tc.id, f.grants[0].ClientID)
		})
	}
}

// TestBasicSecretRefused: a secret that matches in neither form is
// refused, the answer says which forms were tried and holds no secret,
// and both forms were compared even when one did match.
func TestBasicSecretRefused(t *testing.T) {
	const registered = "a+b%2Bc:d%e f"
	old := equalSecret
	t.Cleanup(func() { equalSecret = old })
	var compared []string
	equalSecret = func(got, want string) bool {
		if want == registered {
			compared = append(compared, got)
		}
		return old(got, want)
	}
	for _, tc := range []struct {
		sent     string
		ok       bool
		compared []string // form-decoded, then as sent
	}{
		{sent: "a+b%2Bc:d%e f", ok: true, compared: []string{"a+b%2Bc:d%e f", "a+b%2Bc:d%e f"}}, // "%e " does not decode
		{sent: "a%2Bb%252Bc%3Ad%25e+f", ok: true, compared: []string{registered, "a%2Bb%252Bc%3Ad%25e+f"}},
		{sent: "a+b%2Bc:d%25e f", compared: []string{"a b+c:d%e f", "a+b%2Bc:d%25e f"}},
		{sent: "wrong+SECRET", compared: []string{"wrong SECRET", "wrong+SECRET"}},
	} {
		t.Run(tc.sent, func(t *testing.T) {
			f := newFixture(t)
			f.h.Clients = clientMap{clientID: {ID: clientID, Secret: registered, ConsumerKey: consumerKey}}
			r := post(secretForm(), "", "")
			r.Header.Set("Authorization", basicHeader(clientID, tc.sent))
			compared = nil
			a := serve(t, f.h, r)
			require.Equal(t, tc.compared, compared)
			if tc.ok {
				require.Equal(t, http.StatusOK, a.status, a.body)
				return
			}
			require.Equal(t, http.StatusUnauthorized, a.status)
			require.Equal(t, "invalid_client", a.fields["error"])
			require.Equal(t, "client authentication failed: the client is unknown, or its secret matches neither form-decoded (RFC 6749 section 2.3.1) nor as sent", a.fields["error_description"])
			require.Contains(t, a.header.Get("WWW-Authenticate"), "Basic ")
			o := f.lastObserved(t)
			require.ErrorIs(t, o.err, errSecretMismatch)
			for _, s := range []string{registered, tc.sent, "c:d", "%2Bc"} {
				require.NotContains(t, a.body, s)
				require.NotContains(t, o.err.Error(), s)
			}
		})
	}

	// An unknown client gets the same description: it tells nothing of
	// which clients exist.
	f := newFixture(t)
	r := post(secretForm(), "", "")
	r.Header.Set("Authorization", basicHeader("nobody", "x"))
	a := serve(t, f.h, r)
	require.Equal(t, http.StatusUnauthorized, a.status)
	require.Equal(t, "client authentication failed: the client is unknown, or its secret matches neither form-decoded (RFC 6749 section 2.3.1) nor as sent", a.fields["error_description"])
}

// TestBasicBodyClientID: a client_id in the body beside Basic may repeat
// the id in either form.
func TestBasicBodyClientID(t *testing.T) {
	for _, bodyID := range []string{"app+1", "app 1"} {
		f := newFixture(t)
		f.h.Clients = clientMap{"app 1": {ID: "app 1", Secret: "se+cret", ConsumerKey: consumerKey}}
		r := post(secretForm("client_id", bodyID), "", "")
		r.Header.Set("Authorization", basicHeader("app+1", "se+cret"))
		a := serve(t, f.h, r)
		require.Equal(t, http.StatusOK, a.status, "%s: %s", bodyID, a.body)
	}
}
