package oauth1_test

// The harness of interop_test.go: the JSON that oauthlib_helper.py reads
// and writes, the requests as they travel, and the tampers.

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// The JSON the helper reads and writes; see oauthlib_helper.py.
type (
	pyJob struct {
		Clients []pyClient `json:"clients"`
		Tokens  []pyToken  `json:"tokens"`
		Sign    []pySign   `json:"sign,omitempty"`
		Verify  []pyWire   `json:"verify,omitempty"`
	}
	pyClient struct {
		Key          string `json:"key"`
		Secret       string `json:"secret"`
		RSAPublicPEM string `json:"rsa_public_pem,omitempty"`
	}
	pyToken struct {
		Client string `json:"client"`
		Token  string `json:"token"`
		Secret string `json:"secret"`
	}
	pySign struct {
		ClientKey     string `json:"client_key"`
		ClientSecret  string `json:"client_secret"`
		Token         string `json:"token,omitempty"`
		TokenSecret   string `json:"token_secret,omitempty"`
		RSAPrivatePEM string `json:"rsa_private_pem,omitempty"`
		Method        string `json:"method"`
		Type          string `json:"type"`
		Realm         string `json:"realm,omitempty"`
		Nonce         string `json:"nonce"`
		Timestamp     string `json:"timestamp"`
		HTTPMethod    string `json:"http_method"`
		URI           string `json:"uri"`
		ContentType   string `json:"content_type,omitempty"`
		Body          string `json:"body,omitempty"`
		Callback      string `json:"callback,omitempty"`
	}
	// pyWire is a request as it travels: oauthlib's view of what a server
	// received, and what its Client returns after signing.
	pyWire struct {
		HTTPMethod string            `json:"http_method"`
		URI        string            `json:"uri"`
		Headers    map[string]string `json:"headers"`
		Body       string            `json:"body"`
		Error      string            `json:"error,omitempty"`
	}
	pyVerdict struct {
		Valid     bool    `json:"valid"`
		Signature *bool   `json:"signature"` // oauthlib's own verdict on the signature alone
		Realm     *string `json:"realm"`
		Error     string  `json:"error"`
	}
	pyResult struct {
		Sign   []pyWire    `json:"sign"`
		Verify []pyVerdict `json:"verify"`
	}
)

// interopPython returns a python3 that can import oauthlib, or skips the
// test (fails it, under COUNTERSIGN_REQUIRE_INTEROP=1) when there is none.
// Debian's packages install for /usr/bin/python3, which need not be the
// python3 first in PATH; COUNTERSIGN_PYTHON names another.
func interopPython(t *testing.T) string {
	t.Helper()
	candidates := []string{"python3", "/usr/bin/python3"}
	if py := os.Getenv("COUNTERSIGN_PYTHON"); py != "" {
		candidates = []string{py}
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import oauthlib, jwt, cryptography").Run() == nil {
			return py
		}
	}
	msg := "interop tests need python3 with oauthlib; on Debian: apt-get install " + interopPackages
	if os.Getenv("COUNTERSIGN_REQUIRE_INTEROP") == "1" {
		t.Fatal(msg + " (COUNTERSIGN_REQUIRE_INTEROP=1 forbids skipping)")
	}
	t.Skip(msg)
	return ""
}

const interopHelper = "testdata/interop/oauthlib_helper.py"

// runOauthlib runs the helper on job.
func runOauthlib(t *testing.T, py string, job pyJob) pyResult {
	t.Helper()
	// Read here, though python3 reads it again, so that go test's cache
	// sees the helper as an input of this test: an edit reruns it.
	_, err := os.ReadFile(interopHelper)
	require.NoError(t, err)
	in, err := json.Marshal(job)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, interopHelper)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "oauthlib_helper.py: %s", stderr.String())
	var res pyResult
	require.NoError(t, json.Unmarshal(out, &res), "oauthlib_helper.py output: %s", out)
	require.Len(t, res.Sign, len(job.Sign))
	require.Len(t, res.Verify, len(job.Verify))
	return res
}

// interopKeys reads the test RSA key pair.
func interopKeys(t *testing.T) (priv *rsa.PrivateKey, privPEM, pubPEM string) {
	t.Helper()
	b, err := os.ReadFile(interopPrivate)
	require.NoError(t, err)
	blk, _ := pem.Decode(b)
	require.NotNil(t, blk, interopPrivate)
	priv, err = x509.ParsePKCS1PrivateKey(blk.Bytes)
	require.NoError(t, err)
	pub, err := os.ReadFile(interopPublic)
	require.NoError(t, err)
	return priv, string(b), string(pub)
}

