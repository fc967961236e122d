package oauth1_test

// Interoperability with Python oauthlib, an implementation nobody here
// wrote, in both directions: oauthlib's Client signs and the Verifier
// checks, countersign's Config signs and oauthlib's SignatureOnlyEndpoint
// checks, and tampered copies of either are refused by both.
//
// The oauthlib side is testdata/interop/oauthlib_helper.py, run once per
// direction with JSON on stdin and stdout. It needs Debian's
// python3-oauthlib, python3-jwt and python3-cryptography; without them the
// tests skip, unless COUNTERSIGN_REQUIRE_INTEROP=1 (which .ci/run sets
// once it has installed them) turns the skip into a failure.
//
// # oauthlib's deviations from RFC 5849, and what these tests do about them
//
// These are oauthlib's (3.2.2, Debian bookworm), not countersign's; the
// cases avoid them, or the helper's RequestValidator switches the check
// off, rather than countersign bending to them.
//
//   - §3.1 lets PLAINTEXT requests omit oauth_timestamp and oauth_nonce;
//     SignatureOnlyEndpoint refuses a request without them. countersign
//     sends both whenever SignAt is given a time and a nonce, as here.
//   - §3.3 makes oauth_timestamp "a positive integer"; oauthlib refuses any
//     that is not exactly 10 digits, and checks its age against the real
//     clock. The cases use a 10-digit timestamp from 2011 and the helper's
//     timestamp_lifetime is effectively unlimited.
//   - §3.5.1 says realm is "added and interpreted per RFC 2617", a
//     quoted-string; oauthlib's Client writes it with no escaping, so that
//     a realm holding '"' or '\' makes a malformed header. (Its endpoint
//     reads quoted-pairs correctly.) The case with both characters is
//     signed by countersign only.
//   - §3.2 has a server refuse duplicated protocol parameters; oauthlib
//     reads the Authorization header into a dict, so of a parameter sent
//     twice there it silently keeps the last. No case duplicates one.
//   - §3.4.1.2 takes the host as the request names it; oauthlib rewrites
//     an IPv6 literal in its canonical form ([0:0::1] becomes [::1]). No
//     case uses a non-canonical IPv6 literal.
//   - §3.4.1.3.1 takes parameters from the query, the header and the body
//     together; oauthlib refuses a request whose oauth_ parameters are not
//     all in one of them. countersign never splits them.
//   - oauthlib's default RequestValidator refuses client keys and nonces
//     outside 20-30 alphanumerics and any http URL (enforce_ssl); RFC 5849
//     sets no such limits, and the helper's validator allows them.
//   - oauthlib's Client re-encodes the query or form body it adds the
//     protocol parameters to ("%7E" becomes "~", a bare name gets "="),
//     which leaves the parameters as they were; the request sent is the
//     one it returns, which is what these tests use.

