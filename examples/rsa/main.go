// Command rsa signs a request with RSA-SHA1, the signature method that Jira
// Server and Data Center application links require, using a private key file
// loaded with rsakey.Parse.
//
// By default it uses the repository's test key and a placeholder Jira URL;
// -dry-run prints the signature base string, the Authorization header and a
// curl command, and checks the signature against the public key, all without
// network access. Without -dry-run it sends the request, which needs a real
// Jira, a consumer key registered there with the key's public half, and an
// access token (OAUTH1_TOKEN, formerly JIRA_ACCESS_TOKEN; none for two-legged requests).
package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

const testKey = "testdata/keys/rsa2048-pkcs1.pem"

func main() {
	keyFile := flag.String("key", testKey, "private key file (PEM, OpenSSH or PKCS #12)")
	password := flag.String("password", getenv(os.Getenv, os.Stderr, "OAUTH1_KEY_PASSWORD"), "password of an encrypted key file (default $OAUTH1_KEY_PASSWORD)")
	target := flag.String("url", "https://jira.example.com/rest/api/2/myself", "the URL to GET")
	consumerKey := flag.String("consumer-key", "countersign-example", "the consumer key of the application link")
	dryRun := flag.Bool("dry-run", false, "print the signed request instead of sending it")
	flag.Parse()
	log.SetFlags(0)

	data, err := readKey(*keyFile)
	if err != nil {
		log.Fatal(err)
	}
	key, err := rsakey.Parse(data, *password)
	if err != nil {
		log.Fatalf("%s: %v", *keyFile, err)
	}
	if *keyFile == testKey {
		fmt.Fprintln(os.Stderr, "note: using the repository's public TEST key; pass -key for a real one")
	}
	cfg := &oauth1.Config{
		ConsumerKey: *consumerKey,         // RSA-SHA1 uses no consumer secret
		Signer:      oauth1.RSA{Key: key}, // zero Hash: RSA-SHA1
	}
	var tok *oauth1.Credentials
	if t := getenv(os.Getenv, os.Stderr, "OAUTH1_TOKEN"); t != "" {
		tok = &oauth1.Credentials{Token: t} // RSA-SHA1 uses no token secret either
	}

	if *dryRun {
		printSigned(cfg, tok, key, *target)
		return
	}
	cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	resp, err := cfg.Client(tok).Get(*target)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status)
	fmt.Println(string(body))
	if resp.StatusCode/100 != 2 {
		os.Exit(1)
	}
}

// readKey reads name, and finds the default test key from anywhere inside
// the repository.
func readKey(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err == nil || name != testKey || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, testKey)); err == nil {
			return data, nil
		}
		if d == filepath.Dir(d) {
			return nil, fmt.Errorf("%s not found in %s or above; run from the repository or pass -key", testKey, dir)
		}
	}
}

func printSigned(cfg *oauth1.Config, tok *oauth1.Credentials, key *rsa.PrivateKey, target string) {
	req, err := http.NewRequest("GET", target, nil)
	if err != nil {
		log.Fatal(err)
	}
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
	fmt.Println("curl command:")
	fmt.Printf("curl %s \\\n  -H %s\n", shellQuote(target), shellQuote("Authorization: "+auth))
	fmt.Println()

	// What Jira does with the public key registered for the consumer.
	fmt.Println("RSA-SHA1 signature verifies with the public key:", verify(&key.PublicKey, base, auth))
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println()
	fmt.Println("Public key to paste into the Jira application link:")
	pem.Encode(os.Stdout, &pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func verify(pub *rsa.PublicKey, base, auth string) bool {
	_, rest, _ := strings.Cut(auth, `oauth_signature="`)
	enc, _, _ := strings.Cut(rest, `"`)
	sig64, err := percent.Decode(enc)
	if err != nil {
		return false
	}
	sig, err := base64.StdEncoding.DecodeString(sig64)
	if err != nil {
		return false
	}
	sum := sha1.Sum([]byte(base))
	return rsa.VerifyPKCS1v15(pub, crypto.SHA1, sum[:], sig) == nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// formerEnv maps each environment variable to the name this example read
// before all of countersign settled on the oauth1 command's OAUTH1_* names.
var formerEnv = map[string]string{
	"OAUTH1_KEY_PASSWORD": "KEY_PASSWORD",
	"OAUTH1_TOKEN":        "JIRA_ACCESS_TOKEN",
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
