// Package redact prints values that hold secrets without them, the same
// way under every fmt verb, for the types of oauth1 and oauth1/server.
package redact

import (
	"crypto/rsa"
	"fmt"
	"strconv"
	"strings"
)

// Text replaces every secret.
const Text = "REDACTED"

// Secret returns Text for a secret, and `""` for none, so that a missing
// secret can be told from a redacted one.
func Secret(secret string) string {
	if secret == "" {
		return `""`
	}
	return Text
}

// Format prints s (or gs for %#v) under the verb, flags and width of f, and
// any other verb as fmt prints a bad one.
func Format(f fmt.State, verb rune, typ, s, gs string) {
	switch verb {
	case 'v':
		if f.Flag('#') {
			s = gs
		}
		fmt.Fprintf(f, strings.Replace(fmt.FormatString(f, 's'), "#", "", 1), s)
	case 's', 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), s)
	default:
		fmt.Fprintf(f, "%%!%c(%s=%s)", verb, typ, s)
	}
}

// PublicKey names an RSA public key by its size.
func PublicKey(k *rsa.PublicKey) string {
	if k == nil || k.N == nil {
		return "nil"
	}
	return "RSA-" + strconv.Itoa(k.N.BitLen())
}
