// Command x-post posts to the X API v2 (POST https://api.x.com/2/tweets)
// with OAuth 1.0a user-context credentials taken from the environment, by
// the names the oauth1 command reads too:
//
//	OAUTH1_CONSUMER_KEY, OAUTH1_CONSUMER_SECRET   the app's API key and secret
//	OAUTH1_TOKEN, OAUTH1_TOKEN_SECRET             the user's access token and secret
//
// The former names X_CONSUMER_KEY, X_CONSUMER_SECRET, X_ACCESS_TOKEN and
// X_ACCESS_TOKEN_SECRET still work, with a deprecation warning.
//
// With -dry-run it sends nothing: it prints the signature base string, the
// Authorization header and an equivalent curl command, using placeholder
// credentials for any variable that is not set.
package main

import (
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
)

const endpoint = "https://api.x.com/2/tweets"

func main() {
	text := flag.String("text", "Hello from countersign", "the text of the post")
	dryRun := flag.Bool("dry-run", false, "print the signed request instead of sending it")
	flag.Parse()
	log.SetFlags(0)

	env := func(name string) string {
		v := getenv(os.Getenv, os.Stderr, name)
		if v == "" {
			if !*dryRun {
				log.Fatalf("x-post: %s is not set (real credentials are needed; try -dry-run)", name)
			}
			v = "placeholder-" + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
			fmt.Fprintf(os.Stderr, "note: %s is not set; using %q\n", name, v)
		}
		return v
	}
	cfg := &oauth1.Config{
		ConsumerKey: env("OAUTH1_CONSUMER_KEY"), ConsumerSecret: env("OAUTH1_CONSUMER_SECRET"),
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	}
	tok := &oauth1.Credentials{Token: env("OAUTH1_TOKEN"), Secret: env("OAUTH1_TOKEN_SECRET")}

	body, err := json.Marshal(map[string]string{"text": *text})
	if err != nil {
		log.Fatal(err)
	}
	if *dryRun {
		printSigned(cfg, tok, body)
		return
	}

	// The JSON body is not part of the signature (RFC 5849 §3.4.1.3.1 signs
	// only form bodies), so the client streams it without reading it.
	resp, err := cfg.Client(tok).Post(endpoint, "application/json", strings.NewReader(string(body)))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status)
	fmt.Println(string(answer))
	if resp.StatusCode/100 != 2 {
		os.Exit(1)
	}
}

// printSigned signs the request once, with one timestamp and nonce, and
// shows what is signed and what would be sent.
func printSigned(cfg *oauth1.Config, tok *oauth1.Credentials, body []byte) {
	req, err := http.NewRequest("POST", endpoint, strings.NewReader(string(body)))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	now, nonce := time.Now(), rand.Text()
	base, err := cfg.BaseString(req, tok, now, nonce)
	if err != nil {
		log.Fatal(err)
	}
	if err := cfg.SignAt(req, tok, now, nonce); err != nil {
		log.Fatal(err)
	}
	auth := req.Header.Get("Authorization")
	fmt.Println("Signature base string:")
	fmt.Println(base)
	fmt.Println()
	fmt.Println("Authorization header:")
	fmt.Println(auth)
	fmt.Println()
	fmt.Println("curl command (valid for a few minutes; the nonce is single-use):")
	fmt.Printf("curl -X POST %s \\\n  -H %s \\\n  -H %s \\\n  --data-raw %s\n",
		shellQuote(endpoint), shellQuote("Authorization: "+auth), shellQuote("Content-Type: application/json"), shellQuote(string(body)))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// formerEnv maps each environment variable to the name this example read
// before all of countersign settled on the oauth1 command's OAUTH1_* names.
var formerEnv = map[string]string{
	"OAUTH1_CONSUMER_KEY":    "X_CONSUMER_KEY",
	"OAUTH1_CONSUMER_SECRET": "X_CONSUMER_SECRET",
	"OAUTH1_TOKEN":           "X_ACCESS_TOKEN",
	"OAUTH1_TOKEN_SECRET":    "X_ACCESS_TOKEN_SECRET",
}

// getenv returns the variable name, else its former name's value with a
// deprecation warning on w, so that a shell set up for the old names works.
func getenv(lookup func(string) string, w io.Writer, name string) string {
	if v := lookup(name); v != "" {
		return v
	}
	old := formerEnv[name]
	if old == "" {
		return ""
	}
	v := lookup(old)
	if v != "" {
		fmt.Fprintf(w, "warning: $%s is deprecated; set $%s instead\n", old, name)
	}
	return v
}
