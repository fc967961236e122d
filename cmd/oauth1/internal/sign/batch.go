package sign

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// A Result is one line of "oauth1 sign --json" output.
type Result struct {
	BaseString    string `json:"base_string"`
	Signature     string `json:"signature"`
	Authorization string `json:"authorization"`
	URL           string `json:"url"`
	Body          string `json:"body"`
	Error         string `json:"error"`
	// Masked names the fields replaced by "<masked>" because they hold a
	// PLAINTEXT signature, which is made of the secrets. A field is masked
	// as a whole: a URL or header with "<masked>" in it looks usable and is
	// not.
	Masked []string `json:"masked,omitempty"`
	// Warnings are what sign writes to stderr for a doubtful key: an
	// empty consumer secret, or a token without its secret.
	Warnings []string `json:"warnings,omitempty"`
}

func BatchLine(line []byte, defaults Job, showSecrets bool) Result {
	// Decoding writes through pointers and into slice arrays: give the
	// line its own copies, so that one line cannot change the next one's
	// defaults.
	j := defaults
	j.Params = slices.Clone(defaults.Params)
	j.HeaderParams = slices.Clone(defaults.HeaderParams)
	for _, p := range []**bool{&j.Version, &j.ConsumerSecretOnly, &j.SendEmptyToken, &j.SendEmptyRealm} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return Result{Error: "oauth1: invalid request line: " + err.Error()}
	}
	s, err := j.Sign(time.Now())
	if err != nil {
		return Result{Error: "oauth1: " + strings.TrimPrefix(err.Error(), "oauth1: ")}
	}
	m := NewMasker(&j, showSecrets)
	m.HideSignature(s)
	res := Result{BaseString: s.base, Warnings: append(KeyWarnings(&j, s, true), s.Warnings...)}
	for _, f := range []struct {
		name string
		dst  *string
		val  string
	}{
		{"signature", &res.Signature, s.signature},
		{"authorization", &res.Authorization, s.auth},
		{"url", &res.URL, s.req.URL.String()},
		{"body", &res.Body, s.body},
	} {
		*f.dst = f.val
		if m.Mask(f.val) != f.val {
			*f.dst = Masked
			res.Masked = append(res.Masked, f.name)
		}
	}
	return res
}