func (c interopCase) creds() (client oauth1.Credentials, tok *oauth1.Credentials) {
	client, tok = interopClient, &interopToken
	if c.tricky {
		client, tok = trickyClient, &trickyToken
	}
	if c.twoLeg {
		tok = nil
	}
	return client, tok
}

// nonce is the case's nonce for one side; the spaces and commas in it are
// encoded like any other value.
func (c interopCase) nonce(side string) string { return side + ": " + c.name }

// signer returns countersign's Signer for c.method.
func (c interopCase) signer(key *rsa.PrivateKey) oauth1.Signer {
	switch c.method {
	case "HMAC-SHA1":
		return oauth1.HMAC{}
	case "HMAC-SHA256":
		return oauth1.HMAC{Hash: crypto.SHA256}
	case "HMAC-SHA512":
		return oauth1.HMAC{Hash: crypto.SHA512}
	case "RSA-SHA1":
		return oauth1.RSA{Key: key}
	case "RSA-SHA256":
		return oauth1.RSA{Key: key, Hash: crypto.SHA256}
	case "PLAINTEXT":
		return oauth1.Plaintext{}
	}
	panic("interop case with unknown method " + c.method)
}

func interopJob(pubPEM string) pyJob {
	return pyJob{
		Clients: []pyClient{
			{Key: interopClient.Token, Secret: interopClient.Secret, RSAPublicPEM: pubPEM},
			{Key: trickyClient.Token, Secret: trickyClient.Secret, RSAPublicPEM: pubPEM},
		},
		Tokens: []pyToken{
			{Client: interopClient.Token, Token: interopToken.Token, Secret: interopToken.Secret},
			{Client: trickyClient.Token, Token: trickyToken.Token, Secret: trickyToken.Secret},
		},
	}
}

func interopVerifier(pub *rsa.PublicKey) *server.Verifier {
	return &server.Verifier{Store: interopStore{pub}, Settings: server.Settings{Nonces: new(server.MemoryNonceStore), SignatureMethods: []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "PLAINTEXT"}, Now: func() time.Time { return time.Unix(interopTimestamp+30, 0) }}}
}

type interopStore struct{ pub *rsa.PublicKey }

func (s interopStore) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	for _, c := range []oauth1.Credentials{interopClient, trickyClient} {
		if c.Token == key {
			return server.Registration{Secret: c.Secret, PublicKey: s.pub}, nil
		}
	}
	return server.Registration{}, server.ErrNotFound
}

func (s interopStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	switch {
	case key == interopClient.Token && token == interopToken.Token:
		return server.TokenCredentials{Token: token, Secret: interopToken.Secret, ConsumerKey: key}, nil
	case key == trickyClient.Token && token == trickyToken.Token:
		return server.TokenCredentials{Token: token, Secret: trickyToken.Secret, ConsumerKey: key}, nil
	}
	return server.TokenCredentials{}, server.ErrNotFound
}

// serverRequest turns w into the request a server reads off the wire: the
// request line carries the URI's path and query exactly as given, and the
// Host header its authority.
func serverRequest(t *testing.T, w pyWire) *http.Request {
	t.Helper()
	scheme, rest, ok := strings.Cut(w.URI, "://")
	require.True(t, ok, "URI %q", w.URI)
	host, target := rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host, target = rest[:i], rest[i:]
		if target[0] == '?' {
			target = "/" + target
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", w.HTTPMethod, target, host)
	for k, v := range w.Headers {
		if !strings.EqualFold(k, "Content-Length") && !strings.EqualFold(k, "Host") {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(w.Body), w.Body)
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(b.String())))
	require.NoError(t, err, "reading back %q", b.String())
	if strings.EqualFold(scheme, "https") {
		r.TLS = &tls.ConnectionState{}
	}
	return r
}

// wire is what a Go client sends for r, read back as oauthlib's endpoint
// is given a request: an absolute URI, the headers and the body.
func wire(t *testing.T, r *http.Request) pyWire {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, r.Write(&buf))
	got, err := http.ReadRequest(bufio.NewReader(&buf))
	require.NoError(t, err)
	body, err := io.ReadAll(got.Body)
	require.NoError(t, err)
	w := pyWire{HTTPMethod: got.Method, URI: r.URL.Scheme + "://" + got.Host + got.RequestURI, Headers: map[string]string{}, Body: string(body)}
	for k := range got.Header {
		w.Headers[k] = got.Header.Get(k)
	}
	return w
}

