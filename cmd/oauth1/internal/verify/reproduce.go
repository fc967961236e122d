package verify

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
)

// SignedMarker ends the cause of a BaseStringDiffers mistake of the
// Verifier, before the quoted base string the client signed.
const SignedMarker = ". The base string it signed: "

// printReproduced prints the bug in the client's base string that the
// Verifier's base-string check (basestring.Reproduce) found, addressed to
// the developer who runs verify, and the base string the client signed,
// which the check reproduced from the signature.
func (c *report) printReproduced(m basestring.Mistake) {
	w := c.stdout
	cause, signed := m.Cause, ""
	if i := strings.LastIndex(cause, SignedMarker); i >= 0 {
		if s, err := strconv.Unquote(cause[i+len(SignedMarker):]); err == nil {
			cause, signed = cause[:i], s
		}
	}
	c.rep.setMistake(m, sentence(cause))
	if signed != "" {
		c.rep.setSigned(signed, "reproduced")
	}
	cause = strings.Replace(cause, "the client signed another base string", "your client signed another base string", 1)
	kinds := string(m.Kind)
	for _, k := range m.Also {
		kinds += ", " + string(k)
	}
	fmt.Fprintln(w, "Base string check: "+kinds+"\n"+terminal.Safe(sentence(cause)))
	if signed != "" {
		fmt.Fprintln(w, "\nThe base string your client signed (reproduced: its HMAC with the secrets given is the signature):\n"+terminal.Safe(signed))
	}
}

// SentRequest returns what the base-string check needs of r as it was
// sent: the query, the body if it is a form, the Host, and the realm of
// the Authorization header; the Verifier's own check takes the same.
func SentRequest(r *http.Request, body string) basestring.Request {
	sent := basestring.Request{Query: r.URL.RawQuery, Host: r.Host}
	if form, _ := sign.IsFormType(r.Header.Get("Content-Type")); form {
		sent.Form = body
	}
	if ps, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization")); err == nil {
		for _, p := range ps {
			if p.Name == "realm" {
				sent.Realm = p.Value
			}
		}
	}
	return sent
}

// ProtocolParam returns the first value of the protocol parameter name
// the request sends: in the Authorization header, else in the query, else
// in a form body.
func ProtocolParam(r *http.Request, sent basestring.Request, name string) string {
	if ps, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization")); err == nil {
		for _, p := range ps {
			if p.Name == name {
				return p.Value
			}
		}
	}
	for _, raw := range []string{sent.Query, sent.Form} {
		for kv := range strings.SplitSeq(raw, "&") {
			n, v, _ := strings.Cut(kv, "=")
			if dn, err := percent.DecodeForm(n); err == nil && dn == name {
				if dv, err := percent.DecodeForm(v); err == nil {
					return dv
				}
			}
		}
	}
	return ""
}

// ReproduceWide runs, when the Verifier's checks explained nothing (a key
// mistake, or a base-string bug within its 48 HMACs), the operator's
// wider search, basestring.ReproduceWide, on the request in raw, and on a
// match puts it in pe.KeyMistake as the Verifier does.
func (f *Options) ReproduceWide(pe *server.ProblemError, raw []byte) {
	if pe.KeyMistake.Kind != basestring.KeyUnknown || pe.BaseString == "" || f.ClientBase != "" {
		return
	}
	r, _, err := ParseRequest(raw, f.Data)
	if err != nil {
		return
	}
	body, _ := io.ReadAll(r.Body)
	sent := SentRequest(r, string(body))
	key := basestring.Key{ConsumerKey: ProtocolParam(r, sent, "oauth_consumer_key"), ConsumerSecret: f.ConsumerSecret}
	if key.Token = ProtocolParam(r, sent, "oauth_token"); key.Token != "" {
		key.TokenSecret = f.TokenSecret
	}
	m, signed, ok := basestring.ReproduceWide(pe.BaseString, ProtocolParam(r, sent, "oauth_signature"),
		ProtocolParam(r, sent, "oauth_signature_method"), key, sent)
	if ok {
		m.Cause += SignedMarker + strconv.Quote(signed)
		pe.KeyMistake = m
	}
}
