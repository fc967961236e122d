package server

import (
	"strconv"

	"github.com/countersign/countersign/oauth1/basestring"
)

// The bounds of basestring.Reproduce, for the diagnosis budget.
const (
	reproduceHMACs   = 48
	reproduceMaxBase = 8 << 10
)

// reproduce runs, for diagnose, the base-string check of DiagnoseKeys:
// when the key check found no mistake that makes the refused signature,
// it rebuilds the base string the way client libraries get it wrong
// ([basestring.Reproduce]: at most 48 HMACs, nothing for a base string,
// query or form body over 8 KiB), and on a match names the bug in the
// refusal's KeyMistake, with the base string the client signed, for the
// operator only: WriteError never sends it.
func (v *Verifier) reproduce(q *found, pe *ProblemError) {
	if pe.KeyMistake.Kind != basestring.KeyUnknown {
		return
	}
	// Charged as if every variant were four times the base string, the
	// most a value encoded twice grows it; nothing over 8 KiB is tried.
	if len(pe.BaseString) > reproduceMaxBase {
		return
	}
	if ok, why := diagnoses.spend(q.consumerKey, diagnosisCost(4*len(pe.BaseString), reproduceHMACs, 0, nil, 0)); !ok {
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
