package explain

import (
	"strings"

	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// BaseStringArg returns the base string in s. Providers that report the
// base string they computed put it in a form-encoded problem report
// ("oauth_problem=signature_invalid&oauth_signature_base_string=..."); a
// user pastes the whole body, so the base string is taken out of it when s
// itself is not one.
func BaseStringArg(s string) string {
	if _, err := basestring.Parse(s); err == nil {
		return s
	}
	for _, key := range []string{"oauth_signature_base_string=", "debug_sbs="} {
		_, v, ok := strings.Cut(s, key)
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "&")
		if d, err := percent.DecodeForm(v); err == nil {
			if _, err := basestring.Parse(d); err == nil {
				return d
			}
		}
	}
	return s
}
