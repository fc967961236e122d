// Command percent prints the X API's percent-encoding examples next to what
// percent.Encode makes of them, and checks that the two agree.
//
//	go run ./examples/percent
package main

import (
	"fmt"
	"os"

	"github.com/countersign/countersign/percent"
)

// The X API documentation ("Percent encoding parameters") lists these pairs
// and asks implementers to treat any difference as a bug.
var examples = []struct{ original, encoded string }{
	{"Ladies + Gentlemen", "Ladies%20%2B%20Gentlemen"},
	{"An encoded string!", "An%20encoded%20string%21"},
	{"Dogs, Cats & Mice", "Dogs%2C%20Cats%20%26%20Mice"},
	{"☃", "%E2%98%83"},
}

func main() {
	failed := false
	for _, ex := range examples {
		got := percent.Encode(ex.original)
		mark := "ok"
		if got != ex.encoded {
			mark = "MISMATCH, want " + ex.encoded
			failed = true
		}
		fmt.Printf("%-20q -> %-30s %s\n", ex.original, got, mark)
	}
	if failed {
		os.Exit(1)
	}
}
