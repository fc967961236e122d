package basestring

import (
	"crypto"
	"crypto/rsa"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/percent"
)

// This file names the mistake in the key when the base strings agree and
// the signature is still refused: the commonest invalid signature, and the
// one a comparison of base strings cannot see.

// A Key is what a provider knows of the credentials a refused request
// names: the secrets it holds for the consumer key and the token the
// request carries, and for the RSA methods the consumer's public key.
type Key struct {
	ConsumerKey, ConsumerSecret string
	Token, TokenSecret          string
	PublicKey                   *rsa.PublicKey // for RSA-SHA1, RSA-SHA256 and RSA-SHA512
}

// A MistakeKind names a mistake in the signing key or in the encoding of
// the signature, in words a program can match and a person can type:
// "empty-token-secret", "secret-whitespace", and so on. The names are
// stable.
type MistakeKind string

// The mistakes [KeyMistake] names, in the order a [Mistake] lists them.
const (
	// The signature is encoded otherwise than base64 once
	// percent-encoded: percent-encoded twice, URL-safe base64, base64
	// without its "=" padding, or hex.
	SignatureEncoding MistakeKind = "signature-encoding"
	// The client sent oauth_token but left its secret out of the key
	// ("consumer secret&").
	EmptyTokenSecret MistakeKind = "empty-token-secret"
	// The key is the consumer secret alone, without the "&".
	ConsumerSecretOnly MistakeKind = "consumer-secret-only"
	// Token secret first, consumer secret second.
	SwappedSecrets MistakeKind = "swapped-secrets"
	// The secrets joined with "&" but not percent-encoded.
	SecretNotEncoded MistakeKind = "secret-not-encoded"
	// The secrets percent-encoded twice before being joined.
	SecretEncodedTwice MistakeKind = "secret-encoded-twice"
	// A secret with a trailing newline or space one side has and the
	// other has not, as when it is read from a file or an env file.
	SecretWhitespace MistakeKind = "secret-whitespace"
	// The consumer key signed in place of the consumer secret.
	ConsumerKeyAsSecret MistakeKind = "consumer-key-as-secret"
	// The token signed in place of the token secret.
	TokenAsSecret MistakeKind = "token-as-secret"
	// A secret used base64-decoded, or base64-encoded.
	Base64Secret MistakeKind = "base64-secret"
	// Another HMAC hash than oauth_signature_method declares (HMAC-SHA256
	// for HMAC-SHA1, say).
	WrongHMACHash MistakeKind = "wrong-hmac-hash"
	// None of the mistakes reproduces the signature: the key (or, if the
	// base strings were not compared, the base string) differs, and not
	// in a way KeyMistake knows.
	KeyUnknown MistakeKind = "unknown"
	// The signature method is not one KeyMistake can check (an unknown
	// method, an RSA method without a public key, or a hash or key that
	// FIPS 140-only mode refuses), the arguments are out of order (base
	// no base string, or method a signature; the Cause then says "out of
	// order"), or a provider did not run the check for its cost (a
	// server.Verifier with DiagnoseKeys, past its bounds; the Cause then
	// begins "not diagnosed, for its cost").
	KeyUnchecked MistakeKind = "unchecked"
)

// A Mistake is what [KeyMistake] found: its kind and a sentence that
// describes it. Neither ever holds a secret or a signature. A client that
// made several mistakes at once (signed with HMAC-SHA256 for HMAC-SHA1 and
// sent the digest in hex, say) gets a Mistake whose Kind is the first of
// them, in the order of the MistakeKind constants, Also the others, and
// Cause a sentence for each: ask [Mistake.Includes], not Kind, whether it
// names a given mistake. The zero Mistake is no mistake.
type Mistake struct {
	Kind  MistakeKind
	Cause string
	Also  []MistakeKind // the other mistakes made with Kind; nil for one mistake
}

// Includes reports whether m names kind, first (Kind) or along with it
// (Also). A program that acts on one mistake asks Includes, not Kind ==:
// a mistake that comes later in the order of the MistakeKind constants
// is in Also when another came with it. Includes("") is false.
func (m Mistake) Includes(kind MistakeKind) bool {
	return kind != "" && (m.Kind == kind || slices.Contains(m.Also, kind))
}

// String returns the kinds, separated by "+", then ": " and the cause:
// "wrong-hmac-hash+signature-encoding: ...". It returns "" for the zero
// Mistake.
func (m Mistake) String() string {
	s := string(m.Kind)
	for _, k := range m.Also {
		s += "+" + string(k)
	}
	if m.Cause != "" {
		if s != "" {
			s += ": "
		}
		s += m.Cause
	}
	return s
}

