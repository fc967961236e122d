package percent_test

import (
	"errors"
	"fmt"

	"github.com/countersign/countersign/percent"
)

func ExampleEncode() {
	fmt.Println(percent.Encode("Ladies + Gentlemen"))
	fmt.Println(percent.Encode("☃"))
	fmt.Println(percent.Encode("already-unreserved"))
	// Output:
	// Ladies%20%2B%20Gentlemen
	// %E2%98%83
	// already-unreserved
}

func ExampleAppendEncode() {
	// A buffer reused across calls, as when building a signature base
	// string, stops allocating once it is large enough.
	buf := []byte("oauth_callback=")
	buf = percent.AppendEncode(buf, "https://example.com/cb?x=1")
	fmt.Println(string(buf))
	// Output: oauth_callback=https%3A%2F%2Fexample.com%2Fcb%3Fx%3D1
}

func ExampleEncodedLen() {
	s := "Dogs, Cats & Mice"
	fmt.Println(len(s), percent.EncodedLen(s))
	// Output: 17 27
}

func ExampleDecode() {
	s, err := percent.Decode("An%20encoded%20string%21+%e2%98%83")
	fmt.Printf("%q %v\n", s, err)
	// Output: "An encoded string!+☃" <nil>
}

func ExampleAppendDecode() {
	buf, err := percent.AppendDecode([]byte("got: "), "caf%C3%A9%2")
	fmt.Printf("%q %v\n", buf, err)
	// Output: "got: café" percent: invalid escape "%2" at offset 9
}

func ExampleDecodeForm() {
	s, err := percent.DecodeForm("2+q%2B1")
	fmt.Printf("%q %v\n", s, err)
	// Output: "2 q+1" <nil>
}

func ExampleAppendDecodeForm() {
	buf, err := percent.AppendDecodeForm([]byte("a3="), "2+q")
	fmt.Printf("%q %v\n", buf, err)
	// Output: "a3=2 q" <nil>
}

func ExampleNormalize() {
	s, err := percent.Normalize("%7euser%2fa%c3%a9")
	fmt.Println(s, err)
	// Output: ~user%2Fa%C3%A9 <nil>
}

func ExampleEscapeError() {
	_, err := percent.Decode("%u2603")
	var e *percent.EscapeError
	if errors.As(err, &e) {
		fmt.Printf("offset %d, escape %q\n", e.Offset, e.Escape)
	}
	// Output: offset 0, escape "%u2"
}
