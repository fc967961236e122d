package oauth1

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/countersign/countersign/internal/ascii"

	"github.com/countersign/countersign/oauth1/internal/wire"
	"github.com/countersign/countersign/percent"
)

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

// checkRealm refuses a realm that cannot be written as a quoted-string:
// a control character such as CR or LF would end or split the header.
func checkRealm(realm string) error {
	for i := 0; i < len(realm); i++ {
		if c := realm[i]; c < ' ' || c == 0x7f {
			return fmt.Errorf("oauth1: realm holds control character %s at offset %d", strconv.QuoteRune(rune(c)), i)
		}
	}
	return nil
}