// KeyMistake names the mistake that makes a refused signature: it signs
// base, the base string the provider computed, with the keys that the
// mistakes clients really make produce from key, and reports the one
// whose signature is signature, the oauth_signature the client sent (as
// the provider received it: percent-decoded once), under method, the
// oauth_signature_method it declared. It decodes the signature in each
// encoding clients send, and uses the HMAC hash whose length it has,
// whatever method declares, so that a mistake in the encoding or the hash
// is named along with one in the key. It reports false when signature is
// right for base and key: then nothing is wrong with the key. Otherwise
// it always reports a Mistake; [KeyUnknown] when none reproduces the
// signature.
//
// It is meant for a refusal that a person debugs, after the base strings
// were compared and found equal: it computes 25 HMACs over the whole
// base string (the right key, the mistaken keys and a few keys with two
// mistakes, with the one hash whose length the signature has; the number
// may grow as the list of mistakes does), so a provider should run it
// only when asked, never on every refusal. It computes as many whatever
// it finds and whatever the form of the secrets (the mistaken keys depend
// on it: a secret that decodes as base64 has more), so that the time it
// takes tells neither; none when the signature has the length of no
// HMAC. For an RSA method it verifies
// the signature at most 7 times with the public key; for PLAINTEXT it
// computes no HMAC.
// For the RSA methods only the [SignatureEncoding] mistakes apply, and
// key.PublicKey must be set. Signatures are compared in constant time.
// In FIPS 140-only mode (GODEBUG=fips140=only) it skips the keys and
// hashes that mode refuses (SHA-1, keys shorter than 112 bits) and says so.
//
// Its three strings are told apart by their shape, so that a call that
// swaps them is reported, not answered: when base is not a base string
// (METHOD&URI&parameters, with an http or https URI; for PLAINTEXT it may
// be empty) or method is a signature or a base string, it reports
// [KeyUnchecked] with a Cause that says the arguments are out of order and
// what each looks like, never what the signature holds.
func KeyMistake(base, signature, method string, key Key) (Mistake, bool) {
	m, ok, _ := keyMistake(base, signature, method, key)
	return m, ok
}

// keyMistake is KeyMistake, and also returns how many HMACs it computed.
func keyMistake(base, signature, method string, key Key) (Mistake, bool, int) {
	if m, bad := argsMistake("KeyMistake", base, signature, method); bad {
		return m, true, 0
	}
	method = strings.ToUpper(method)
	if method == "PLAINTEXT" {
		m, ok := plaintextMistake(signature, key)
		return m, ok, 0
	}
	h, isRSA, ok := mac.MethodHash(method)
	switch {
	case ok && isRSA:
		m, ok := rsaMistake(base, signature, method, h, key.PublicKey)
		return m, ok, 0
	case ok:
		t := &hmacTry{base: []byte(base), method: method, hash: h, sent: sentForms(signature)}
		m, ok := t.mistake(key)
		return m, ok, t.n
	}
	return Mistake{Kind: KeyUnchecked, Cause: "cannot try keys for the signature method " + strconv.Quote(method) +
		" (want HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT)"}, true, 0
}

// signingKey is the key of §3.4.2: each secret encoded, joined by "&".
func signingKey(consumerSecret, tokenSecret string) string {
	return percent.Encode(consumerSecret) + "&" + percent.Encode(tokenSecret)
}

// A candidate is a mistaken key and the mistakes that make it, each with
// its cause.
type candidate struct {
	kinds  []MistakeKind
	causes []string
	key    string
}

