package quirks

import (
	"strings"
	"testing"
)

// Equal base strings: the quirks are named from the URI alone.
func TestDiffEqual(t *testing.T) {
	for _, tt := range []struct{ base, want, text string }{
		{"GET&https%3A%2F%2F1234567-sb1.restlets.api.netsuite.com%2Fapp&oauth_consumer_key%3Dk", "netsuite-realm", `realm="1234567_SB1"`},
		{"GET&https%3A%2F%2Fshop.example%2Fwc-api%2Fv2%2Fproducts&oauth_consumer_key%3Dk", "woocommerce-legacy-key", "ConsumerSecretOnly: true"},
		{"GET&https%3A%2F%2Fapi.example.com%2F&oauth_consumer_key%3Dk", "", ""},
	} {
		qs := Diff(nil, tt.base)
		switch {
		case tt.want == "" && len(qs) != 0:
			t.Errorf("%s: %v, want none", tt.base, qs)
		case tt.want != "" && (len(qs) != 1 || qs[0].name != tt.want || !strings.Contains(qs[0].text, tt.text)):
			t.Errorf("%s: %v, want %s saying %s", tt.base, qs, tt.want, tt.text)
		}
	}
}
