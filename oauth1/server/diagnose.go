package server

import (
	"strconv"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/mac"
)

// diagnose names, if the Verifier's DiagnoseKeys asks for it, the mistake
// in the key of a request refused with signature_invalid, within the
// budget of diagnoses (diagbudget.go); past it, or for a base string over
// maxDiagnosedBase, the mistake is unchecked and says why.
func (v *Verifier) diagnose(q *found, pe *ProblemError) {
	if !v.DiagnoseKeys || pe.Problem != oauth1.ProblemSignatureInvalid {
		return
	}
	if len(q.base) > maxDiagnosedBase {
		pe.KeyMistake = notDiagnosed("the base string is " + strconv.Itoa(len(q.base)) + " bytes, over the " + strconv.Itoa(maxDiagnosedBase) + " a diagnosis hashes")
		return
	}
	hmacs, rsas := 0, 0
	if h, isRSA, ok := mac.MethodHash(q.method); ok && isRSA {
		rsas = 7
	} else if ok && h.Available() {
		hmacs = mac.MaxKeyTries
	}
	extra := 0
	if q.builtToDiagnose {
		extra = len(q.base) // built for the diagnosis alone
	}
	if ok, why := diagnoses.spend(q.consumerKey, diagnosisCost(len(q.base), hmacs, rsas, q.consumer.PublicKey, extra)); !ok {
		pe.KeyMistake = notDiagnosed(why)
		return
	}
	m, wrong := basestring.KeyMistake(pe.BaseString, string(q.sig), q.method, basestring.Key{
		ConsumerKey: q.consumerKey, ConsumerSecret: q.consumer.Secret,
		Token: q.token, TokenSecret: q.tokenSecret,
		PublicKey: q.consumer.PublicKey,
	})
	if wrong {
		pe.KeyMistake = m
	}
	v.reproduce(q, pe)
}

// worthBuilding reports whether the base string of a request whose
// signature is malformed is built all the same, for DiagnoseKeys: only
// when the request is small enough to be diagnosed and the consumer's
// budget is not spent. Otherwise pe says why the mistake is unchecked.
func (v *Verifier) worthBuilding(q *found, pe *ProblemError) bool {
	if !v.DiagnoseKeys {
		return false
	}
	// The base string holds the query and a form body at least once
	// encoded, each byte of them at most three times decoded.
	size := int64(len(q.r.URL.RawQuery))
	if q.form {
		if q.r.ContentLength < 0 {
			pe.KeyMistake = notDiagnosed("the form body's length is not declared, and may be over the " + strconv.Itoa(maxDiagnosedBase) + " bytes of base string a diagnosis hashes")
			return false
		}
		size += q.r.ContentLength
	}
	if size > 3*maxDiagnosedBase {
		pe.KeyMistake = notDiagnosed("the query and body are " + strconv.FormatInt(size, 10) + " bytes, more than the " + strconv.Itoa(maxDiagnosedBase) + " bytes of base string a diagnosis hashes")
		return false
	}
	if ok, why := diagnoses.ready(q.consumerKey); !ok {
		pe.KeyMistake = notDiagnosed(why)
		return false
	}
	q.builtToDiagnose = true
	return true
}

// notDiagnosed is the mistake of a refusal the Verifier did not diagnose,
// for its cost.
func notDiagnosed(why string) basestring.Mistake {
	return basestring.Mistake{Kind: basestring.KeyUnchecked, Cause: "not diagnosed, for its cost: " + why}
}
