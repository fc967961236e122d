package basestring_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"fmt"

	"github.com/countersign/countersign/oauth1/basestring"
)

func ExampleParse() {
	b, err := basestring.Parse("GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Dhello%2520world")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Method, b.URI)
	for _, p := range b.Params {
		fmt.Printf("%s = %q (signed as %s)\n", p.Name, p.Value, p.RawValue)
	}
	// Output:
	// GET https://api.example.com/search
	// oauth_consumer_key = "key" (signed as key)
	// q = "hello world" (signed as hello%20world)
}

func ExampleDiff() {
	// The provider's base string, from its error response, and the one the
	// client signed: the client encoded the query value a second time.
	want := "GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Da%252Cb"
	got := "GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Da%25252Cb"
	for _, d := range basestring.Diff(want, got) {
		fmt.Println(d.Kind, d.Name)
	}
	fmt.Print(basestring.Format(basestring.Diff(want, got)))
	// Output:
	// double-encoded q
	// signature base strings differ (-want +got):
	// double-encoded q: got's value is encoded twice (want has "a%2Cb", got "a%252Cb"): the client encoded a value that was already encoded, such as one taken from a URL; decode query and form values before signing
	//   - q=a%2Cb
	//   + q=a%252Cb
}

func ExampleDiff_libraryBugs() {
	// The client took the UTF-8 bytes of "ü" for two Latin-1 characters,
	// and signed only one value of the repeated name "tag".
	want := "GET&https%3A%2F%2Fapi.example.com%2Fsearch&name%3DM%25C3%25BCller%26tag%3Da%26tag%3Db"
	got := "GET&https%3A%2F%2Fapi.example.com%2Fsearch&name%3DM%25C3%2583%25C2%25BCller%26tag%3Da"
	for _, d := range basestring.Diff(want, got) {
		fmt.Printf("%s %s: %s\n", d.Kind, d.Name, d.Want)
	}
	// Output:
	// charset name: name=M%C3%BCller
	// repeated name tag: tag=b
}

func ExampleReproduce() {
	// The provider's base string of a refused request, and the request's
	// query as it was sent: q is "a b".
	base := "GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Da%2520b"
	sent := basestring.Request{Query: "q=a%20b", Host: "api.example.com"}
	key := basestring.Key{ConsumerKey: "key", ConsumerSecret: "secret"}

	// The signature the client sent, computed here as the client did: it
	// encoded the space as "+".
	m := hmac.New(sha1.New, []byte("secret&"))
	m.Write([]byte("GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Da%2Bb"))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))

	mistake, signed, ok := basestring.Reproduce(base, sig, "HMAC-SHA1", key, sent)
	fmt.Println(ok, mistake.Kind)
	fmt.Println(mistake.Cause)
	fmt.Println(signed)
	// Output:
	// true base-string-differs
	// the key is right, and the client signed another base string: it encodes spaces as "+" (as url.QueryEscape, URLSearchParams and form encoders do), where OAuth requires "%20" (RFC 5849 §3.6)
	// GET&https%3A%2F%2Fapi.example.com%2Fsearch&oauth_consumer_key%3Dkey%26q%3Da%2Bb
}
