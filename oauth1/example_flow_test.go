package oauth1_test

import (
	"bufio"
	"context"
	"crypto"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/providers"
	"github.com/countersign/countersign/oauth1/rsakey"
)

// Sign one request. SignAt takes the timestamp and nonce of the X API
// documentation's page "Creating a signature", so the signature is the one
// published there, hCtSmYh+iHYCEqBWrE7C7hYmtUk= (testdata/vectors/
// x-update-1.1.txt); Sign would use the current time and a random nonce.
// ExampleConfig_SignAt_authorizingARequest reproduces the header of the page
// "Authorizing a request".
func ExampleConfig_SignAt_quickstart() {
	cfg := &oauth1.Config{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}
	tok := &oauth1.Credentials{
		Token:  "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
		Secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
	}
	req, err := http.NewRequest("POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
		strings.NewReader("status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	err = cfg.SignAt(req, tok, time.Unix(1318622958, 0), "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.ReplaceAll(req.Header.Get("Authorization"), ", ", ",\n  "))
	// Output:
	// OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog",
	//   oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
	//   oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D",
	//   oauth_signature_method="HMAC-SHA1",
	//   oauth_timestamp="1318622958",
	//   oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
	//   oauth_version="1.0"
}

// Wrap an http.Client: every request it sends is signed, with a fresh
// nonce each time, redirects included.
func ExampleConfig_Client() {
	cfg := &oauth1.Config{
		ConsumerKey: os.Getenv("OAUTH1_CONSUMER_KEY"), ConsumerSecret: os.Getenv("OAUTH1_CONSUMER_SECRET"),
		// Optional: the client whose timeout, proxy and TLS settings to keep.
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	}
	client := cfg.Client(&oauth1.Credentials{Token: os.Getenv("OAUTH1_TOKEN"), Secret: os.Getenv("OAUTH1_TOKEN_SECRET")})

	// JSON bodies are not part of an OAuth 1.0a signature; they stream
	// through unread.
	resp, err := client.Post("https://api.x.com/2/tweets", "application/json", strings.NewReader(`{"text":"Hello"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
}

// Run the three-legged flow (RFC 5849 §2) out of band: the user authorizes
// the application in a browser and types the PIN the provider shows. A web
// application sets Callback to its own URL instead and reads the
// verification code with ParseCallback.
func ExampleConfig_AccessToken() {
	ctx := context.Background()
	cfg := &oauth1.Config{
		ConsumerKey: os.Getenv("OAUTH1_CONSUMER_KEY"), ConsumerSecret: os.Getenv("OAUTH1_CONSUMER_SECRET"),
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: "https://api.x.com/oauth/request_token",
			AuthorizeURL:    "https://api.x.com/oauth/authorize", // asks the user every time
			AccessTokenURL:  "https://api.x.com/oauth/access_token",
		},
		Callback: "oob",
	}
	temp, err := cfg.RequestToken(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Open this URL, authorize the application and type the PIN:")
	fmt.Println(cfg.AuthorizationURL(temp.Credentials))
	pin, err := bufio.NewReader(os.Stdin).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	tok, err := cfg.AccessToken(ctx, temp.Credentials, strings.TrimSpace(pin))
	if err != nil {
		log.Fatal(err) // a *oauth1.ResponseError says what the provider objected to
	}
	fmt.Println("Signed in as", tok.Values.Get("screen_name"), "token", tok.Credentials.Token)
	// Store tok.Credentials (token and secret) and use them with cfg.Client(tok.Credentials).
}

// A web application's callback handler: it looks the temporary credentials
// up by the token the provider sends back.
func ExampleParseCallback() {
	cfg := &oauth1.Config{
		ConsumerKey: os.Getenv("OAUTH1_CONSUMER_KEY"), ConsumerSecret: os.Getenv("OAUTH1_CONSUMER_SECRET"),
		Endpoint: oauth1.Endpoint{
			RequestTokenURL: "https://api.x.com/oauth/request_token",
			// "Sign in with X": a user who has authorized the application
			// already is sent back at once.
			AuthorizeURL:   "https://api.x.com/oauth/authenticate",
			AccessTokenURL: "https://api.x.com/oauth/access_token",
		},
		Callback: "https://app.example/callback",
	}
	pending := map[string]*oauth1.Credentials{} // temporary credentials by token; guard it in real code
	http.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		token, code, err := oauth1.ParseCallback(r, nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden) // also when the user said no (oauth1.ErrDenied)
			return
		}
		temp := pending[token]
		if temp == nil {
			http.Error(w, "unknown or expired request", http.StatusForbidden)
			return
		}
		delete(pending, token)
		tok, err := cfg.AccessToken(r.Context(), temp, code)
		if err != nil {
			http.Error(w, "the provider refused the token request", http.StatusBadGateway)
			return
		}
		_ = tok.Credentials // store them
		fmt.Fprintln(w, "Hello,", tok.Values.Get("screen_name"))
	})
}

// X: HMAC-SHA1 (the default) with the token credentials of the user; a JSON
// body is not signed. providers.X holds the endpoints.
func Example_x() {
	cfg := providers.X()
	cfg.ConsumerKey, cfg.ConsumerSecret = os.Getenv("OAUTH1_CONSUMER_KEY"), os.Getenv("OAUTH1_CONSUMER_SECRET")
	client := cfg.Client(&oauth1.Credentials{Token: os.Getenv("OAUTH1_TOKEN"), Secret: os.Getenv("OAUTH1_TOKEN_SECRET")})
	_, _ = client.Post("https://api.x.com/2/tweets", "application/json", strings.NewReader(`{"text":"Hello"}`))
}

// NetSuite token-based authentication: HMAC-SHA256, and the realm is the
// account id in uppercase, with "_SB1" for the first sandbox, while the host
// has it in lowercase with "-sb1"; providers.NetSuite applies both rules.
func Example_netSuite() {
	account := "1234567_SB1"           // the sandbox of account 1234567
	cfg := providers.NetSuite(account) // Realm "1234567_SB1"
	cfg.ConsumerKey, cfg.ConsumerSecret = os.Getenv("NS_CONSUMER_KEY"), os.Getenv("NS_CONSUMER_SECRET")
	client := cfg.Client(&oauth1.Credentials{Token: os.Getenv("NS_TOKEN_ID"), Secret: os.Getenv("NS_TOKEN_SECRET")})
	host := providers.NetSuiteHost(account) // 1234567-sb1
	_, _ = client.Get("https://" + host + ".suitetalk.api.netsuite.com/services/rest/record/v1/customer?limit=5")
}

// WooCommerce over plain HTTP: the parameters go in the query string and
// there is no token (two-legged); over HTTPS WooCommerce takes Basic auth
// instead. The legacy API v1 and v2 (/wc-api/v1, /wc-api/v2) want
// oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true} as Signer.
func Example_wooCommerce() {
	cfg := providers.WooCommerce() // HMAC-SHA256, QueryString
	cfg.ConsumerKey, cfg.ConsumerSecret = "ck_your_key", "cs_your_secret"
	client := cfg.Client(nil)
	_, _ = client.Get("http://shop.example/wp-json/wc/v3/products?per_page=5")
}

// Jira Server and Data Center application links: RSA-SHA1 with the
// private key whose public half is registered in Jira.
func Example_jira() {
	pem, err := os.ReadFile("jira_privatekey.pem")
	if err != nil {
		log.Fatal(err)
	}
	key, err := rsakey.Parse(pem, "")
	if err != nil {
		log.Fatal(err)
	}
	cfg := providers.Jira("https://jira.example.com") // RSA-SHA1, the application link's endpoints
	cfg.ConsumerKey = "my-consumer-key"               // RSA uses no consumer secret
	cfg.Signer = oauth1.RSA{Key: key}                 // zero Hash: RSA-SHA1
	client := cfg.Client(&oauth1.Credentials{Token: os.Getenv("JIRA_ACCESS_TOKEN")})
	_, _ = client.Get("https://jira.example.com/rest/api/2/myself")
}

// Mastercard APIs: RSA-SHA256 with the oauth_body_hash of every body
// (SHA-256), JSON included, and no token.
func Example_mastercard() {
	p12, err := os.ReadFile("mastercard-sandbox.p12")
	if err != nil {
		log.Fatal(err)
	}
	key, err := rsakey.Parse(p12, os.Getenv("MC_KEYSTORE_PASSWORD"))
	if err != nil {
		log.Fatal(err)
	}
	cfg := &oauth1.Config{
		ConsumerKey: os.Getenv("MC_CONSUMER_KEY"),
		Signer:      oauth1.RSA{Key: key, Hash: crypto.SHA256},
		BodyHash:    crypto.SHA256,
	}
	_, _ = cfg.Client(nil).Post("https://sandbox.api.mastercard.com/example", "application/json", strings.NewReader(`{"a":1}`))
}

// E*TRADE: the token requests are GETs, realm="" goes in the header, and
// its authorize page takes the consumer key and the request token as "key"
// and "token".
func Example_eTrade() {
	ctx := context.Background()
	cfg := providers.ETrade()
	cfg.ConsumerKey, cfg.ConsumerSecret = os.Getenv("ETRADE_CONSUMER_KEY"), os.Getenv("ETRADE_CONSUMER_SECRET")
	temp, err := cfg.RequestToken(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.AuthorizationURL(temp.Credentials, oauth1.Param{Name: "key", Value: cfg.ConsumerKey}, oauth1.Param{Name: "token", Value: temp.Credentials.Token}))
}
