package basestring

import (
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// This file catches the arguments of KeyMistake and Reproduce given out of
// order: base, signature and method are three strings, and a call that
// swaps two of them compiles. Each has a shape the others never have (a
// base string is three "&"-separated parts with an http or https URI in
// the middle, a method is one of seven names, a signature is neither), so
// a swap is reported, never answered as a mistake in the key.

// argsMistake reports, as a KeyUnchecked Mistake, arguments of fn that are
// out of order or that are no base string or method at all. It never
// quotes an argument but a method that has a method's shape: a signature,
// and for PLAINTEXT the secrets, stay out of the Cause.
func argsMistake(fn, base, signature, method string) (Mistake, bool) {
	if argsFit(base, method) {
		return Mistake{}, false
	}
	if !outOfOrder(base, signature, method) {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot try keys for the signature method " + quoteMethod(method) +
			" (want HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT)"}, true
	}
	return Mistake{Kind: KeyUnchecked, Cause: "not checked: the arguments of " + fn + " are out of order or not what it takes: " +
		"base is " + describeArg(base) + ", signature " + describeArg(signature) + " and method " + describeArg(method) +
		"; it takes the base string the provider computed, the oauth_signature sent and the oauth_signature_method sent, in that order"}, true
}

// argsFit reports whether base is a base string and method a method name.
// For PLAINTEXT, whose signature is no hash of the base string, base may
// be empty.
func argsFit(base, method string) bool {
	return isMethod(method) && (isBaseString(base) || (base == "" && strings.EqualFold(method, "PLAINTEXT")))
}

// outOfOrder reports whether arguments that do not fit are misplaced or
// wrong, not merely a method this package does not know.
func outOfOrder(base, signature, method string) bool {
	baseOK := isBaseString(base) || (base == "" && !isMethod(method))
	return !baseOK || isMethod(signature) || isBaseString(signature) || isBaseString(method)
}

// isBaseString reports whether s has the shape of a base string (§3.4.1.1):
// a method, "&", the encoded http or https URI, "&", and the parameters.
// It checks only the shape a signature or a method never has.
func isBaseString(s string) bool {
	i1, i2, _, err := splitParts(s)
	if err != nil || i1 == 0 {
		return false
	}
	uri := s[i1+1 : i2]
	return hasPrefixFold(uri, "http%3a%2f%2f") || hasPrefixFold(uri, "https%3a%2f%2f")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// isMethod reports whether s is a signature method name, in any case
// (mac knows the HMAC and RSA ones).
func isMethod(s string) bool {
	s = strings.ToUpper(s)
	_, _, ok := mac.MethodHash(s)
	return ok || s == "PLAINTEXT"
}

// quoteMethod quotes a method that has the shape of one (up to 32 letters,
// digits and "-", "_", "."), and otherwise gives its length alone.
func quoteMethod(s string) string {
	if len(s) <= 32 && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.") == "" && s != "" {
		return strconv.Quote(s)
	}
	return "of " + strconv.Itoa(len(s)) + " bytes that is no method name"
}

// describeArg says what an argument looks like, never what it holds.
func describeArg(s string) string {
	switch {
	case s == "":
		return "empty"
	case isMethod(s):
		return "a signature method name"
	case isBaseString(s):
		return "a base string"
	}
	return "neither a base string nor a method name (" + strconv.Itoa(len(s)) + " bytes)"
}
