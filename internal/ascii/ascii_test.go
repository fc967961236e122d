package ascii

import (
	"strings"
	"testing"
)

// The sets as the RFCs spell them, written out rather than derived.
const (
	alnum         = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	unreservedSet = alnum + "-._~"
	tcharSet      = alnum + "!#$%&'*+-.^_`|~"
)

func TestClasses(t *testing.T) {
	for i := range 256 {
		c := byte(i)
		if got, want := Unreserved(c), strings.IndexByte(unreservedSet, c) >= 0; got != want {
			t.Errorf("Unreserved(%q) = %v, want %v", c, got, want)
		}
		if got, want := TokenChar(c), strings.IndexByte(tcharSet, c) >= 0; got != want {
			t.Errorf("TokenChar(%q) = %v, want %v", c, got, want)
		}
		v, ok := Unhex(c)
		wantV := strings.IndexByte("0123456789abcdef", c|0x20)
		if c < '0' || (c > '9' && c|0x20 < 'a') {
			wantV = -1
		}
		if ok != (wantV >= 0) || ok && int(v) != wantV {
			t.Errorf("Unhex(%q) = %d, %v, want %d", c, v, ok, wantV)
		}
	}
}
