package basestring

import (
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"

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

// The mistakes [KeyMistake] tries, in the order it tries them.
const (
	// The signature is right, but encoded otherwise than base64 once
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
	// The right key, but another HMAC hash than oauth_signature_method
	// declares (HMAC-SHA256 for HMAC-SHA1, say).
	WrongHMACHash MistakeKind = "wrong-hmac-hash"
	// A secret used base64-decoded, or base64-encoded.
	Base64Secret MistakeKind = "base64-secret"
	// None of the mistakes reproduces the signature: the key (or, if the
	// base strings were not compared, the base string) differs, and not
	// in a way KeyMistake knows.
	KeyUnknown MistakeKind = "unknown"
	// The signature method is not one KeyMistake can check (an unknown
	// method, or an RSA method without a public key).
	KeyUnchecked MistakeKind = "unchecked"
)

// A Mistake is what [KeyMistake] found: its kind and a sentence that
// describes it. Neither ever holds a secret or a signature.
type Mistake struct {
	Kind  MistakeKind
	Cause string
}

func (m Mistake) String() string { return string(m.Kind) + ": " + m.Cause }

// MaxKeyTries bounds the HMACs KeyMistake computes over the base string
// for one call (each over the whole base string): the right key, 20
// mistaken keys and the 2 other hashes make at most 23. For an RSA method
// it verifies the signature at most 6 times with the public key; for
// PLAINTEXT it computes no HMAC.
const MaxKeyTries = 23

// KeyMistake names the mistake that makes a refused signature: it signs
// base, the base string the provider computed, with the keys that the
// mistakes clients really make produce from key, and reports the one
// whose signature is signature, the oauth_signature the client sent (as
// the provider received it: percent-decoded once), under method, the
// oauth_signature_method it declared. It reports false when signature is
// right for base and key: then nothing is wrong with the key. Otherwise
// it always reports a Mistake; [KeyUnknown] when none reproduces the
// signature.
//
// It is meant for a refusal that a person debugs, after the base strings
// were compared and found equal: it computes up to [MaxKeyTries] HMACs,
// so a provider should run it only when asked, never on every refusal.
// For the RSA methods only the [SignatureEncoding] mistakes apply, and
// key.PublicKey must be set. Signatures are compared in constant time.
func KeyMistake(base, signature, method string, key Key) (Mistake, bool) {
	m, ok, _ := keyMistake(base, signature, method, key)
	return m, ok
}

// keyMistake is KeyMistake, and also returns how many HMACs it computed.
func keyMistake(base, signature, method string, key Key) (Mistake, bool, int) {
	method = strings.ToUpper(method)
	if method == "PLAINTEXT" {
		m, ok := plaintextMistake(signature, key)
		return m, ok, 0
	}
	alg, h := splitMethod(method)
	switch {
	case alg == "RSA" && h != 0:
		m, ok := rsaMistake(base, signature, method, h, key.PublicKey)
		return m, ok, 0
	case alg == "HMAC" && h != 0:
		t := &hmacTry{base: []byte(base), signature: signature, method: method, hash: h}
		m, ok := t.mistake(key)
		return m, ok, t.n
	}
	return Mistake{KeyUnchecked, "cannot try keys for the signature method " + strconv.Quote(method) +
		" (want HMAC-SHA1, HMAC-SHA256, HMAC-SHA512, RSA-SHA1, RSA-SHA256, RSA-SHA512 or PLAINTEXT)"}, true, 0
}

func splitMethod(method string) (alg string, h crypto.Hash) {
	alg, name, _ := strings.Cut(method, "-")
	switch name {
	case "SHA1":
		h = crypto.SHA1
	case "SHA256":
		h = crypto.SHA256
	case "SHA512":
		h = crypto.SHA512
	}
	return alg, h
}

func hashName(h crypto.Hash) string {
	switch h {
	case crypto.SHA1:
		return "SHA1"
	case crypto.SHA256:
		return "SHA256"
	}
	return "SHA512"
}

func newHash(h crypto.Hash) func() hash.Hash {
	switch h {
	case crypto.SHA1:
		return sha1.New
	case crypto.SHA256:
		return sha256.New
	}
	return sha512.New
}

// signingKey is the key of §3.4.2: each secret encoded, joined by "&".
func signingKey(consumerSecret, tokenSecret string) string {
	return percent.Encode(consumerSecret) + "&" + percent.Encode(tokenSecret)
}

// A candidate is a mistaken key and the mistake that makes it.
type candidate struct {
	kind  MistakeKind
	cause string
	key   string
}

// candidates returns the mistaken keys to try, in order, without the
// right key and without repeats: mistakes that make the same key are
// told apart by no signature, and the first names it.
func candidates(k Key) []candidate {
	cs, ts := k.ConsumerSecret, k.TokenSecret
	hasToken := k.Token != "" || ts != ""
	var list []candidate
	add := func(kind MistakeKind, cause, key string) {
		list = append(list, candidate{kind, cause, key})
	}
	if k.Token != "" && ts != "" {
		add(EmptyTokenSecret, `the client signed with an empty token secret: it sent oauth_token but left the token secret out of the key ("consumer secret" "&" and nothing after it); sign with the token's secret`, percent.Encode(cs)+"&")
	}
	add(ConsumerSecretOnly, `the client signed with the consumer secret alone: the key is the encoded consumer secret, "&", and the encoded token secret, and the "&" is there even when there is no token secret (RFC 5849 §3.4.2)`, percent.Encode(cs))
	if ts != "" {
		add(SwappedSecrets, `the client signed with the secrets swapped: the key is the consumer secret first, then "&" and the token secret (§3.4.2)`, signingKey(ts, cs))
	}
	add(SecretNotEncoded, `the client joined the secrets with "&" without percent-encoding them; each secret is percent-encoded before they are joined (§3.4.2)`, cs+"&"+ts)
	add(SecretEncodedTwice, "the client percent-encoded the secrets twice before joining them; encode each once (§3.4.2)", signingKey(percent.Encode(cs), percent.Encode(ts)))
	type secret struct {
		name string
		s    string
		with func(string) string // the key with this secret replaced
	}
	secrets := []secret{{"consumer secret", cs, func(v string) string { return signingKey(v, ts) }}}
	if hasToken {
		secrets = append(secrets, secret{"token secret", ts, func(v string) string { return signingKey(cs, v) }})
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
		}
		add(Base64Secret, "the client used the "+s.name+" base64-encoded: the secret is the text as issued, used as it is", s.with(base64.StdEncoding.EncodeToString([]byte(s.s))))
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

// sigEncodings are the encodings of a right signature that clients send,
// each with how it reads in a Mistake; unpadded base64 comes before
// unpadded URL-safe base64, which it equals when the signature has no "+"
// or "/".
var sigEncodings = []struct {
	cause  string
	encode func(sig []byte) string
}{
	{`the signature is right but percent-encoded twice: the client encoded oauth_signature before its request writer encoded it again ("%253D" arrives as "%3D"); encode it once`,
		func(sig []byte) string { return percent.Encode(base64.StdEncoding.EncodeToString(sig)) }},
	{`the signature is right but in URL-safe base64 ("-" and "_" for "+" and "/"); OAuth uses the standard alphabet (RFC 2045, §3.4.2)`,
		func(sig []byte) string { return base64.URLEncoding.EncodeToString(sig) }},
	{`the signature is right but its base64 lacks the "=" padding; send it padded (RFC 2045, §3.4.2)`,
		func(sig []byte) string { return base64.RawStdEncoding.EncodeToString(sig) }},
	{`the signature is right but in URL-safe base64 ("-" and "_" for "+" and "/") without its "=" padding; OAuth uses the standard alphabet, padded (RFC 2045, §3.4.2)`,
		func(sig []byte) string { return base64.RawURLEncoding.EncodeToString(sig) }},
	{"the signature is right but in hex, not base64 (§3.4.2): the client printed the digest, not its base64 encoding",
		func(sig []byte) string { return hex.EncodeToString(sig) }},
	{"the signature is right but in uppercase hex, not base64 (§3.4.2): the client printed the digest, not its base64 encoding",
		func(sig []byte) string { return strings.ToUpper(hex.EncodeToString(sig)) }},
}

// hmacTry signs one base string with the keys to try, counting the HMACs.
type hmacTry struct {
	base      []byte
	signature string
	method    string
	hash      crypto.Hash
	sent      []byte // the signature decoded as standard base64; nil if it is not
	n         int
}

func (t *hmacTry) mac(h crypto.Hash, key string) []byte {
	t.n++
	m := hmac.New(newHash(h), []byte(key))
	m.Write(t.base)
	return m.Sum(nil)
}

func (t *hmacTry) matches(h crypto.Hash, key string) bool {
	return t.sent != nil && hmac.Equal(t.mac(h, key), t.sent)
}

func (t *hmacTry) mistake(k Key) (Mistake, bool) {
	if sent, err := base64.StdEncoding.DecodeString(t.signature); err == nil {
		t.sent = sent
	}
	right := signingKey(k.ConsumerSecret, k.TokenSecret)
	sig := t.mac(t.hash, right)
	if t.sent != nil && hmac.Equal(sig, t.sent) {
		return Mistake{}, false
	}
	for _, e := range sigEncodings {
		if subtle.ConstantTimeCompare([]byte(e.encode(sig)), []byte(t.signature)) == 1 {
			return Mistake{SignatureEncoding, e.cause}, true
		}
	}
	for _, c := range candidates(k) {
		if t.matches(t.hash, c.key) {
			return Mistake{c.kind, c.cause}, true
		}
	}
	for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256, crypto.SHA512} {
		if h != t.hash && t.matches(h, right) {
			return Mistake{WrongHMACHash, "the client signed with the right key but with HMAC-" + hashName(h) + ", and declared " + t.method +
				" in oauth_signature_method: its signer and the method it sends disagree"}, true
		}
	}
	return Mistake{KeyUnknown, t.unknown(k)}, true
}

// unknown says that no mistake reproduces the signature, and what the
// signature's shape still tells.
func (t *hmacTry) unknown(k Key) string {
	var b strings.Builder
	b.WriteString("the key differs, and not in a way this check knows: the signature matches none of the " + strconv.Itoa(t.n) +
		" keys and hashes tried (the right key, the common mistakes with it, the other HMAC hashes)")
	switch n := len(t.sent); {
	case t.sent == nil:
		b.WriteString(`; the signature is not even standard base64, as §3.4.2 requires`)
	case n != t.hash.Size():
		b.WriteString("; the signature decodes to " + strconv.Itoa(n) + " bytes, not the " + strconv.Itoa(t.hash.Size()) + " of an " + t.method)
		for _, h := range []crypto.Hash{crypto.SHA1, crypto.SHA256, crypto.SHA512} {
			if h.Size() == n {
				b.WriteString(" (" + strconv.Itoa(n) + " is the length of an HMAC-" + hashName(h) + ")")
			}
		}
	}
	b.WriteString(". Compare the secrets the client signs with byte by byte: the provider's consumer secret has " + strconv.Itoa(len(k.ConsumerSecret)) +
		" bytes and its token secret " + strconv.Itoa(len(k.TokenSecret)) + "; is the client using the credentials of another application, or of an older token?")
	return b.String()
}

// plaintextMistake compares the PLAINTEXT signature, which is the key
// itself, with the mistaken keys.
func plaintextMistake(signature string, k Key) (Mistake, bool) {
	eq := func(key string) bool { return subtle.ConstantTimeCompare([]byte(key), []byte(signature)) == 1 }
	right := signingKey(k.ConsumerSecret, k.TokenSecret)
	if eq(right) {
		return Mistake{}, false
	}
	if eq(percent.Encode(right)) {
		return Mistake{SignatureEncoding, `the PLAINTEXT signature is right but percent-encoded twice: the client encoded oauth_signature before its request writer encoded it again; encode it once`}, true
	}
	for _, c := range candidates(k) {
		if eq(c.key) {
			return Mistake{c.kind, c.cause}, true
		}
	}
	return Mistake{KeyUnknown, "the key differs, and not in a way this check knows: the PLAINTEXT signature is none of the keys tried (the right key and the common mistakes with it). " +
		"Compare the secrets the client signs with byte by byte: the provider's consumer secret has " + strconv.Itoa(len(k.ConsumerSecret)) +
		" bytes and its token secret " + strconv.Itoa(len(k.TokenSecret))}, true
}

// rsaMistake verifies the signature in the encodings clients send.
func rsaMistake(base, signature, method string, h crypto.Hash, pub *rsa.PublicKey) (Mistake, bool) {
	if pub == nil {
		return Mistake{KeyUnchecked, "cannot check an " + method + " signature without the consumer's public key"}, true
	}
	hs := h.New()
	hs.Write([]byte(base))
	digest := hs.Sum(nil)
	verifies := func(sig []byte, err error) bool {
		return err == nil && rsa.VerifyPKCS1v15(pub, h, digest, sig) == nil
	}
	if verifies(base64.StdEncoding.DecodeString(signature)) {
		return Mistake{}, false
	}
	decoders := []struct {
		cause  string
		decode func(string) ([]byte, error)
	}{
		{sigEncodings[0].cause, func(s string) ([]byte, error) {
			d, err := percent.Decode(s)
			if err != nil || d == s {
				return nil, errNoDecode
			}
			return base64.StdEncoding.DecodeString(d)
		}},
		{sigEncodings[1].cause, base64.URLEncoding.DecodeString},
		{sigEncodings[2].cause, base64.RawStdEncoding.DecodeString},
		{sigEncodings[3].cause, base64.RawURLEncoding.DecodeString},
		{"the signature is right but in hex, not base64 (§3.4.2): the client printed the signature, not its base64 encoding", hex.DecodeString},
	}
	for _, d := range decoders {
		if verifies(d.decode(signature)) {
			return Mistake{SignatureEncoding, d.cause}, true
		}
	}
	return Mistake{KeyUnknown, "the signature does not verify with the public key given, in any encoding tried: the client signed with another private key " +
		"(is the public key registered the one of the client's private key?) or with another hash than " + method}, true
}

type noDecode struct{}

func (noDecode) Error() string { return "not percent-encoded" }

var errNoDecode error = noDecode{}
