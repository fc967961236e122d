package basestring

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/percent"
)

// This file tries the keys and encodings of KeyMistake. Every HMAC goes
// through package mac, which refuses in FIPS 140-only mode what crypto/hmac
// would panic on.

// A sentForm is the signature a client sent, decoded in one of the
// encodings clients send.
type sentForm struct {
	sig   []byte
	cause string // why the encoding is wrong; "" for standard base64, the right one
}

// The causes of the SignatureEncoding mistakes.
const (
	causeEncodedTwice = `the signature is percent-encoded twice: the client encoded oauth_signature before its request writer encoded it again ("%253D" arrives as "%3D"); encode it once`
	causeURLSafe      = `the signature is in URL-safe base64 ("-" and "_" for "+" and "/"); OAuth uses the standard alphabet (RFC 2045, §3.4.2)`
	causeUnpadded     = `the signature's base64 lacks the "=" padding; send it padded (RFC 2045, §3.4.2)`
	causeURLUnpadded  = `the signature is in URL-safe base64 ("-" and "_" for "+" and "/") without its "=" padding; OAuth uses the standard alphabet, padded (RFC 2045, §3.4.2)`
	causeHex          = "the signature is in hex, not base64 (§3.4.2): the client printed the digest, not its base64 encoding"
	causeUpperHex     = "the signature is in uppercase hex, not base64 (§3.4.2): the client printed the digest, not its base64 encoding"
)

// sentForms decodes sig in every encoding clients send, standard base64
// first, and drops a decoding that an earlier one made too: unpadded
// base64 comes before unpadded URL-safe base64, which decodes the same
// when the signature has no "-" or "_". The lengths of the encodings of
// the three HMAC sizes differ, so at most one HMAC hash fits a signature.
func sentForms(sig string) []sentForm {
	var forms []sentForm
	add := func(d []byte, err error, cause string) {
		if err != nil || len(d) == 0 {
			return
		}
		for _, f := range forms {
			if bytes.Equal(f.sig, d) {
				return
			}
		}
		forms = append(forms, sentForm{d, cause})
	}
	std, err := base64.StdEncoding.DecodeString(sig)
	add(std, err, "")
	if d, err := percent.Decode(sig); err == nil && d != sig {
		twice, err := base64.StdEncoding.DecodeString(d)
		add(twice, err, causeEncodedTwice)
	}
	url, err := base64.URLEncoding.DecodeString(sig)
	add(url, err, causeURLSafe)
	raw, err := base64.RawStdEncoding.DecodeString(sig)
	add(raw, err, causeUnpadded)
	rawURL, err := base64.RawURLEncoding.DecodeString(sig)
	add(rawURL, err, causeURLUnpadded)
	hx, err := hex.DecodeString(sig)
	if strings.ContainsAny(sig, "ABCDEF") {
		add(hx, err, causeUpperHex)
	} else {
		add(hx, err, causeHex)
	}
	return forms
}

// hmacTry signs one base string with the keys to try, counting the HMACs.
type hmacTry struct {
	base    []byte
	method  string
	hash    crypto.Hash // the method's
	sent    []sentForm
	n       int   // HMACs computed
	keys    int   // keys tried, of them (mistake pads the rest)
	refused error // the last HMAC FIPS 140-only mode refused, if any
	skipped int   // how many it refused
}

func (t *hmacTry) mac(h crypto.Hash, key string) []byte {
	m, err := mac.New(h, []byte(key))
	if err != nil {
		t.refused = err
		t.skipped++
		return nil
	}
	t.n++
	mac.Diagnosed.Add(1)
	m.Write(t.base)
	return m.Sum(nil)
}

// padKey keys the HMACs that make up the count of a refusal's: long
// enough for FIPS 140-only mode, and no one's secret.
const padKey = "countersign: an HMAC computed for its time alone"

