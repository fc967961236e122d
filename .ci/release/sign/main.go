// Command sign is what a new user of the published module writes first: it
// signs a request with oauth1.Config.Sign and prints the Authorization
// header. .ci/release-check builds and runs it against the module as
// downloaded from a module proxy, not from this repository.
package main

import (
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/countersign/countersign/oauth1"
)

func main() {
	cfg := &oauth1.Config{ConsumerKey: "consumer-key", ConsumerSecret: "consumer-secret"}
	tok := &oauth1.Credentials{Token: "token", Secret: "token-secret"}
	req, err := http.NewRequest("POST", "https://api.example.com/1.1/statuses/update.json",
		strings.NewReader("status=Hello%20Ladies"))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := cfg.Sign(req, tok); err != nil {
		log.Fatal(err)
	}
	auth := req.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "OAuth ") || !strings.Contains(auth, `oauth_signature="`) {
		log.Fatalf("Authorization header %q is not a signed OAuth header", auth)
	}
	fmt.Println("Authorization:", auth)
}
