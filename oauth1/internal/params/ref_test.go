package params

import (
	"slices"
	"strings"

	"github.com/countersign/countersign/percent"
)

// refBaseString is the signature base string of RFC 5849 §3.4.1 built the
// plain way, step by step as the RFC words it: the specification that Set
// implements. forms are queries and form bodies (§3.4.1.3.1), adds are
// pairs not encoded yet, such as the protocol parameters.
func refBaseString(method, uri string, forms []string, adds [][2]string) (string, error) {
	var pairs [][2]string
	for _, f := range forms {
		for _, kv := range strings.Split(f, "&") { // "&" alone, not ";"
			if kv == "" {
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			name, err := percent.DecodeForm(k)
			if err != nil {
				return "", err
			}
			value, err := percent.DecodeForm(v)
			if err != nil {
				return "", err
			}
			pairs = append(pairs, [2]string{name, value})
		}
	}
	pairs = append(pairs, adds...)

	// §3.4.1.3.2: encode, sort by name and then value, join.
	for i := range pairs {
		pairs[i] = [2]string{percent.Encode(pairs[i][0]), percent.Encode(pairs[i][1])}
	}
	slices.SortFunc(pairs, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	joined := make([]string, len(pairs))
	for i, p := range pairs {
		joined[i] = p[0] + "=" + p[1]
	}

	// §3.4.1.1: method, URI and parameters, each encoded, joined by "&".
	return strings.ToUpper(percent.Encode(method)) + "&" + percent.Encode(uri) + "&" +
		percent.Encode(strings.Join(joined, "&")), nil
}
