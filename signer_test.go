// The conformance suite: every vector in testdata/vectors is a request with
// expected values taken from a published source (the X API documentation,
// RFC 5849) or computed by an independent tool (openssl), as each file's
// "# source:" and "# command:" lines say. Nothing in this repository
// generates those files.
package countersign_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

// A vector is one file of testdata/vectors, read by internal/vectors.
type vector struct{ vectors.Vector }

func readVectors(t *testing.T) []vector {
	t.Helper()
	all, err := vectors.All()
	require.NoError(t, err)
	require.NotEmpty(t, all, "no vectors in testdata/vectors")
	var vs []vector
	for _, v := range all {
		if !v.Has("source") {
			assert.Contains(t, readFile(t, v.Path), "# source:", "%s: every vector names its source", v.Name)
		}
		vs = append(vs, vector{v})
	}
	return vs
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}

var hashes = map[string]crypto.Hash{"SHA1": crypto.SHA1, "SHA256": crypto.SHA256, "SHA512": crypto.SHA512}

func (v vector) config(t *testing.T) *oauth1.Config {
	t.Helper()
	c := &oauth1.Config{
		ConsumerKey: v.Get("consumer-key"), ConsumerSecret: v.Get("consumer-secret"),
		Realm:       v.Get("realm"),
		OmitVersion: v.Get("version") == "",
	}
	method, hash, _ := strings.Cut(v.Get("signature-method"), "-")
	switch method {
	case "HMAC":
		c.Signer = oauth1.HMAC{Hash: hashes[hash]}
	case "RSA":
		key, err := rsakey.Parse([]byte(readFile(t, v.Get("private-key-file"))), "")
		require.NoError(t, err, "%s: private-key-file", v.Name)
		c.Signer = oauth1.RSA{Key: key, Hash: hashes[hash]}
	case "PLAINTEXT":
		c.Signer = oauth1.Plaintext{}
	default:
		require.FailNow(t, "unknown signature-method", "%s: %q", v.Name, v.Get("signature-method"))
	}
	return c
}

func (v vector) request(t *testing.T) *http.Request {
	t.Helper()
	// A nil io.Reader, not a nil *strings.Reader, for a request without a
	// body: NewRequest would otherwise see a non-nil Body.
	var body io.Reader
	if v.Get("body") != "" {
		body = strings.NewReader(v.Get("body"))
	}
	r, err := http.NewRequest(v.Get("method"), v.Get("url"), body)
	require.NoError(t, err, v.Name)
	if ct := v.Get("content-type"); ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

func (v vector) token() *oauth1.Credentials {
	if !v.Has("token") && !v.Has("token-secret") {
		return nil
	}
	return &oauth1.Credentials{Token: v.Get("token"), Secret: v.Get("token-secret")}
}

func (v vector) time(t *testing.T) time.Time {
	t.Helper()
	ts, err := strconv.ParseInt(v.Get("timestamp"), 10, 64)
	require.NoError(t, err, "%s: timestamp", v.Name)
	return time.Unix(ts, 0)
}

func (v vector) extra() []oauth1.Param {
	var ps []oauth1.Param
	if cb := v.Get("callback"); cb != "" {
		ps = append(ps, oauth1.Param{Name: "oauth_callback", Value: cb})
	}
	if vf := v.Get("verifier"); vf != "" {
		ps = append(ps, oauth1.Param{Name: "oauth_verifier", Value: vf})
	}
	return ps
}

var sigParam = regexp.MustCompile(`oauth_signature="([^"]*)"`)

func TestConformance(t *testing.T) {
	for _, v := range readVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			c, tok, ts := v.config(t), v.token(), v.time(t)

			base, err := c.BaseString(v.request(t), tok, ts, v.Get("nonce"), v.extra()...)
			require.NoError(t, err, "BaseString")
			if want := v.Get("base-string"); want != "" {
				// basestring.Diff names the parameter that differs, which
				// two long lines printed in full would leave to the reader.
				if d := basestring.Format(basestring.Diff(want, base)); d != "" {
					t.Errorf("BaseString: %s", d)
				}
			}
			if want := v.Get("parameter-string"); want != "" {
				// The third part of the base string is the encoded parameter string.
				parts := strings.Split(base, "&")
				got, err := percent.Decode(parts[len(parts)-1])
				require.NoError(t, err, "parameter string")
				assert.Equal(t, want, got, "parameter string")
			}
			if key := v.Get("signing-key"); key != "" && v.Get("base-string") != "" {
				// Check the published key against the published base
				// string and signature with crypto/hmac alone.
				mac := hmac.New(sha1.New, []byte(key))
				mac.Write([]byte(v.Get("base-string")))
				got := base64.StdEncoding.EncodeToString(mac.Sum(nil))
				assert.Equal(t, v.Get("signature"), got, "HMAC-SHA1(signing-key, base-string)")
			}

			r := v.request(t)
			require.NoError(t, c.SignAt(r, tok, ts, v.Get("nonce"), v.extra()...), "SignAt")
			auth := r.Header.Get("Authorization")
			if want := v.Get("authorization"); want != "" {
				assert.Equal(t, want, auth, "Authorization header")
			}
			if want := v.Get("signature"); want != "" {
				m := sigParam.FindStringSubmatch(auth)
				require.NotNil(t, m, "no oauth_signature in %q", auth)
				got, err := percent.Decode(m[1])
				require.NoError(t, err, "oauth_signature")
				assert.Equal(t, want, got, "oauth_signature")
				checkDeliveries(t, v, want)
			}
		})
	}
}

// checkDeliveries signs the vector's request with query and form-body
// delivery and checks that the wire form carries the same signature and
// every protocol parameter exactly once.
func checkDeliveries(t *testing.T, v vector, wantSig string) {
	t.Helper()
	for _, d := range []oauth1.Delivery{oauth1.QueryString, oauth1.FormBody} {
		if d == oauth1.FormBody && v.Get("method") == "GET" {
			continue
		}
		t.Run(map[oauth1.Delivery]string{oauth1.QueryString: "query", oauth1.FormBody: "body"}[d], func(t *testing.T) {
			c := v.config(t)
			c.Delivery = d
			r := v.request(t)
			require.NoError(t, c.SignAt(r, v.token(), v.time(t), v.Get("nonce"), v.extra()...), "SignAt")
			assert.Empty(t, r.Header.Get("Authorization"), "Authorization header")
			wire := r.URL.RawQuery
			if d == oauth1.FormBody {
				b, err := r.GetBody()
				require.NoError(t, err, "GetBody")
				body, err := io.ReadAll(b)
				require.NoError(t, err, "reading the body")
				wire = string(body)
				assert.Equal(t, int64(len(wire)), r.ContentLength, "ContentLength")
			}
			vals, err := url.ParseQuery(wire)
			require.NoError(t, err, "wire form %q", wire)
			assert.Equal(t, []string{wantSig}, vals["oauth_signature"], "oauth_signature in %q", wire)
			want := []string{"oauth_consumer_key", "oauth_nonce", "oauth_signature", "oauth_signature_method", "oauth_timestamp"}
			if v.token() != nil {
				want = append(want, "oauth_token")
			}
			for _, name := range want {
				assert.Len(t, vals[name], 1, "%s in %q", name, wire)
			}
			for name, got := range vals {
				if strings.HasPrefix(name, "oauth_") {
					assert.Len(t, got, 1, "%s in %q", name, wire)
				}
			}
			assert.Equal(t, []string{v.Get("nonce")}, vals["oauth_nonce"], "oauth_nonce in %q", wire)
		})
	}
}
