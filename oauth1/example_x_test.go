package oauth1_test

import (
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// The X API documentation's page "Authorizing a request" signs this request
// to the older /1/ path and publishes its Authorization header; SignAt, given
// the page's timestamp and nonce, writes that header byte for byte
// (testdata/vectors/x-update-1.txt). ExampleConfig_SignAt_quickstart signs
// the same request to /1.1/, the one of the page "Creating a signature".
func ExampleConfig_SignAt_authorizingARequest() {
	cfg := &oauth1.Config{ConsumerKey: "xvz1evFS4wEEPTGEFPHBog", ConsumerSecret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}
	tok := &oauth1.Credentials{
		Token:  "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
		Secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
	}
	req, err := http.NewRequest("POST", "https://api.twitter.com/1/statuses/update.json?include_entities=true",
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
	//   oauth_signature="tnnArxj06cWHq44gCs1OSKk%2FjLY%3D",
	//   oauth_signature_method="HMAC-SHA1",
	//   oauth_timestamp="1318622958",
	//   oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
	//   oauth_version="1.0"
}
