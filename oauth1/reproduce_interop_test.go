package oauth1_test

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/server"
)

// TestInteropReproduce measures the Verifier's base-string check
// (DiagnoseKeys, basestring.Reproduce) on requests that Python oauthlib
// signs wrongly because of how it is called, as real programs call it:
//
//   - with the URL of the other scheme than the request travels by (an
//     http URL configured for an https API, or a client behind a proxy
//     that terminates TLS): oauthlib signs the URL it is given;
//   - with the URL's path decoded, as a program that builds URLs from
//     text passes them, while its HTTP library sends the path encoded:
//     oauthlib's base_string_uri does not encode the path again.
//
// The right secrets are used: each refusal must be named, from the
// signature alone, with the cause that the misuse makes.
func TestInteropReproduce(t *testing.T) {
	py := interopPython(t)
	_, _, pubPEM := interopKeys(t)
	job := interopJob(pubPEM)
	type misuse struct {
		c          interopCase
		signedURL  string
		wantCauses []string
	}
	var ms []misuse
	for _, c := range interopCases {
		if c.oauthlibCannotSign != "" || !strings.HasPrefix(c.method, "HMAC-") {
			continue
		}
		u, err := url.Parse(c.url)
		require.NoError(t, err)
		other := *u
		other.Scheme = map[string]string{"http": "https", "https": "http"}[u.Scheme]
		want := []string{"another scheme"}
		if p := u.Port(); p == "443" || p == "80" {
			want = append(want, "default port")
		}
		ms = append(ms, misuse{c, other.String(), want})
		if u.RawPath != "" && u.RawPath != u.Path {
			decoded := u.Scheme + "://" + u.Host + u.Path
			if u.RawQuery != "" {
				decoded += "?" + u.RawQuery
			}
			ms = append(ms, misuse{c, decoded, []string{"path decoded"}})
		}
	}
	for _, m := range ms {
		client, tok := m.c.creds()
		s := pySign{
			ClientKey: client.Token, ClientSecret: client.Secret, Method: m.c.method,
			Type:  map[oauth1.Delivery]string{oauth1.AuthHeader: "header", oauth1.QueryString: "query", oauth1.FormBody: "body"}[m.c.delivery],
			Realm: m.c.realm, Nonce: m.c.nonce("misuse " + strconv.Itoa(len(job.Sign))), Timestamp: strconv.Itoa(interopTimestamp),
			HTTPMethod: m.c.verb, URI: m.signedURL, ContentType: m.c.ctype, Body: m.c.body, Callback: m.c.callback,
		}
		if tok != nil {
			s.Token, s.TokenSecret = tok.Token, tok.Secret
		}
		job.Sign = append(job.Sign, s)
	}
	res := runOauthlib(t, py, job)
	reproduced := 0
	for i, m := range ms {
		w := res.Sign[i]
		require.Empty(t, w.Error, "%s: oauthlib could not sign", m.c.name)
		w.HTTPMethod = m.c.verb
		// The request travels by the case's URL, with the query oauthlib
		// wrote (it carries the protocol parameters for query delivery).
		sent, _ := url.Parse(m.c.url)
		signedAs, err := url.Parse(w.URI)
		require.NoError(t, err)
		sent.RawQuery = signedAs.RawQuery
		w.URI = sent.String()
		v := interopVerifier(nil)
		v.DiagnoseKeys = true
		_, err = v.Verify(serverRequest(t, w))
		var pe *server.ProblemError
		require.True(t, errors.As(err, &pe), "%s signed as %s: Verify = %v", m.c.name, m.signedURL, err)
		ok := pe.KeyMistake.Kind == basestring.BaseStringDiffers
		for _, c := range m.wantCauses {
			ok = ok && strings.Contains(pe.KeyMistake.Cause, c)
		}
		if assert.True(t, ok, "%s signed as %s: KeyMistake %v", m.c.name, m.signedURL, pe.KeyMistake) {
			reproduced++
		}
	}
	t.Logf("the base-string check named %d of %d requests oauthlib signed wrongly", reproduced, len(ms))
}
