package server

import (
	"strconv"

	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/mac"
)

// reproduceMaxBase is the largest base string, query or form body
// basestring.Reproduce takes.
const reproduceMaxBase = 8 << 10

// reproduce runs, for diagnose, the base-string check of DiagnoseKeys:
// when the key check found no mistake that makes the refused signature,
// it rebuilds the base string the way client libraries get it wrong
// ([basestring.Reproduce]: at most 48 HMACs, and work bounded by
// mac.ReproduceWork; nothing for a base string, query or form body over 8
// KiB), and on a match names the bug in the refusal's KeyMistake, with
// the base string the client signed, for the operator only: WriteError
// never sends it.
func (v *Verifier) reproduce(q *found, pe *ProblemError) {
	if pe.KeyMistake.Kind != basestring.KeyUnknown {
		return
	}
	if len(pe.BaseString) > reproduceMaxBase {
		return
	}
	// Charged the most work the check does on this request, building its
	// variants and their HMACs, in bytes hashed: building them is most of
	// it, so the HMACs alone were a fraction of what it costs.
	form := 0
	if q.form {
		form = len(q.s.Form)
	}
	if ok, why := diagnoses.spend(q.consumerKey, mac.ReproduceWork(len(pe.BaseString), len(q.r.URL.RawQuery)+form)); !ok {
		pe.KeyMistake.Cause += "; the base-string check was not run, for its cost: " + why
		return
	}
	sent := basestring.Request{Query: q.r.URL.RawQuery, Host: q.r.Host}
	if q.form {
		sent.Form = string(q.s.Form)
	}
	for _, p := range q.s.proto[:q.s.fromHeader] {
		if p.Name == "realm" {
			sent.Realm = p.Value
		}
	}
	m, signed, ok := basestring.Reproduce(pe.BaseString, string(q.sig), q.method, basestring.Key{
		ConsumerKey: q.consumerKey, ConsumerSecret: q.consumer.Secret,
		Token: q.token, TokenSecret: q.tokenSecret,
	}, sent)
	if ok {
		m.Cause += ". The base string it signed: " + strconv.Quote(signed)
		pe.KeyMistake = m
	}
}