// pad computes HMACs with hash h over the base string until n are
// computed: the keys tried depend on the form of the secrets (a secret
// that decodes as base64 has two more, one without bytes to encode has
// fewer distinct ones), and the time of a refusal must not tell it.
func (t *hmacTry) pad(h crypto.Hash, n int) {
	for t.n < n {
		m, err := mac.New(h, []byte(padKey))
		if err != nil {
			return // the hash is refused, whatever the secrets
		}
		t.n++
		mac.Diagnosed.Add(1)
		m.Write(t.base)
		m.Sum(nil)
	}
}

// match returns the form of the signature sum is, if any.
func (t *hmacTry) match(sum []byte) (sentForm, bool) {
	found, ok := sentForm{}, false
	for _, f := range t.sent {
		// Every form is compared, so that the time does not say which matched.
		if subtle.ConstantTimeCompare(sum, f.sig) == 1 && !ok {
			found, ok = f, true
		}
	}
	return found, ok
}

// hashes returns the HMAC hashes whose length a decoding of the signature
// has, the method's first.
func (t *hmacTry) hashes() []crypto.Hash {
	var hs []crypto.Hash
	for _, h := range []crypto.Hash{t.hash, crypto.SHA1, crypto.SHA256, crypto.SHA512} {
		for _, f := range t.sent {
			if len(f.sig) == h.Size() && !contains(hs, h) {
				hs = append(hs, h)
			}
		}
	}
	return hs
}

func contains(hs []crypto.Hash, h crypto.Hash) bool {
	for _, g := range hs {
		if g == h {
			return true
		}
	}
	return false
}

// mistake tries the right key and the mistaken ones with each hash the
// signature's length fits, and computes mac.MaxKeyTries HMACs whatever it
// finds and whatever the form of the secrets (a refused key counting as
// one), so that its time tells neither.
func (t *hmacTry) mistake(k Key) (Mistake, bool) {
	keys := append([]candidate{{key: signingKey(k.ConsumerSecret, k.TokenSecret)}}, candidates(k)...)
	hashes := t.hashes()
	var (
		match   *Mistake
		matched bool
	)
	for _, h := range hashes {
		for _, c := range keys {
			if t.n+t.skipped == mac.MaxKeyTries {
				break
			}
			sum := t.mac(h, c.key)
			if sum == nil {
				continue
			}
			t.keys++
			f, ok := t.match(sum)
			if !ok || matched {
				continue
			}
			matched = true
			if f.cause != "" || c.kinds != nil || h != t.hash {
				m := t.found(f, c, h)
				match = &m
			}
		}
	}
	for _, h := range hashes {
		t.pad(h, mac.MaxKeyTries) // with the first hash FIPS 140-only mode allows
	}
	switch {
	case matched && match == nil:
		return Mistake{}, false
	case matched:
		return *match, true
	}
	if t.keys == 0 && t.refused != nil {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot try the keys: " + strings.TrimPrefix(t.refused.Error(), "oauth1: ")}, true
	}
	return Mistake{Kind: KeyUnknown, Cause: t.unknown(k, hashes)}, true
}

// found is the Mistake of a signature that the key of c makes with hash
// h, sent in the form f.
func (t *hmacTry) found(f sentForm, c candidate, h crypto.Hash) Mistake {
	var kinds []MistakeKind
	var causes []string
	if f.cause != "" {
		kinds, causes = append(kinds, SignatureEncoding), append(causes, f.cause)
	}
	kinds, causes = append(kinds, c.kinds...), append(causes, c.causes...)
	if h != t.hash {
		kinds = append(kinds, WrongHMACHash)
		causes = append(causes, "the client signed with HMAC-"+hashName(h)+" and declared "+t.method+
			" in oauth_signature_method: its signer and the method it sends disagree")
	}
	m := Mistake{Kind: kinds[0], Cause: causes[0]}
	if len(kinds) > 1 {
		m.Also = kinds[1:]
		m.Cause = "the client made " + strconv.Itoa(len(kinds)) + " mistakes: " + strings.Join(causes, "; and ")
	}
	return m
}

