package main

// The libraries added by issue 42's corpus work (corpa): four Go ones
// run here, the npm, Python and R ones as drivers/corpa-*.

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	_ "unsafe" // for go:linkname, to read the base string a library writes into its HMAC

	gomodule "github.com/gomodule/oauth1/oauth"
	"github.com/kurrik/oauth1a"
	mastercard "github.com/mastercard/oauth1-signer-go"
	"github.com/michimani/gotwi"
)

func init() {
	for name, d := range map[string]driver{
		"gomodule-oauth1":  gomoduleOAuth1,
		"kurrik-oauth1a":   kurrikOAuth1a,
		"gotwi":            gotwiOAuth1,
		"mastercard-go":    mastercardGo,
		"mastercard-js":    external("node", "drivers/corpa-mastercard.js"),
		"twitter-api-v2":   external("node", "drivers/corpa-twitter-api-v2.js"),
		"oauth-header":     external("node", "drivers/corpa-oauth-header.js"),
		"node-oauth1":      external("node", "drivers/corpa-node-oauth1.js"),
		"flickr-sdk":       external("node", "drivers/corpa-flickr-sdk.js"),
		"oauth1-signature": external("node", "drivers/corpa-oauth1-signature.js"),
		"oauthlib":         external("/usr/bin/python3", "drivers/corpa-oauthlib.py"),
		"tornado":          external("/usr/bin/python3", "drivers/corpa-tornado.py"),
		"httr":             external("Rscript", "drivers/corpa-httr.R"),
	} {
		drivers[name] = d
	}
}

// form returns the parameters of r's body if it is a form, as a Go user
// parses them (url.ParseQuery, keeping what parses).
func form(r request) url.Values {
	mt, _, _ := strings.Cut(strings.ToLower(r.ContentType), ";")
	if r.Body == "" || strings.TrimSpace(mt) != formType {
		return nil
	}
	v, _ := url.ParseQuery(r.Body)
	return v
}

// oauthParams returns the protocol parameters of header h but the
// signature: those the library hashed.
func oauthParams(h string) map[string]string {
	ps := headerParams(h)
	delete(ps, "oauth_signature")
	return ps
}

// The unexported function gomodule/oauth1 (garyburd/go-oauth's new home,
// whose base string code is the same) hashes the base string with; the signature check proves that the string it writes is
// the one hashed.
//
//go:linkname gomoduleBase github.com/gomodule/oauth1/oauth.writeBaseString
func gomoduleBase(w io.Writer, method string, u *url.URL, form url.Values, oauthParams map[string]string)

// gomoduleOAuth1 signs r with github.com/gomodule/oauth1 as its README
// shows for a request built by the caller: SetAuthorizationHeader(header,
// credentials, method, req.URL, form), form being the body's parameters.
func gomoduleOAuth1(rs []request) ([]result, error) {
	v := version("github.com/gomodule/oauth1")
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		req, err := newRequest(r)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		c := gomodule.Client{Credentials: gomodule.Credentials{Token: r.ConsumerKey, Secret: r.ConsumerSecret}}
		var cred *gomodule.Credentials
		if r.Token != "" {
			cred = &gomodule.Credentials{Token: r.Token, Secret: r.TokenSecret}
		}
		f := form(r)
		if err := c.SetAuthorizationHeader(req.Header, cred, req.Method, req.URL, f); err != nil {
			res[i].Error = err.Error()
			continue
		}
		h := req.Header.Get("Authorization")
		var b strings.Builder
		gomoduleBase(&b, req.Method, req.URL, f, oauthParams(h))
		res[i].Got, res[i].Authorization, res[i].URL = b.String(), h, wire(req)
		res[i].Nonce, res[i].Timestamp = authParam(h, "oauth_nonce"), authParam(h, "oauth_timestamp")
	}
	return res, nil
}

