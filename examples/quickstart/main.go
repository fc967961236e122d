// Command quickstart shows OAuth 1.0a from both ends, on loopback, with no
// network and no credentials:
//
//	go run ./examples/quickstart
//
// It starts a fake provider (package oauth1test) that checks every request
// with server.Verifier, then runs the three-legged flow of RFC 5849 §2
// against it as a client would (the "oob" PIN is typed in automatically),
// calls a protected resource through the signing oauth1.Transport, and
// replays that call to show the provider refusing it. Each step prints what
// went over the wire: the base string that was signed, the authorization
// URL, the token credentials (secret redacted) and the signed request.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/oauth1test"
)

func main() {
	log.SetFlags(0)
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer) error {
	ctx := context.Background()

	// The client credentials of RFC 5849 §1.2's example; the fake provider
	// knows this one client.
	srv := oauth1test.NewServer("dpf43f3p2l4k3l03", "kd94hf93k423kf44")
	defer srv.Close()
	fmt.Fprintf(out, "provider: %s (every request checked by server.Verifier)\n\n", srv.URL)

	// The client: the provider's client credentials, Endpoint and an
	// HTTPClient that reaches it.
	cfg := srv.Config()
	cfg.Callback = "oob" // no web server on the client side: the provider shows a PIN

	fmt.Fprintln(out, "1. Temporary credentials (RFC 5849 §2.1)")
	res, err := cfg.RequestToken(ctx)
	if err != nil {
		return err
	}
	temp := res.Credentials // the token and secret; res.Values holds the rest of the answer
	fmt.Fprintf(out, "   POST %s\n", srv.Endpoint.RequestTokenURL)
	fmt.Fprintf(out, "   signature base string:\n     %s\n", srv.LastBaseString())
	fmt.Fprintf(out, "   temporary credentials: %v\n\n", *temp)

	fmt.Fprintln(out, "2. Resource owner authorization (§2.2)")
	authURL := cfg.AuthorizationURL(temp)
	fmt.Fprintf(out, "   open in a browser: %s\n", authURL)
	pin, err := srv.Authorize(ctx, authURL) // the fake resource owner approves at once
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "   the provider shows PIN %s; typed in automatically\n\n", pin)

	fmt.Fprintln(out, "3. Token credentials (§2.3)")
	res, err = cfg.AccessToken(ctx, temp, pin)
	if err != nil {
		return err
	}
	tok := res.Credentials
	fmt.Fprintf(out, "   token credentials: %v\n\n", *tok) // Credentials redact their secret

	fmt.Fprintln(out, "4. A signed API call through oauth1.Transport")
	rec := &recorder{base: srv.Client().Transport}
	client := &http.Client{Transport: &oauth1.Transport{Config: cfg, Token: tok, Base: rec}}
	resp, err := client.Post(srv.ResourceURL+"?include_entities=true", "application/x-www-form-urlencoded",
		strings.NewReader("status=Hello%20Ladies%20%2B%20Gentlemen"))
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Fprintf(out, "   %s %s\n   Authorization: %s\n   %s\n", rec.method, rec.url, rec.header.Get("Authorization"), rec.body)
	fmt.Fprintf(out, "   -> %s: %s\n\n", resp.Status, strings.ReplaceAll(strings.TrimSpace(string(body)), "\n", " | "))

	fmt.Fprintln(out, "5. Verification on the provider")
	fmt.Fprintf(out, "   recomputed base string, signature matched:\n     %s\n", srv.LastBaseString())
	replay, _ := http.NewRequest(rec.method, rec.url, bytes.NewReader(rec.body))
	replay.Header = rec.header
	resp, err = srv.Client().Do(replay)
	if err != nil {
		return err
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Fprintf(out, "   the same signed request sent again: %s %s\n", resp.Status, body)
	fmt.Fprintf(out, "\n%d requests checked: the flow and the call succeeded, the replay was refused.\n", len(srv.Records()))
	return nil
}

// recorder is an http.RoundTripper that keeps a copy of the last request
// it sends, as it went on the wire, so that it can be printed and replayed.
type recorder struct {
	base   http.RoundTripper
	method string
	url    string
	header http.Header
	body   []byte
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.method, r.url, r.header = req.Method, req.URL.String(), req.Header.Clone()
	r.body = nil
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.body, _ = io.ReadAll(b)
		b.Close()
	}
	return r.base.RoundTrip(req)
}
