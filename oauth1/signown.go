package oauth1

import (
	"net/http"
	"slices"

	"github.com/countersign/countersign/internal/ascii"
	"github.com/countersign/countersign/oauth1/internal/params"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

// The fast path of signing, for the usual request: the Config's own
// protocol parameters and nothing else. What does not change from one
// request to the next (the consumer key, the method, the token and the
// version, encoded for the base string and for the header) is rendered
// once into the pooled state and reused while the next request signs with
// the same ones; the nonce and the timestamp are written into its gaps.
// The base string merges these parameters, already sorted, with the
// request's (params.AppendBaseStringRun) instead of adding each to the Set
// and sorting them together. The plain way in build (each parameter added
// to the Set, sorted, checked for repeats; appendProto for the header) is
// the reference, taken whenever the fast path does not apply, and
// FuzzOwnMatchesReference checks that the two sign alike.

// own is the Config's own protocol parameters for one key, rendered.
type own struct {
	key ownKey
	// run is the base string's run: "oauth_consumer_key%3D…%26oauth_nonce%3D",
	// the nonce at runNonce, "%26oauth_signature_method%3D…%26oauth_timestamp%3D",
	// the timestamp at runTime, and "%26" with the token and version pairs.
	run               []byte
	runNonce, runTime int
	// hdr is the Authorization header, with gaps for the nonce, the
	// signature and the timestamp.
	hdr                       []byte
	hdrNonce, hdrSig, hdrTime int
	plain                     uint16 // as state.plain: the key, method, token and version
}

// ownKey is what own is rendered from.
type ownKey struct {
	consumerKey, token, method, realm string
	sendToken, sendVersion, sendRealm bool
}

// maxOwnBytes bounds what the fast path renders and keeps in a pooled
// state; longer keys, tokens, nonces and realms take the plain way.
const maxOwnBytes = 1 << 10

// ownKeyOf returns the key of c's own parameters for tok and method, and
// whether the fast path applies to them.
func ownKeyOf(c *Config, tok *Credentials, method, nonce string) (ownKey, bool) {
	k := ownKey{
		consumerKey: c.ConsumerKey, token: tok.token(), method: method, realm: c.Realm,
		sendVersion: !c.OmitVersion, sendRealm: c.Realm != "" || c.SendEmptyRealm,
	}
	k.sendToken = k.token != "" || c.SendEmptyToken
	return k, len(k.consumerKey)+len(k.token)+len(k.realm)+len(nonce) <= maxOwnBytes
}

// maxOwnSet bounds the parameters of a request signed the fast way: the
// plain way refuses to add its own to a Set that would pass 2 GiB
// (params.ErrTooLarge), and so must this one.
const maxOwnSet = 1 << 30

// render renders o for k.
func (o *own) render(k ownKey) {
	o.key = k
	var p bool
	run := o.run[:0]
	run, p = params.AppendRunPair(run, "oauth_consumer_key", k.consumerKey)
	o.plain = bit(p, 0)
	run = params.AppendRunName(run, "oauth_nonce")
	o.runNonce = len(run)
	run = params.AppendRunSep(run)
	run, p = params.AppendRunPair(run, "oauth_signature_method", k.method)
	o.plain |= bit(p, 2)
	run = params.AppendRunName(run, "oauth_timestamp")
	o.runTime = len(run)
	run = params.AppendRunSep(run)
	i := 4
	if k.sendToken {
		run, p = params.AppendRunPair(run, "oauth_token", k.token)
		o.plain |= bit(p, i)
		i++
	}
	if k.sendVersion {
		run, _ = params.AppendRunPair(run, "oauth_version", "1.0")
		o.plain |= bit(true, i)
	}
	o.run = run

	h := append(o.hdr[:0], "OAuth "...)
	if k.sendRealm {
		h = append(h, "realm="...)
		h = wire.AppendQuoted(h, k.realm)
		h = append(h, ", "...)
	}
	h = append(h, `oauth_consumer_key="`...)
	h = percent.AppendEncode(h, k.consumerKey)
	h = append(h, `", oauth_nonce="`...)
	o.hdrNonce = len(h)
	h = append(h, `", oauth_signature="`...)
	o.hdrSig = len(h)
	h = append(h, `", oauth_signature_method="`...)
	h = percent.AppendEncode(h, k.method)
	h = append(h, `", oauth_timestamp="`...)
	o.hdrTime = len(h)
	h = append(h, '"')
	if k.sendToken {
		h = append(h, `, oauth_token="`...)
		h = percent.AppendEncode(h, k.token)
		h = append(h, '"')
	}
	if k.sendVersion {
		h = append(h, `, oauth_version="1.0"`...)
	}
	o.hdr = h
}

func bit(b bool, i int) uint16 {
	if b {
		return 1 << i
	}
	return 0
}

// buildOwn writes the base string of r, whose parameters s holds, with the
// Config's own protocol parameters proto (the nonce proto[1], the
// timestamp proto[3]) for key k. It reports false, having written nothing,
// when r names an oauth_ parameter itself, which the plain way checks.
func (s *state) buildOwn(k ownKey, httpMethod string, proto []Param) bool {
	if s.Params.Memory() > maxOwnSet {
		return false
	}
	o := &s.own
	if o.key != k || o.run == nil {
		o.render(k)
	}
	nonce, ts := proto[1].Value, proto[3].Value
	run := slices.Grow(s.run[:0], len(o.run)+5*len(nonce)+len(ts))
	run = append(run, o.run[:o.runNonce]...)
	run, plainNonce := params.AppendTwice(run, nonce)
	run = append(run, o.run[o.runNonce:o.runTime]...)
	run = append(run, ts...) // digits, and "-" before 1970: unreserved
	run = append(run, o.run[o.runTime:]...)
	s.run = run
	base, ok := s.Params.AppendBaseStringRun(s.Base[:0], httpMethod, s.uri.enc, run)
	if !ok {
		return false
	}
	s.Base = base
	s.plain = o.plain | bit(plainNonce, 1) | bit(true, 3)
	s.fast = true
	return true
}

// appendOwnHeader appends the Authorization header of the fast path: the
// rendered one with the nonce, the signature and the timestamp of proto
// in its gaps.
func (s *state) appendOwnHeader(b, sig []byte, proto []Param) []byte {
	o := &s.own
	nonce, ts := proto[1].Value, proto[3].Value
	b = slices.Grow(b, len(o.hdr)+3*len(nonce)+3*len(sig)+len(ts))
	b = append(b, o.hdr[:o.hdrNonce]...)
	if s.plain&(1<<1) != 0 {
		b = append(b, nonce...)
	} else {
		b = percent.AppendEncode(b, nonce)
	}
	b = append(b, o.hdr[o.hdrNonce:o.hdrSig]...)
	b = ascii.AppendEncode(b, sig) // base64 holds '+', '/', '='
	b = append(b, o.hdr[o.hdrSig:o.hdrTime]...)
	b = append(b, ts...)
	return append(b, o.hdr[o.hdrTime:]...)
}

// uriCache is the base string URI of the last request a state signed,
// and what it was made of: a client signs request after request to the
// same URL, whose host wire.AppendBaseURI checks and lowercases each time.
type uriCache struct {
	key uriKey
	ok  bool
	raw []byte // §3.4.1.2
	enc []byte // raw percent-encoded, as the base string holds it
}

// uriKey is what wire.AppendBaseURI reads of a request.
type uriKey struct {
	scheme, host, urlHost, path, rawPath, opaque string
}

// baseURI sets s.uri to r's base string URI, reusing it when r's URL is
// made of the same strings as the last one's.
func (s *state) baseURI(r *http.Request) error {
	u, c := r.URL, &s.uri
	k := uriKey{u.Scheme, r.Host, u.Host, u.Path, u.RawPath, u.Opaque}
	if c.ok && k == c.key {
		return nil
	}
	c.ok = false
	b, err := wire.AppendBaseURI(c.raw[:0], r)
	if err != nil {
		return err
	}
	c.raw, c.enc = b, ascii.AppendEncode(c.enc[:0], b)
	c.key, c.ok = k, true
	return nil
}
