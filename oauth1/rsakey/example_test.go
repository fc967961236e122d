package rsakey_test

import (
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/countersign/countersign/oauth1/rsakey"
)

func ExampleParse() {
	// A .p12 file as OpenSSL 3 writes it by default, with its password.
	data, err := os.ReadFile("../../testdata/keys/rsa2048-aes.p12")
	if err != nil {
		log.Fatal(err)
	}
	key, err := rsakey.Parse(data, "test-password")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key.N.BitLen(), "bit RSA key")

	// The same file without its password: ask the user for one.
	_, err = rsakey.Parse(data, "")
	fmt.Println(errors.Is(err, rsakey.ErrPasswordRequired))

	// An ECDSA key cannot sign RSA-SHA256.
	data, err = os.ReadFile("../../testdata/keys/ec-p256-pkcs8.pem")
	if err != nil {
		log.Fatal(err)
	}
	_, err = rsakey.Parse(data, "")
	fmt.Println(err)
	// Output:
	// 2048 bit RSA key
	// true
	// rsakey: found ECDSA P-256 private key, want RSA
}

// A provider reads the public key a client registers, here as Jira shows
// it to its administrators.
func ExampleParsePublic() {
	data, err := os.ReadFile("../../testdata/keys/rsa2048-public.pem")
	if err != nil {
		log.Fatal(err)
	}
	key, err := rsakey.ParsePublic(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(key.N.BitLen(), "bit RSA public key")

	// The client pasted its private key by mistake.
	data, err = os.ReadFile("../../testdata/keys/rsa2048-pkcs1.pem")
	if err != nil {
		log.Fatal(err)
	}
	_, err = rsakey.ParsePublic(data)
	fmt.Println(errors.Is(err, rsakey.ErrFormat))
	// Output:
	// 2048 bit RSA public key
	// true
}
