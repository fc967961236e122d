package rsakey

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// TestDocBounds checks the bounds the package doc states against the
// constants that enforce them, so that the doc stays true when one moves.
func TestDocBounds(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ReplaceAll(string(b), "\n//", "")
	for _, c := range []struct {
		re   string
		want int
	}{
		{`\[MaxPublicBits\] \((\d+) bits\)`, MaxPublicBits},
		{`more than (\d+) bcrypt rounds`, maxOpenSSHRounds},
	} {
		m := regexp.MustCompile(c.re).FindStringSubmatch(doc)
		if m == nil {
			t.Errorf("doc.go: no bound matching %q", c.re)
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n != c.want {
			t.Errorf("doc.go says %s, the code's bound is %d", m[0], c.want)
		}
	}
}

// TestMaxPublicBitsIsTheModulesBound checks that the number go doc shows
// for MaxPublicBits is the bound the signers and the Verifier apply.
func TestMaxPublicBitsIsTheModulesBound(t *testing.T) {
	if MaxPublicBits != mac.MaxRSABits {
		t.Errorf("MaxPublicBits = %d, but oauth1/internal/mac bounds RSA keys at %d bits", MaxPublicBits, mac.MaxRSABits)
	}
}
