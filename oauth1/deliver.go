package oauth1

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/countersign/countersign/internal/ascii"

	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

// What follows the signature on the signing path (sign.go): the Trace's
// Signed hook, given what was signed, and the delivery of the parameters.

// signedHook returns the Signed hook of r's trace, or nil.
func signedHook(r *http.Request) func(SignInfo) {
	if tr := contextTrace(r.Context()); tr != nil {
		return tr.Signed
	}
	return nil
}

// contextTrace returns the Trace of ctx, or nil if it has none.
func contextTrace(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// signInfo describes the request s has signed; it copies what it keeps.
// c and tok are the key it signed with.
func (s *state) signInfo(r *http.Request, proto []Param, c *Config, tok *Credentials) SignInfo {
	u := *r.URL
	u.User = nil
	ps := slices.Clone(proto)
	slices.SortFunc(ps, func(a, b Param) int { // as in the base string
		if c := strings.Compare(percent.Encode(a.Name), percent.Encode(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(percent.Encode(a.Value), percent.Encode(b.Value))
	})
	info := SignInfo{Method: r.Method, URL: u.String(), BaseString: string(s.Base), Params: ps}
	info.EmptyConsumerSecret, info.EmptyTokenSecret = emptySecrets(c, tok)
	return info
}

// emptySecrets reports whether c, signing with tok, signs with an empty
// consumer secret, and with a token whose secret is empty.
func emptySecrets(c *Config, tok *Credentials) (consumer, token bool) {
	if c == nil {
		return false, false
	}
	if m, _ := signerMethod(c.signer()); strings.HasPrefix(m, "RSA-") {
		return false, false
	}
	return c.ConsumerSecret == "", tok != nil && tok.Token != "" && tok.Secret == ""
}

// deliver adds the protocol parameters and the signature to r (§3.5), in
// sorted order as the RFC's examples are: easier to read and to compare.
// own says that proto holds only the Config's own parameters, which build
// appends in order and whose names need no escaping.
func (s *state) deliver(c *Config, r *http.Request, sig []byte, proto []Param, own bool) error {
	if !own {
		slices.SortFunc(proto, func(a, b Param) int { return cmp.Compare(a.Name, b.Name) })
	}
	b := s.Out[:0] // pooled: what r keeps is a copy
	switch c.Delivery {
	case AuthHeader:
		if s.fast && own {
			b = s.appendOwnHeader(b, sig, proto)
			if r.Header == nil {
				r.Header = make(http.Header)
			}
			r.Header["Authorization"] = []string{string(b)}
			break
		}
		b = append(b, "OAuth "...)
		if c.Realm != "" || c.SendEmptyRealm {
			b = append(b, "realm="...)
			b = wire.AppendQuoted(b, c.Realm)
			b = append(b, ", "...)
		}
		b = appendProto(b, sig, proto, own, s.plain, true)
		if r.Header == nil {
			r.Header = make(http.Header)
		}
		r.Header["Authorization"] = []string{string(b[:len(b)-len(", ")])}
	case QueryString:
		u := *r.URL // the caller may share r.URL with other requests
		if u.RawQuery != "" {
			b = append(append(b, u.RawQuery...), '&')
		}
		b = appendProto(b, sig, proto, own, s.plain, false)
		u.RawQuery = string(b[:len(b)-1])
		r.URL = &u
	case FormBody:
		if len(s.Form) > 0 {
			b = append(append(b, s.Form...), '&')
		}
		b = appendProto(b, sig, proto, own, s.plain, false)
		wire.SetBody(r, bytes.Clone(b[:len(b)-1]))
		if r.Header == nil {
			r.Header = make(http.Header)
		}
		if r.Header.Get("Content-Type") == "" {
			r.Header.Set("Content-Type", wire.FormType)
		}
	default:
		return fmt.Errorf("oauth1: unknown %s", c.Delivery.text())
	}
	s.Out = b
	return nil
}

// appendProto appends the sorted protocol parameters, oauth_signature in
// its place, each percent-encoded as name="value", (header) or name=value&
// (a query or a form body); own as for deliver, and then bit i of plain
// says proto[i].Value needs no escaping. The separators are constants, which
// the compiler stores inline: as arguments, each was a call to memmove.
func appendProto(b, sig []byte, proto []Param, own bool, plain uint16, header bool) []byte {
	done := false
	for i := 0; i <= len(proto); i++ {
		if !done && (i == len(proto) || proto[i].Name > "oauth_signature") {
			if header {
				b = append(b, `oauth_signature="`...)
			} else {
				b = append(b, "oauth_signature="...)
			}
			b = ascii.AppendEncode(b, sig) // base64 and PLAINTEXT keys hold '+', '/', '=', '%'
			b = appendSep(b, header)
			done = true
		}
		if i == len(proto) {
			break
		}
		if own {
			b = append(b, proto[i].Name...)
		} else {
			b = percent.AppendEncode(b, proto[i].Name)
		}
		if header {
			b = append(b, '=', '"')
		} else {
			b = append(b, '=')
		}
		if own && plain&(1<<i) != 0 {
			b = append(b, proto[i].Value...)
		} else {
			b = percent.AppendEncode(b, proto[i].Value)
		}
		b = appendSep(b, header)
	}
	return b
}

// appendSep appends what follows a value: `", ` in a header, "&" otherwise.
func appendSep(b []byte, header bool) []byte {
	if header {
		return append(b, '"', ',', ' ')
	}
	return append(b, '&')
}
