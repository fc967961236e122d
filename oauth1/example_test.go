package oauth1_test

import (
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// BaseString is where an "invalid signature" investigation starts: it
// returns exactly the string SignAt signs. This is the example request of
// RFC 5849 §3.4.1.1, and the output is the base string the RFC gives.
func ExampleConfig_BaseString() {
	cfg := &oauth1.Config{
		ConsumerKey: "9djdj82h48djs9d2",
		Realm:       "Example", // sent in the header, never signed
		OmitVersion: true,      // the RFC's examples leave oauth_version out
	}
	tok := &oauth1.Credentials{Token: "kkk9d7dh3k39sjv7"}
	req, err := http.NewRequest("POST", "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b",
		strings.NewReader("c2&a3=2+q"))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	base, err := cfg.BaseString(req, tok, time.Unix(137131201, 0), "7d8f3e4a")
	if err != nil {
		log.Fatal(err)
	}
	// Split at the two separators to show the three parts.
	for _, part := range strings.SplitN(base, "&", 3) {
		fmt.Println(part)
	}
	// Output:
	// POST
	// http%3A%2F%2Fexample.com%2Frequest
	// a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7
}

// With QueryString delivery the protocol parameters travel in the URL, as
// WooCommerce wants over plain HTTP. This is the protected resource request
// of RFC 5849 §1.2; its signature is the one the RFC gives.
func ExampleConfig_SignAt_queryString() {
	cfg := &oauth1.Config{
		ConsumerKey: "dpf43f3p2l4k3l03", ConsumerSecret: "kd94hf93k423kf44",
		Delivery:    oauth1.QueryString,
		OmitVersion: true,
	}
	tok := &oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	req, err := http.NewRequest("GET", "http://photos.example.net/photos?file=vacation.jpg&size=original", nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := cfg.SignAt(req, tok, time.Unix(137131202, 0), "chapoH"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.ReplaceAll(req.URL.String(), "&", "\n  &"))
	// Output:
	// http://photos.example.net/photos?file=vacation.jpg
	//   &size=original
	//   &oauth_consumer_key=dpf43f3p2l4k3l03
	//   &oauth_nonce=chapoH
	//   &oauth_signature=MdpQcU8iPSUjWoN%2FUDMsK2sui9I%3D
	//   &oauth_signature_method=HMAC-SHA1
	//   &oauth_timestamp=137131202
	//   &oauth_token=nnch734d00sl2jdk
}

// Credentials print with their secret redacted, whatever the verb.
func ExampleCredentials() {
	tok := oauth1.Credentials{Token: "nnch734d00sl2jdk", Secret: "pfkkdhi9sl3r4s00"}
	fmt.Println(tok)
	fmt.Printf("%#v\n", tok)
	// Output:
	// {Token:nnch734d00sl2jdk Secret:REDACTED}
	// oauth1.Credentials{Token:"nnch734d00sl2jdk", Secret:REDACTED}
}