import (
	"crypto"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// interopPackages is what to install for the interop tests, on Debian.
const interopPackages = "python3-oauthlib python3-jwt python3-cryptography"

// The credentials of the interop cases: RFC 5849 §1.2's, and a set with
// reserved and non-ASCII characters in every part.
var (
	interopClient = oauth1.Credentials{Token: "dpf43f3p2l4k3l03", Secret: "kd94hf93k423kf44"}
	interopToken  = oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	trickyClient  = oauth1.Credentials{Token: "key+with/reserved=chars ✓", Secret: "s&c=r+t %41 ✓"}
	trickyToken   = oauth1.Credentials{Token: "tok/✓+%", Secret: "t&s=%zz ~"}
)

const (
	interopTimestamp = 1318622958 // ten digits, as oauthlib insists
	interopPrivate   = "../testdata/keys/rsa2048-pkcs1.pem"
	interopPublic    = "../testdata/keys/rsa2048-public.pem"
)

// An interopCase is one request, signed by each side in turn.
type interopCase struct {
	name     string
	method   string // signature method
	delivery oauth1.Delivery
	verb     string // HTTP method
	url      string
	ctype    string
	body     string
	realm    string
	tricky   bool   // use trickyClient and trickyToken
	twoLeg   bool   // no token
	callback string // oauth_callback, as in a temporary credential request (§2.1)

	// oauthlibCannotSign, if set, is the oauthlib deviation that keeps its
	// Client from signing the case; countersign still signs it.
	oauthlibCannotSign string
}

var interopCases = []interopCase{
	{name: "HMAC-SHA1 query", method: "HMAC-SHA1", verb: "GET",
		url: "https://api.example.com/1.1/statuses/home_timeline.json?count=10&include_entities=true"},
	{name: "UTF-8 in query and form", method: "HMAC-SHA1", verb: "POST",
		url:   "https://api.example.com/r?q=%E2%9C%93%20caf%C3%A9&emoji=%F0%9F%94%91",
		ctype: "application/x-www-form-urlencoded", body: "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20%E2%9C%93&name=J%C3%BCrgen"},
	{name: "reserved characters", method: "HMAC-SHA256", verb: "GET",
		url: "http://api.example.com:8080/a/b%2Fc/%7Euser?x=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D&y=~-._&z=a/b?c:d@e!f$g'h(i)j*k,l;m"},
	{name: "plus signs", method: "HMAC-SHA1", verb: "POST",
		url:   "https://api.example.com/r?a=1+2&b=1%2B2&c=%20",
		ctype: "application/x-www-form-urlencoded", body: "d=3+4&e=%2B&f=+"},
	{name: "empty values and duplicates", method: "HMAC-SHA512", verb: "GET",
		url: "https://api.example.com/r?a=&b&c=2&c=1&c=2&a=x&d=%00"},
	{name: "realm URL", method: "HMAC-SHA256", verb: "GET", realm: "http://sp.example.com/",
		url: "https://api.example.com/photos?file=vacation.jpg&size=original"},
	{name: "realm with quote and backslash", method: "HMAC-SHA1", verb: "GET", realm: `Say "hi" \o/`,
		url:                "https://api.example.com/photos?size=original",
		oauthlibCannotSign: "its Client writes realm unescaped, and the '\"' would end it (§3.5.1)"},
	{name: "realm with spaces and percent", method: "HMAC-SHA1", verb: "GET", realm: "Photos 100% ✓",
		url: "https://api.example.com/photos?size=original"},
	{name: "HMAC-SHA512 form body delivery", method: "HMAC-SHA512", delivery: oauth1.FormBody, verb: "POST",
		url:   "https://api.example.com/r?page=2",
		ctype: "application/x-www-form-urlencoded", body: "status=caf%C3%A9%20%26%20cr%C3%A8me&x=1+1"},
	{name: "HMAC-SHA1 query delivery", method: "HMAC-SHA1", delivery: oauth1.QueryString, verb: "GET",
		url: "https://api.example.com/r?b=2&a=1&a=%E2%9C%93"},
	{name: "RSA-SHA1 query delivery", method: "RSA-SHA1", delivery: oauth1.QueryString, verb: "GET",
		url: "http://photos.example.net/photos?file=vacation.jpg&size=original"},
	{name: "RSA-SHA256 form", method: "RSA-SHA256", verb: "POST",
		url:   "https://api.example.com/r?q=1",
		ctype: "application/x-www-form-urlencoded", body: "a=%F0%9F%94%91&b=+"},
	{name: "PLAINTEXT over https", method: "PLAINTEXT", verb: "POST",
		url:   "https://api.example.com/oauth/access_token",
		ctype: "application/x-www-form-urlencoded", body: "x_auth_mode=client_auth"},
	{name: "PLAINTEXT tricky secrets", method: "PLAINTEXT", verb: "GET", tricky: true,
		url: "https://api.example.com/r?q=1"},
	{name: "tricky credentials", method: "HMAC-SHA256", verb: "GET", tricky: true,
		url: "https://api.example.com/r?q=%E2%9C%93"},
	{name: "temporary credentials with oauth_callback", method: "HMAC-SHA1", verb: "POST", twoLeg: true,
		url: "https://photos.example.net/initiate", callback: "http://printer.example.com/ready?x=1&y=%E2%9C%93 +"},
	{name: "two-legged", method: "HMAC-SHA1", verb: "GET", twoLeg: true,
		url: "https://api.example.com/r?q=1"},
	{name: "host case, default port, encoded path", method: "HMAC-SHA1", verb: "DELETE",
		url: "https://API.Example.COM:443/a%20b/caf%C3%A9;v=1?q=1"},
	{name: "JSON body with body hash", method: "HMAC-SHA1", verb: "PUT",
		url:   "https://api.example.com/r?q=1",
		ctype: "application/json", body: `{"status": "caf\u00e9 ✓"}`},
}

// TestInteropOauthlibSigns has oauthlib's Client sign every case, and
// countersign's Verifier check what a server receives.
func TestInteropOauthlibSigns(t *testing.T) {
	py := interopPython(t)
	key, privPEM, pubPEM := interopKeys(t)
	job := interopJob(pubPEM)
	var cases []interopCase
	for _, c := range interopCases {
		if c.oauthlibCannotSign != "" {
			t.Run(c.name, func(t *testing.T) { t.Skip("oauthlib cannot sign this case: " + c.oauthlibCannotSign) })
			continue
		}
		cases = append(cases, c)
		client, tok := c.creds()
		s := pySign{
			ClientKey: client.Token, ClientSecret: client.Secret,
			Method: c.method, Type: map[oauth1.Delivery]string{oauth1.AuthHeader: "header", oauth1.QueryString: "query", oauth1.FormBody: "body"}[c.delivery],
			Realm: c.realm, Nonce: c.nonce("oauthlib"), Timestamp: strconv.Itoa(interopTimestamp),
			HTTPMethod: c.verb, URI: c.url, ContentType: c.ctype, Body: c.body,
			Callback: c.callback,
		}
		if tok != nil {
			s.Token, s.TokenSecret = tok.Token, tok.Secret
		}
		if strings.HasPrefix(c.method, "RSA-") {
			s.RSAPrivatePEM = privPEM
		}
		job.Sign = append(job.Sign, s)
	}
	res := runOauthlib(t, py, job)

	// oauthlib's own verdicts on what it signed and on the tampered copies,
	// so that a tamper that oauthlib does not notice fails the test too.
	var check pyJob
	check.Clients, check.Tokens = job.Clients, job.Tokens
	type ref struct{ c, tamper string }
	var refs []ref
	for i, c := range cases {
		w := res.Sign[i]
		require.Empty(t, w.Error, "%s: oauthlib could not sign", c.name)
		w.HTTPMethod = c.verb
		t.Run(c.name, func(t *testing.T) {
			v := interopVerifier(&key.PublicKey)
			got, err := v.Verify(serverRequest(t, w))
			require.NoError(t, err, "Verify(oauthlib's request %+v)", w)
			client, _ := c.creds()
			assert.Equal(t, client.Token, got.ConsumerKey)
			assert.Equal(t, c.method, got.SignatureMethod)
			callback := ""
			for _, p := range got.Params {
				if p.Name == "oauth_callback" {
					callback = p.Value
				}
			}
			assert.Equal(t, c.callback, callback)
			if c.realm != "" {
				params, err := oauth1.ParseAuthHeader(w.Headers["Authorization"])
				require.NoError(t, err)
				realm := ""
				for _, p := range params {
					if p.Name == "realm" {
						realm = p.Value
					}
				}
				assert.Equal(t, c.realm, realm, "realm as ParseAuthHeader reads oauthlib's header")
			}
			for name, tw := range tampered(w, c.method) {
				wantSignatureInvalid(t, interopVerifier(&key.PublicKey), serverRequest(t, tw), name)
			}
		})
		check.Verify = append(check.Verify, w)
		refs = append(refs, ref{c.name, ""})
		for name, tw := range tampered(w, c.method) {
			check.Verify = append(check.Verify, tw)
			refs = append(refs, ref{c.name, name})
		}
	}
	verdicts := runOauthlib(t, py, check).Verify
	for i, r := range refs {
		if r.tamper == "" {
			assert.True(t, verdicts[i].Valid, "%s: oauthlib refused its own request: %+v", r.c, verdicts[i])
		} else {
			wantRefused(t, verdicts[i], r.c+", "+r.tamper)
		}
	}
}

// TestInteropOauthlibVerifies has countersign sign every case, and
// oauthlib's SignatureOnlyEndpoint check what a Go client sends; then
// tampered copies, which both must refuse.
func TestInteropOauthlibVerifies(t *testing.T) {
	py := interopPython(t)
	key, _, pubPEM := interopKeys(t)
	job := interopJob(pubPEM)
	type ref struct {
		c      interopCase
		tamper string
	}
	var refs []ref
	for _, c := range interopCases {
		client, tok := c.creds()
		cfg := &oauth1.Config{ConsumerKey: client.Token, ConsumerSecret: client.Secret, Signer: c.signer(key), Realm: c.realm, Delivery: c.delivery}
		if c.ctype != "" && !strings.HasPrefix(c.ctype, "application/x-www-form-urlencoded") {
			cfg.BodyHash = crypto.SHA1 // what oauthlib's Client adds
		}
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		r, err := http.NewRequest(c.verb, c.url, body)
		require.NoError(t, err)
		if c.ctype != "" {
			r.Header.Set("Content-Type", c.ctype)
		}
		var extra []oauth1.Param
		if c.callback != "" {
			extra = append(extra, oauth1.Param{Name: "oauth_callback", Value: c.callback})
		}
		require.NoError(t, cfg.SignAt(r, tok, time.Unix(interopTimestamp, 0), c.nonce("countersign"), extra...), c.name)
		w := wire(t, r)
		// countersign's own Verifier accepts it, and refuses the tampered
		// copies that oauthlib is about to see.
		_, err = interopVerifier(&key.PublicKey).Verify(serverRequest(t, w))
		require.NoError(t, err, "%s: countersign refused its own request", c.name)
		job.Verify = append(job.Verify, w)
		refs = append(refs, ref{c, ""})
		for name, tw := range tampered(w, c.method) {
			wantSignatureInvalid(t, interopVerifier(&key.PublicKey), serverRequest(t, tw), c.name+", "+name)
			job.Verify = append(job.Verify, tw)
			refs = append(refs, ref{c, name})
		}
	}
	verdicts := runOauthlib(t, py, job).Verify
	for i, r := range refs {
		got, w := verdicts[i], job.Verify[i]
		if r.tamper != "" {
			t.Run(r.c.name+"/"+r.tamper, func(t *testing.T) { wantRefused(t, got, fmt.Sprintf("%+v", w)) })
			continue
		}
		t.Run(r.c.name, func(t *testing.T) {
			assert.True(t, got.Valid, "oauthlib refused countersign's request %+v: %+v", w, got)
		})
		if r.c.realm == "" {
			continue
		}
		t.Run(r.c.name+"/realm", func(t *testing.T) {
			if assert.NotNil(t, got.Realm, "oauthlib found no realm in %q", w.Headers["Authorization"]) {
				assert.Equal(t, r.c.realm, *got.Realm, "realm as oauthlib reads countersign's header")
			}
		})
	}
}