// candidates returns the mistaken keys to try, in order, without the
// right key and without repeats: mistakes that make the same key are
// told apart by no signature, and the first names it.
func candidates(k Key) []candidate {
	cs, ts := k.ConsumerSecret, k.TokenSecret
	hasToken := k.Token != "" || ts != ""
	var list []candidate
	add := func(kind MistakeKind, cause, key string) {
		list = append(list, candidate{[]MistakeKind{kind}, []string{cause}, key})
	}
	const (
		emptyTokenSecret   = `the client signed with an empty token secret: it sent oauth_token but left the token secret out of the key ("consumer secret" "&" and nothing after it); sign with the token's secret`
		consumerSecretOnly = `the client signed with the consumer secret alone: the key is the encoded consumer secret, "&", and the encoded token secret, and the "&" is there even when there is no token secret (RFC 5849 §3.4.2)`
	)
	if k.Token != "" && ts != "" {
		add(EmptyTokenSecret, emptyTokenSecret, percent.Encode(cs)+"&")
	}
	add(ConsumerSecretOnly, consumerSecretOnly, percent.Encode(cs))
	if ts != "" {
		add(SwappedSecrets, `the client signed with the secrets swapped: the key is the consumer secret first, then "&" and the token secret (§3.4.2)`, signingKey(ts, cs))
	}
	add(SecretNotEncoded, `the client joined the secrets with "&" without percent-encoding them; each secret is percent-encoded before they are joined (§3.4.2)`, cs+"&"+ts)
	add(SecretEncodedTwice, "the client percent-encoded the secrets twice before joining them; encode each once (§3.4.2)", signingKey(percent.Encode(cs), percent.Encode(ts)))
	type secret struct {
		name string
		s    string
		with func(string) string // the key with this secret replaced
		raw  func(string) string // the same, the replacement not percent-encoded
	}
	secrets := []secret{{"consumer secret", cs, func(v string) string { return signingKey(v, ts) }, func(v string) string { return v + "&" + percent.Encode(ts) }}}
	if hasToken {
		secrets = append(secrets, secret{"token secret", ts, func(v string) string { return signingKey(cs, v) }, func(v string) string { return percent.Encode(cs) + "&" + v }})
	}
	newline := func(name string) string {
		return "the client's " + name + " ends with a newline that the provider's does not: it was read from a file or an env file with its line end, or pasted with it; trim it"
	}
	for _, s := range secrets {
		for _, w := range []struct{ suffix, what string }{{"\n", "a newline"}, {"\r\n", "a CR LF"}, {" ", "a space"}} {
			add(SecretWhitespace, "the client's "+s.name+" ends with "+w.what+" that the provider's does not: it was read from a file or an env file with its line end, or pasted with it; trim it", s.with(s.s+w.suffix))
		}
		if t := strings.TrimSpace(s.s); t != s.s {
			add(SecretWhitespace, "the "+s.name+" the provider holds begins or ends with whitespace that the client's does not: it was stored with a line end or a space; trim it where it is stored", s.with(t))
		}
	}
	if hasToken {
		add(SecretWhitespace, "both of the client's secrets end with a newline that the provider's do not: they were read from files or an env file with their line ends; trim them", signingKey(cs+"\n", ts+"\n"))
	}
	if k.ConsumerKey != "" {
		add(ConsumerKeyAsSecret, "the client signed with the consumer key in place of the consumer secret: the key is made of the secrets, not of the identifiers sent in the request", signingKey(k.ConsumerKey, ts))
	}
	if k.Token != "" {
		add(TokenAsSecret, "the client signed with the token in place of the token secret: the key is made of the secrets, not of the identifiers sent in the request", signingKey(cs, k.Token))
	}
	for _, s := range secrets {
		if s.s == "" {
			continue
		}
		if d, ok := base64Decode(s.s); ok {
			add(Base64Secret, "the client used the "+s.name+" base64-decoded: the secret is the text as issued, used as it is, not the bytes it decodes to", s.with(string(d)))
			add(Base64Secret, "the client used the "+s.name+" base64-decoded, and its bytes in the key without percent-encoding them: the secret is the text as issued, used as it is, not the bytes it decodes to", s.raw(string(d)))
		}
		add(Base64Secret, "the client used the "+s.name+" base64-encoded: the secret is the text as issued, used as it is", s.with(base64.StdEncoding.EncodeToString([]byte(s.s))))
	}
	// Two mistakes at once, the likeliest pairs: a secret read from a file
	// with its newline, and the token secret left out.
	if cs != "" {
		if k.Token != "" && ts != "" {
			list = append(list, candidate{[]MistakeKind{EmptyTokenSecret, SecretWhitespace}, []string{emptyTokenSecret, newline("consumer secret")}, percent.Encode(cs+"\n") + "&"})
		}
		list = append(list, candidate{[]MistakeKind{ConsumerSecretOnly, SecretWhitespace}, []string{consumerSecretOnly, newline("consumer secret")}, percent.Encode(cs + "\n")})
	}
	right := signingKey(cs, ts)
	seen := map[string]bool{right: true}
	out := list[:0]
	for _, c := range list {
		if !seen[c.key] {
			seen[c.key] = true
			out = append(out, c)
		}
	}
	return out
}

// base64Decode decodes s in any of the four base64 alphabets and paddings.
func base64Decode(s string) ([]byte, bool) {
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := e.DecodeString(s); err == nil && len(d) > 0 {
			return d, true
		}
	}
	return nil, false
}

// hashName is the name of an HMAC hash in a method: "SHA256".
func hashName(h crypto.Hash) string {
	return strings.TrimPrefix(mac.MethodName(false, h), "HMAC-")
}
