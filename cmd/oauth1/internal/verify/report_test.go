package verify

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/countersign/countersign/oauth1/basestring"
)

// bugPhrases takes the bugs out of the causes basestring writes for one
// bug, several, and bugs with a key mistake (rebuild.go's sentences).
func TestBugPhrases(t *testing.T) {
	for _, tt := range []struct {
		m    basestring.Mistake
		want []string
	}{
		{basestring.Mistake{Kind: basestring.BaseStringDiffers, Cause: "the key is right, and the client signed another base string: it sorts the parameters before encoding them; sort them by encoded name"},
			[]string{"sorts the parameters before encoding them; sort them by encoded name"}},
		{basestring.Mistake{Kind: basestring.BaseStringDiffers, Cause: "the key is right, and the client signed another base string, with 2 bugs: it drops the port; and it signs realm" + SignedMarker + `"GET&x&y"`},
			[]string{"drops the port", "signs realm"}},
		{basestring.Mistake{Kind: basestring.BaseStringDiffers, Also: []basestring.MistakeKind{basestring.SignatureEncoding},
			Cause: "the key is right, and the client signed another base string: it drops the port; and the signature is percent-encoded twice"},
			[]string{"drops the port"}},
		{basestring.Mistake{Kind: basestring.BaseStringDiffers, Cause: "no bug named"}, nil},
	} {
		assert.Equal(t, tt.want, bugPhrases(tt.m), tt.m.Cause)
	}
}