// unknown says that no mistake reproduces the signature, and what the
// signature's shape still tells. hashes are the hashes tried.
func (t *hmacTry) unknown(k Key, hashes []crypto.Hash) string {
	var b strings.Builder
	b.WriteString("the key differs, and not in a way this check knows: ")
	switch {
	case len(t.sent) == 0:
		b.WriteString("the signature is not even standard base64, as §3.4.2 requires, nor any other encoding of a signature this check knows")
	case len(hashes) == 0:
		b.WriteString("the signature decodes to " + strconv.Itoa(len(t.sent[0].sig)) + " bytes, the length of no HMAC (" +
			strconv.Itoa(crypto.SHA1.Size()) + " for SHA-1, " + strconv.Itoa(crypto.SHA256.Size()) + " for SHA-256, " + strconv.Itoa(crypto.SHA512.Size()) + " for SHA-512)")
	default:
		b.WriteString("the signature matches none of the " + strconv.Itoa(t.keys) + " keys tried (the right key and the common mistakes with it)")
		if h := hashes[0]; h != t.hash {
			n := strconv.Itoa(h.Size())
			b.WriteString("; it decodes to " + n + " bytes, not the " + strconv.Itoa(t.hash.Size()) + " of an " + t.method + " (" + n +
				" is the length of an HMAC-" + hashName(h) + ", which the keys were tried with)")
		}
	}
	if t.skipped > 0 {
		b.WriteString("; " + strconv.Itoa(t.skipped) + " keys were not tried, since FIPS 140-only mode refuses them (" + strings.TrimPrefix(t.refused.Error(), "oauth1: ") + ")")
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
		return Mistake{Kind: SignatureEncoding, Cause: `the PLAINTEXT signature is percent-encoded twice: the client encoded oauth_signature before its request writer encoded it again; encode it once`}, true
	}
	for _, c := range candidates(k) {
		if eq(c.key) {
			m := Mistake{Kind: c.kinds[0], Cause: c.causes[0]}
			if len(c.kinds) > 1 {
				m.Also = c.kinds[1:]
				m.Cause = "the client made " + strconv.Itoa(len(c.kinds)) + " mistakes: " + strings.Join(c.causes, "; and ")
			}
			return m, true
		}
	}
	return Mistake{Kind: KeyUnknown, Cause: "the key differs, and not in a way this check knows: the PLAINTEXT signature is none of the keys tried (the right key and the common mistakes with it). " +
		"Compare the secrets the client signs with byte by byte: the provider's consumer secret has " + strconv.Itoa(len(k.ConsumerSecret)) +
		" bytes and its token secret " + strconv.Itoa(len(k.TokenSecret))}, true
}

// rsaMistake verifies the signature in the encodings clients send.
func rsaMistake(base, signature, method string, h crypto.Hash, pub *rsa.PublicKey) (Mistake, bool) {
	if pub == nil || pub.N == nil {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot check an " + method + " signature without the consumer's public key"}, true
	}
	if n := pub.N.BitLen(); n > mac.MaxRSABits {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot check an " + method + " signature with a public key of " + strconv.Itoa(n) + " bits, over " + strconv.Itoa(mac.MaxRSABits)}, true
	}
	if err := mac.CheckHash(h); err != nil {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot check an " + method + " signature: " + strings.TrimPrefix(err.Error(), "oauth1: ")}, true
	}
	hs := h.New()
	hs.Write([]byte(base))
	digest := hs.Sum(nil)
	var refused error
	for _, f := range sentForms(signature) {
		err := rsa.VerifyPKCS1v15(pub, h, digest, f.sig)
		switch {
		case err == nil && f.cause == "":
			return Mistake{}, false
		case err == nil:
			return Mistake{Kind: SignatureEncoding, Cause: f.cause}, true
		case !errors.Is(err, rsa.ErrVerification):
			refused = err // a key FIPS 140-only mode refuses, say
		}
	}
	if refused != nil {
		return Mistake{Kind: KeyUnchecked, Cause: "cannot check an " + method + " signature with the public key given: " + refused.Error()}, true
	}
	return Mistake{Kind: KeyUnknown, Cause: "the signature does not verify with the public key given, in any encoding tried: the client signed with another private key " +
		"(is the public key registered the one of the client's private key?) or with another hash than " + method}, true
}
