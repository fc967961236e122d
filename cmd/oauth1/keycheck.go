package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// protocolParams returns the protocol parameters of r, decoded, from its
// Authorization header, else its query, else a form body. It reads the
// body: r must be a copy that nothing else reads.
func protocolParams(r *http.Request) map[string]string {
	ps := map[string]string{}
	if auth := r.Header.Get("Authorization"); auth != "" {
		if params, err := oauth1.ParseAuthHeader(auth); err == nil {
			for _, p := range params {
				ps[p.Name] = p.Value
			}
			if ps["oauth_signature"] != "" {
				return ps
			}
		}
	}
	raws := []string{r.URL.RawQuery}
	if form, _ := isFormType(r.Header.Get("Content-Type")); form && r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		raws = append(raws, string(b))
	}
	for _, raw := range raws {
		for _, pair := range strings.Split(raw, "&") {
			name, value, _ := strings.Cut(pair, "=")
			if !strings.HasPrefix(name, "oauth_") {
				continue
			}
			if v, err := percent.DecodeForm(value); err == nil {
				if _, seen := ps[name]; !seen {
					ps[name] = v
				}
			}
		}
	}
	return ps
}

// keyMistake tries the key mistakes of basestring.KeyMistake on a
// refused request, with the secrets the user gave and the base string
// the Verifier computed; r is a fresh copy of the request.
func (f *verifyOptions) keyMistake(base string, r *http.Request) (basestring.Mistake, bool) {
	ps := protocolParams(r)
	key := basestring.Key{ConsumerKey: ps["oauth_consumer_key"], ConsumerSecret: f.store.secret, Token: ps["oauth_token"], PublicKey: f.store.pub}
	if key.Token != "" {
		key.TokenSecret = f.store.tokenSecret
	}
	return basestring.KeyMistake(base, ps["oauth_signature"], ps["oauth_signature_method"], key)
}

// printKeyCheck runs the key check on a refused request and prints what it
// found. compared says whether the client's base string was compared with
// base and found the same: only then does a signature that no mistake
// reproduces mean that the key differs.
func (c *cmd) printKeyCheck(f *verifyOptions, raw []byte, base string, compared bool) {
	r, _, err := parseRawRequest(raw, f.data)
	if err != nil {
		return
	}
	m, ok := f.keyMistake(base, r)
	if !ok {
		return
	}
	w := c.stdout
	fmt.Fprintln(w)
	switch {
	case m.Kind == basestring.KeyUnknown && !compared:
		fmt.Fprintln(w, "Key check: none of the common key mistakes reproduces the signature with the base string above. Either the client signed another base string "+
			"(give it with --base-string, or compare it with oauth1 diff), or the key differs in a way the check does not know.")
	default:
		fmt.Fprintln(w, "Key check: "+string(m.Kind)+"\n"+sentence(m.Cause))
	}
}

// sentence capitalizes s and ends it with a period.
func sentence(s string) string {
	if s == "" {
		return s
	}
	s = strings.ToUpper(s[:1]) + s[1:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}