// kurrikOAuth1a signs r with github.com/kurrik/oauth1a: Service.Sign,
// with the nonce and timestamp given in its X-OAuth-Nonce and
// X-OAuth-Timestamp headers; the base string is the one its
// GetOAuthParams returns for the same request, nonce and timestamp. Sign
// rewrites the query and the form body it sends.
func kurrikOAuth1a(rs []request) ([]result, error) {
	v := version("github.com/kurrik/oauth1a")
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		req, err := newRequest(r)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		twin, _ := newRequest(r)
		user := &oauth1a.UserConfig{}
		if r.Token != "" {
			user = oauth1a.NewAuthorizedConfig(r.Token, r.TokenSecret)
		}
		cfg := &oauth1a.ClientConfig{ConsumerKey: r.ConsumerKey, ConsumerSecret: r.ConsumerSecret}
		s := &oauth1a.Service{ClientConfig: cfg, Signer: &oauth1a.HmacSha1Signer{}}
		req.Header.Set("X-OAuth-Nonce", r.Nonce)
		req.Header.Set("X-OAuth-Timestamp", r.Timestamp)
		if err := s.Sign(req, user); err != nil {
			res[i].Error = err.Error()
			continue
		}
		_, base, err := (&oauth1a.HmacSha1Signer{}).GetOAuthParams(twin, cfg, user, r.Nonce, r.Timestamp)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		res[i].Got, res[i].Authorization, res[i].URL = base, req.Header.Get("Authorization"), wire(req)
		if req.Body != nil {
			b, _ := io.ReadAll(req.Body)
			s := string(b)
			res[i].Body = &s
		}
	}
	return res, nil
}

//go:linkname gotwiParameterString github.com/michimani/gotwi.createParameterString
func gotwiParameterString(nonce, ts string, in *gotwi.CreateOAuthSignatureInput) string

//go:linkname gotwiSignatureBase github.com/michimani/gotwi.createSignatureBase
func gotwiSignatureBase(method, endpointBase, parameterString string) string

//go:linkname gotwiEndpointBase github.com/michimani/gotwi.endpointBase
func gotwiEndpointBase(e string) string

// gotwiParams is a request's parameters as gotwi's API calls take them:
// the endpoint, the body, and a map of the parameters to sign (the query's
// and a form body's, the last of a repeated name).
type gotwiParams struct {
	r     request
	token string
}

func (p *gotwiParams) SetAccessToken(t string)         { p.token = t }
func (p *gotwiParams) AccessToken() string             { return p.token }
func (p *gotwiParams) ResolveEndpoint(_ string) string { return p.r.URL }
func (p *gotwiParams) Body() (io.Reader, error) {
	if p.r.Body == "" {
		return nil, nil
	}
	return strings.NewReader(p.r.Body), nil
}
func (p *gotwiParams) ParameterMap() map[string]string {
	m := map[string]string{}
	_, q, _ := strings.Cut(p.r.URL, "?")
	vs, _ := url.ParseQuery(q)
	for k, v := range form(p.r) {
		vs[k] = append(vs[k], v...)
	}
	for k, v := range vs {
		m[k] = v[len(v)-1]
	}
	return m
}

type gotwiResponse struct{}

func (gotwiResponse) HasPartialError() bool { return false }

// gotwiOAuth1 signs r with github.com/michimani/gotwi's client
// (OAuth 1.0a user context), CallAPI over a capturing transport. Its
// signing function keeps the base string to itself: the driver rebuilds
// it with the library's own unexported functions, from the request, nonce
// and timestamp it signed, and the signature check proves it the same.
// The client needs an access token.
func gotwiOAuth1(rs []request) ([]result, error) {
	v := version("github.com/michimani/gotwi")
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		c := &capture{}
		cl, err := gotwi.NewClient(&gotwi.NewClientInput{
			HTTPClient:           &http.Client{Transport: jsonOK{c}},
			AuthenticationMethod: gotwi.AuthenMethodOAuth1UserContext,
			OAuthToken:           r.Token, OAuthTokenSecret: r.TokenSecret,
			APIKey: r.ConsumerKey, APIKeySecret: r.ConsumerSecret,
		})
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		ctx := context.Background()
		if r.ContentType != "" {
			ctx = context.WithValue(ctx, "Content-Type", r.ContentType) //nolint:staticcheck // the key gotwi reads
		}
		p := &gotwiParams{r: r}
		if err := cl.CallAPI(ctx, r.URL, r.Method, p, &gotwiResponse{}); err != nil {
			res[i].Error = err.Error()
			continue
		}
		if c.req == nil {
			res[i].Error = "nothing sent"
			continue
		}
		h := c.req.Header.Get("Authorization")
		nonce, ts := authParam(h, "oauth_nonce"), authParam(h, "oauth_timestamp")
		in := &gotwi.CreateOAuthSignatureInput{
			HTTPMethod: c.req.Method, RawEndpoint: c.req.URL.String(),
			OAuthConsumerKey: cl.OAuthConsumerKey(), OAuthToken: cl.OAuthToken(),
			SigningKey: cl.SigningKey(), ParameterMap: p.ParameterMap(),
		}
		base := gotwiSignatureBase(in.HTTPMethod, gotwiEndpointBase(in.RawEndpoint), gotwiParameterString(nonce, ts, in))
		res[i].Got, res[i].Authorization, res[i].URL = base, h, wire(c.req)
		res[i].Nonce, res[i].Timestamp = nonce, ts
	}
	return res, nil
}

