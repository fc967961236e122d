package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

// clients is a CredentialStore over maps; a real one queries a database.
type clients struct {
	consumers map[string]string // consumer key → secret
	tokens    map[string]string // token → secret
}

func (c clients) Consumer(ctx context.Context, key string, _ time.Time) (server.Registration, error) {
	secret, ok := c.consumers[key]
	if !ok {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: secret}, nil
}

func (c clients) TokenCredentials(ctx context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	secret, ok := c.tokens[token]
	if !ok {
		return server.TokenCredentials{}, server.ErrNotFound
	}
	return server.TokenCredentials{Token: token, Secret: secret, ConsumerKey: key}, nil
}

// A provider protects its API with the Verifier's middleware; the handler
// finds the verified consumer key and token in the request context, and
// can still read the body.
func ExampleVerifier_Middleware() {
	store := clients{
		consumers: map[string]string{"dpf43f3p2l4k3l03": "kd94hf93k423kf44"},
		tokens:    map[string]string{"nnch734d00sl2jdk": "pfkkdhi9sl3r4s00"},
	}
	v := &server.Verifier{Store: store, Settings: server.Settings{Realm: "Photos", RequireToken: true}}
	api := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, _ := server.FromContext(r.Context())
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "hello %s, token %s, you sent %s", ver.ConsumerKey, ver.Token, body)
	}))
	srv := httptest.NewServer(api)
	defer srv.Close()

	// A client signs a request with the same credentials...
	cfg := &oauth1.Config{ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44"}
	client := cfg.Client(&oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"})
	resp, err := client.Post(srv.URL+"/photos", "application/x-www-form-urlencoded", strings.NewReader("title=Vacation"))
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, string(b))

	// ...and one without a token is refused with a problem report.
	resp, err = cfg.Client(nil).Get(srv.URL + "/photos")
	if err != nil {
		panic(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("WWW-Authenticate"), string(b))
	// Output:
	// 200 OK hello dpf43f3p2l4k3l03, token nnch734d00sl2jdk, you sent title=Vacation
	// 400 Bad Request OAuth realm="Photos" oauth_problem=parameter_absent&oauth_parameters_absent=oauth_token
}

// Verify checks one request and says why it refused it. Here it is the X
// API documentation's example request, verified at a fixed time, behind a
// proxy that terminates TLS.
func ExampleVerifier_Verify() {
	v := &server.Verifier{Store: clients{
		consumers: map[string]string{"xvz1evFS4wEEPTGEFPHBog": "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"},
		tokens:    map[string]string{"370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb": "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"},
	}, Settings: server.Settings{Scheme: "https", Now: func() time.Time { return time.Unix(1318622958, 0) }}}
	request := func() *http.Request {
		r := httptest.NewRequest("POST", "/1.1/statuses/update.json?include_entities=true",
			strings.NewReader("status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"))
		r.Host = "api.twitter.com"
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Authorization", `OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"`)
		return r
	}

	ver, err := v.Verify(request())
	fmt.Println(ver.ConsumerKey, ver.SignatureMethod, err)

	_, err = v.Verify(request()) // the same request again
	var pe *server.ProblemError
	if errors.As(err, &pe) {
		fmt.Println(pe.StatusCode, pe.Problem)
	}
	// Output:
	// xvz1evFS4wEEPTGEFPHBog HMAC-SHA1 <nil>
	// 401 nonce_used
}
