package verify

import (
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/cmd/oauth1/internal/quirks"
	"github.com/countersign/countersign/oauth1/basestring"
)

// A Report is what verify finds, as data: oauth1 verify --json writes it,
// and the debugging page draws it. Its shape is documented in the
// command's README ("verify --json"); fields are added, never renamed.
// It never holds a secret: no secret, key password or signature is put in
// it, and the sentences in it are the text report's.
type Report struct {
	// Verdict is "valid" or "invalid" (the exit status is 0 or 1).
	Verdict string `json:"verdict"`
	// Problem is the oauth_problem of a refusal ("signature_invalid", ...),
	// and Summary says it in a sentence.
	Problem string `json:"problem,omitempty"`
	Summary string `json:"summary,omitempty"`
	// Scheme is the scheme verified with; SchemeFrom the evidence it was
	// inferred from, "" when --scheme or the request line gave it or when
	// https was taken for want of any.
	Scheme     string `json:"scheme"`
	SchemeFrom string `json:"scheme_from,omitempty"`
	// SignatureMethod, ConsumerKey and Token of a valid signature.
	SignatureMethod string `json:"signature_method,omitempty"`
	ConsumerKey     string `json:"consumer_key,omitempty"`
	Token           string `json:"token,omitempty"`
	// BaseString is the right base string of the request: the one signed,
	// when valid; else the one the client should have signed.
	BaseString string `json:"base_string,omitempty"`
	// SignedBaseString is the base string the client signed, when known:
	// SignedFrom says how, "reproduced" (its HMAC with the secrets given is
	// the signature) or "given" (--base-string).
	SignedBaseString string `json:"signed_base_string,omitempty"`
	SignedFrom       string `json:"signed_from,omitempty"`
	// Mistake is what the checks of a refused signature found, if they ran.
	Mistake *Mistake `json:"mistake,omitempty"`
	// Differences are those between BaseString and SignedBaseString, as
	// oauth1 diff lists them; Marked are the two base strings cut into
	// spans, the spans that differ marked, for display.
	Differences []Difference `json:"differences,omitempty"`
	Marked      *Marked      `json:"marked,omitempty"`
	// Parameters are those of BaseString, in its order.
	Parameters []Parameter `json:"parameters,omitempty"`
	// Quirks are the known provider quirks the request matches.
	Quirks []Quirk `json:"quirks,omitempty"`
	// Notes are the report's further advice (the scheme to try);
	// Warnings what the command warns of on stderr in text mode.
	Notes    []string `json:"notes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// A Mistake names what reproduces a refused signature.
type Mistake struct {
	// Check is "key" when the key was built wrong (the base string is the
	// right one), "base_string" when the client signed another base string
	// (its bugs named), and "none" when nothing reproduced the signature.
	Check string `json:"check"`
	// Kinds are the mistakes by their stable names (basestring's
	// MistakeKind): "base-string-differs" for another base string, then
	// any key mistake made with it; "unknown" when nothing reproduced the
	// signature, "unchecked" when the check could not run.
	Kinds []string `json:"kinds"`
	// Bugs name the client's bugs in the base string, each in words ("sorts
	// the parameters before encoding them"), when Check is "base_string".
	Bugs []string `json:"bugs,omitempty"`
	// Cause says it all in a sentence, as the text report does.
	Cause string `json:"cause"`
}

// A Difference is one way the signed base string differs from the right
// one (basestring.Difference).
type Difference struct {
	Kind  string `json:"kind"`           // "sort order", "missing parameter", ...
	Name  string `json:"name,omitempty"` // the parameter concerned, decoded
	Want  string `json:"want,omitempty"` // the part of the right base string
	Got   string `json:"got,omitempty"`  // the part of the signed one
	Cause string `json:"cause"`
}

// A Parameter is one of the right base string's parameters.
type Parameter struct {
	Name    string `json:"name"`    // decoded
	Value   string `json:"value"`   // decoded
	Encoded string `json:"encoded"` // as the base string encodes the value
	Source  string `json:"source"`  // "query", "body" or "protocol"
}

// A Quirk is a known provider quirk that matches the request.
type Quirk struct {
	Name     string `json:"name"`
	Provider string `json:"provider"`
	Text     string `json:"text"`
}

// setMistake records m, what the checks of the Verifier and the wide
// search found. cause is the sentence the text report prints for it.
func (r *Report) setMistake(m basestring.Mistake, cause string) {
	if m.Kind == "" {
		return
	}
	kinds := []string{string(m.Kind)}
	for _, k := range m.Also {
		kinds = append(kinds, string(k))
	}
	mk := &Mistake{Check: "key", Kinds: kinds, Cause: cause}
	switch m.Kind {
	case basestring.BaseStringDiffers:
		mk.Check, mk.Bugs = "base_string", bugPhrases(m)
	case basestring.KeyUnknown, basestring.KeyUnchecked:
		mk.Check = "none"
	}
	r.Mistake = mk
}

// bugPhrases takes the bugs out of the cause of a BaseStringDiffers
// mistake: "the key is right, and the client signed another base string[,
// with N bugs]: it BUG[; and it BUG]...[; and KEY MISTAKE]".
func bugPhrases(m basestring.Mistake) []string {
	cause := m.Cause
	if i := strings.LastIndex(cause, SignedMarker); i >= 0 {
		cause = cause[:i]
	}
	_, rest, ok := strings.Cut(cause, ": it ")
	if !ok {
		return nil
	}
	bugs := strings.Split(rest, "; and it ")
	if len(m.Also) > 0 { // the key mistakes' sentences follow the last bug
		last := bugs[len(bugs)-1]
		if i := strings.Index(last, "; and "); i >= 0 {
			bugs[len(bugs)-1] = last[:i]
		}
	}
	return bugs
}

// setSigned records the base string the client signed, and how it
// differs from the right one.
func (r *Report) setSigned(signed, from string) {
	r.SignedBaseString, r.SignedFrom = signed, from
	for _, d := range explain.WithHints(basestring.Diff(r.BaseString, signed)) {
		r.Differences = append(r.Differences, Difference{Kind: d.Kind.String(), Name: d.Name, Want: d.Want, Got: d.Got, Cause: d.Cause})
	}
	r.Marked = Mark(r.BaseString, signed)
}

// setParameters records the parameters of base, and where each came from.
func (r *Report) setParameters(b *basestring.BaseString, sources []string) {
	for i, p := range b.Params {
		src := "protocol"
		if sources != nil {
			src = sources[i]
		}
		r.Parameters = append(r.Parameters, Parameter{Name: p.Name, Value: p.Value, Encoded: p.RawValue, Source: src})
	}
}

// setQuirks records the quirks qs.
func (r *Report) setQuirks(qs []quirks.Quirk) {
	for _, q := range qs {
		r.Quirks = append(r.Quirks, Quirk{Name: q.Name(), Provider: q.Provider(), Text: q.Text()})
	}
}

// note records a sentence of advice, without its line break.
func (r *Report) note(s string) {
	r.Notes = append(r.Notes, strings.TrimSpace(s))
}