// A tamper changes a signed request so that its signature no longer
// matches; it reports false when the request has nothing it can change.
type tamper struct {
	name string
	fn   func(w *pyWire) bool
}

var tampers = []tamper{
	{"one byte of a value", tamperValue},
	{"a parameter dropped", tamperDrop},
	{"method changed", func(w *pyWire) bool {
		w.HTTPMethod = map[string]string{"GET": "DELETE", "POST": "PUT", "PUT": "POST", "DELETE": "GET"}[w.HTTPMethod]
		return true
	}},
	{"one byte of the signature", tamperSignature},
}

// paramsOf returns the non-oauth query or form parameters of w, and a
// function that puts a changed list back.
func paramsOf(w *pyWire) (params []string, put func([]string)) {
	if base, query, ok := strings.Cut(w.URI, "?"); ok {
		for _, p := range strings.Split(query, "&") {
			if !strings.HasPrefix(p, "oauth_") {
				params = append(params, p)
			}
		}
		if len(params) > 0 {
			return params, func(ps []string) {
				ps = append(ps, oauthOnly(query)...)
				w.URI = base + "?" + strings.Join(ps, "&")
			}
		}
	}
	if strings.HasPrefix(w.Headers["Content-Type"], "application/x-www-form-urlencoded") && w.Body != "" {
		for _, p := range strings.Split(w.Body, "&") {
			if !strings.HasPrefix(p, "oauth_") {
				params = append(params, p)
			}
		}
		body := w.Body
		return params, func(ps []string) { w.Body = strings.Join(append(ps, oauthOnly(body)...), "&") }
	}
	return nil, nil
}

func oauthOnly(query string) (ps []string) {
	for _, p := range strings.Split(query, "&") {
		if strings.HasPrefix(p, "oauth_") {
			ps = append(ps, p)
		}
	}
	return ps
}

// tamperValue changes one letter or digit of a parameter value, one that
// is not part of a %XX escape, so that the request stays well-formed.
func tamperValue(w *pyWire) bool {
	params, put := paramsOf(w)
	for i, p := range params {
		name, value, _ := strings.Cut(p, "=")
		for j := len(value) - 1; j >= 0; j-- {
			c := value[j]
			inEscape := j >= 1 && value[j-1] == '%' || j >= 2 && value[j-2] == '%'
			if inEscape || !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
				continue
			}
			nc := byte('Z')
			if c == 'Z' {
				nc = 'Y'
			}
			params[i] = name + "=" + value[:j] + string(nc) + value[j+1:]
			put(params)
			return true
		}
	}
	return false
}

func tamperDrop(w *pyWire) bool {
	params, put := paramsOf(w)
	if len(params) == 0 {
		return false
	}
	put(params[:len(params)-1])
	return true
}

// tamperSignature changes the first letter of oauth_signature, wherever it
// was sent.
func tamperSignature(w *pyWire) bool {
	change := func(s string) (string, bool) {
		i := strings.Index(s, "oauth_signature=")
		if i < 0 {
			return s, false
		}
		i += len("oauth_signature=")
		if i < len(s) && s[i] == '"' {
			i++
		}
		for ; i < len(s) && s[i] != '&' && s[i] != '"'; i++ {
			if s[i] == '%' {
				i += 2 // a letter inside %XX would make a malformed escape
				continue
			}
			if c := s[i]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				nc := byte('Z')
				if c == 'Z' {
					nc = 'Y'
				}
				return s[:i] + string(nc) + s[i+1:], true
			}
		}
		return s, false
	}
	var ok bool
	if w.URI, ok = change(w.URI); ok {
		return true
	}
	if w.Body, ok = change(w.Body); ok {
		return true
	}
	h, ok := change(w.Headers["Authorization"])
	w.Headers["Authorization"] = h
	return ok
}

