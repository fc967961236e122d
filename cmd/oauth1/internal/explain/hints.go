package explain

import "github.com/countersign/countersign/oauth1/basestring"

// A hintKey identifies the cause of a difference: package basestring
// chooses a cause by the difference's kind and parameter.
type hintKey struct {
	kind basestring.Kind
	name string
}

// hints are the flags of "oauth1 sign" that fix a difference, added to the
// library's cause, which names the Config fields and methods.
var hints = map[hintKey]string{
	{basestring.MissingParam, "oauth_body_hash"}: "--body-hash",
	{basestring.MissingParam, "oauth_callback"}:  "--callback",
	{basestring.MissingParam, "oauth_verifier"}:  "--verifier",
	{basestring.ExtraParam, "oauth_version"}:     "--no-version",
	{basestring.ValueDiffers, "oauth_nonce"}:     "--nonce N --timestamp T",
	{basestring.ValueDiffers, "oauth_timestamp"}: "--nonce N --timestamp T",
}

// WithHints adds to the causes of ds the flags of "oauth1 sign" to try.
func WithHints(ds []basestring.Difference) []basestring.Difference {
	for i, d := range ds {
		if h, ok := hints[hintKey{d.Kind, d.Name}]; ok {
			ds[i].Cause += "; with oauth1 sign, " + h
		}
	}
	return ds
}