// jsonOK answers through a capture with 200 and an empty JSON object, as
// gotwi's client wants.
type jsonOK struct{ c *capture }

func (j jsonOK) RoundTrip(r *http.Request) (*http.Response, error) {
	j.c.req = r
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
}

//go:linkname mcQueryParams github.com/mastercard/oauth1-signer-go.extractQueryParams
func mcQueryParams(u *url.URL) map[string][]string

//go:linkname mcParamString github.com/mastercard/oauth1-signer-go.toOauthParamString
func mcParamString(queryParams map[string][]string, oauthParams map[string]string) string

//go:linkname mcBaseURL github.com/mastercard/oauth1-signer-go.getBaseUrlString
func mcBaseURL(u *url.URL) string

//go:linkname mcBaseString github.com/mastercard/oauth1-signer-go.getSignatureBaseString
func mcBaseString(method, baseURL, paramString string) string

// mastercardGo signs r with github.com/mastercard/oauth1-signer-go as its
// README shows: Signer{ConsumerKey, SigningKey}.Sign(req), the body as
// the payload (its oauth_body_hash; a form body's parameters are not
// signed). Its GetAuthorizationHeader keeps the base string to itself: the
// driver rebuilds it with the library's own unexported steps from the
// request and the header's protocol parameters, and checks the RSA-SHA256
// signature (the only method it has) with the public key; the header
// written leaves the signature out, as the generator checks HMAC-SHA1
// only.
func mastercardGo(rs []request) ([]result, error) {
	v := version("github.com/mastercard/oauth1-signer-go")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	res := make([]result, len(rs))
	for i, r := range rs {
		res[i] = result{ID: r.ID, Version: v}
		req, err := newRequest(r)
		if err != nil {
			res[i].Error = err.Error()
			continue
		}
		s := &mastercard.Signer{ConsumerKey: r.ConsumerKey, SigningKey: key}
		if err := s.Sign(req); err != nil {
			res[i].Error = err.Error()
			continue
		}
		h := req.Header.Get("Authorization")
		ps := oauthParams(h)
		sig, _ := base64.StdEncoding.DecodeString(headerParams(h)["oauth_signature"])
		// Its query step encodes a name it re-inserts into the map it
		// ranges over, which may then encode it again: the outcome
		// depends on the map's random order, so rebuild until the
		// signature verifies.
		var base string
		for try := 0; try < 2000 && base == ""; try++ {
			b := mcBaseString(req.Method, mcBaseURL(req.URL), mcParamString(mcQueryParams(req.URL), ps))
			sum := sha256.Sum256([]byte(b))
			if rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig) == nil {
				base = b
			}
		}
		if base == "" {
			res[i].Error = "no rebuilt base string under its signature"
			continue
		}
		var parts []string
		for p := range strings.SplitSeq(strings.TrimPrefix(h, "OAuth "), ",") {
			if !strings.HasPrefix(p, "oauth_signature=") {
				parts = append(parts, p)
			}
		}
		res[i].Got, res[i].Authorization, res[i].URL = base, "OAuth "+strings.Join(parts, ","), wire(req)
		res[i].Nonce, res[i].Timestamp = ps["oauth_nonce"], ps["oauth_timestamp"]
	}
	return res, nil
}