// tampered returns the tampered copies of w, by tamper name. PLAINTEXT
// signs nothing of the request (RFC 5849 §3.4.4), so only a change to the
// signature itself must fail it.
func tampered(w pyWire, method string) map[string]pyWire {
	out := make(map[string]pyWire)
	for _, tp := range tampers {
		if method == "PLAINTEXT" && tp.name != "one byte of the signature" {
			continue
		}
		c := w
		c.Headers = make(map[string]string, len(w.Headers))
		for k, v := range w.Headers {
			c.Headers[k] = v
		}
		if tp.fn(&c) {
			out[tp.name] = c
		}
	}
	return out
}

// wantSignatureInvalid checks that countersign refused r for its signature.
func wantSignatureInvalid(t *testing.T, v *server.Verifier, r *http.Request, what string) {
	t.Helper()
	_, err := v.Verify(r)
	var pe *server.ProblemError
	if assert.True(t, errors.As(err, &pe), "%s: Verify = %v, want a *ProblemError", what, err) {
		assert.Equal(t, oauth1.ProblemSignatureInvalid, pe.Problem, "%s: Verify = %v", what, err)
	}
}

// wantRefused checks that oauthlib refused a request for its signature,
// not because it could not read it.
func wantRefused(t *testing.T, got pyVerdict, what string) {
	t.Helper()
	assert.False(t, got.Valid, "oauthlib accepted the tampered request %s", what)
	assert.Empty(t, got.Error, "oauthlib could not read the tampered request %s", what)
	if assert.NotNil(t, got.Signature, "oauthlib did not check the signature of %s", what) {
		assert.False(t, *got.Signature, "oauthlib's signature verdict on %s", what)
	}
}

// TestInteropTampersApply checks the tampers on a request of each kind,
// so that a tamper that silently changes nothing cannot pass for a
// refusal.
func TestInteropTampersApply(t *testing.T) {
	q := pyWire{HTTPMethod: "GET", URI: "https://h/r?a=%41b&oauth_nonce=n&oauth_signature=abc%3D", Headers: map[string]string{}}
	f := pyWire{HTTPMethod: "POST", URI: "https://h/r", Body: "x=12&oauth_signature=Zb", Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}
	h := pyWire{HTTPMethod: "PUT", URI: "https://h/r", Headers: map[string]string{"Authorization": `OAuth oauth_signature="%2Bx"`}}
	for _, tt := range []struct {
		in   pyWire
		want map[string]pyWire
	}{
		{q, map[string]pyWire{
			"one byte of a value":       {HTTPMethod: "GET", URI: "https://h/r?a=%41Z&oauth_nonce=n&oauth_signature=abc%3D"},
			"a parameter dropped":       {HTTPMethod: "GET", URI: "https://h/r?oauth_nonce=n&oauth_signature=abc%3D"},
			"method changed":            {HTTPMethod: "DELETE", URI: q.URI},
			"one byte of the signature": {HTTPMethod: "GET", URI: "https://h/r?a=%41b&oauth_nonce=n&oauth_signature=Zbc%3D"},
		}},
		{f, map[string]pyWire{
			"one byte of a value":       {HTTPMethod: "POST", URI: f.URI, Body: "x=1Z&oauth_signature=Zb"},
			"a parameter dropped":       {HTTPMethod: "POST", URI: f.URI, Body: "oauth_signature=Zb"},
			"method changed":            {HTTPMethod: "PUT", URI: f.URI, Body: f.Body},
			"one byte of the signature": {HTTPMethod: "POST", URI: f.URI, Body: "x=12&oauth_signature=Yb"},
		}},
		{h, map[string]pyWire{
			"method changed":            {HTTPMethod: "POST", URI: h.URI},
			"one byte of the signature": {HTTPMethod: "PUT", URI: h.URI},
		}},
	} {
		got := tampered(tt.in, "HMAC-SHA1")
		require.Len(t, got, len(tt.want), "tampered(%+v)", tt.in)
		for name, want := range tt.want {
			g := got[name]
			assert.Equal(t, want.HTTPMethod, g.HTTPMethod, name)
			assert.Equal(t, want.URI, g.URI, name)
			assert.Equal(t, want.Body, g.Body, name)
		}
	}
	assert.Equal(t, `OAuth oauth_signature="%2BZ"`, tampered(h, "HMAC-SHA1")["one byte of the signature"].Headers["Authorization"])
	assert.Len(t, tampered(h, "PLAINTEXT"), 1, "PLAINTEXT: only the signature tamper applies")
	assert.Equal(t, `OAuth oauth_signature="%2Bx"`, h.Headers["Authorization"], "tampered changed its input")
}
