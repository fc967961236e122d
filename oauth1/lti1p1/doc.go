// Package lti1p1 signs and verifies the LTI 1.1 migration claim of an LTI
// 1.3 launch, and names the platform's mistake when it does not verify.
//
// A platform moving a tool from LTI 1.1 (OAuth 1.0a) to LTI 1.3 (OpenID
// Connect) puts the claim https://purl.imsglobal.org/spec/lti/claim/lti1p1
// in the id_token: the LTI 1.1 user_id, oauth_consumer_key and other
// identifiers, and oauth_consumer_key_sign, which proves that the platform
// holds the LTI 1.1 shared secret of that consumer key. A tool that checks
// it may bind the new LTI 1.3 deployment to the account of the old key
// without asking anyone (1EdTech, "Learning Tools Interoperability
// Migration Guide", §"LTI 1.1 migration claim",
// https://www.imsglobal.org/spec/lti/v1p3/migr#lti-1-1-migration-claim).
//
// The sign is computed as the guide states it:
//
//	oauth_consumer_key_sign = base64(HMAC-SHA256(key, base))
//	key  = the LTI 1.1 shared secret, as it is (not the RFC 5849 key "secret&")
//	base = oauth_consumer_key "&" deployment_id "&" iss "&" client_id "&" exp "&" nonce
//
// where the six values are joined as they are, without encoding, exp is
// the id_token's expiry in seconds as a decimal integer, deployment_id is
// the claim https://purl.imsglobal.org/spec/lti/claim/deployment_id, and
// client_id is the tool's OAuth 2.0 client: aud, or azp when aud names
// several audiences (LTI 1.3 Core, https://www.imsglobal.org/spec/lti/v1p3/,
// §5.3.3 "LTI Deployment ID claim"; OpenID Connect Core 1.0 §2 and
// §3.1.3.7 for aud and azp).
// The base64 is the standard alphabet with its padding. The guide's own
// example (secret "my-lti11-secret", sign
// "lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6+12ps=") is a test here.
//
// A platform calls [Sign]. A tool decodes and verifies the id_token with
// its JWT library (this package checks no JWT signature, issuer or
// expiry), hands the payload to [Parse], and calls [Launch.Verify] with
// the secret of the claim's consumer key. When the sign is refused,
// [Launch.Diagnose] signs again with the mistakes platforms make (the RFC
// 5849 key, encoded values, another order, another hash, hex or URL-safe
// base64, exp as a float or in milliseconds, the client_id from another
// audience, a trailing "&", a value left out, ...) and names the one that
// reproduces the sign, for the platform's developers to fix. The command
// "oauth1 lti1p1" does the same from a shell.
//
// Secrets never appear in an error, a [Mistake] or a String.
package lti1p1
