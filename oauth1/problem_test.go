package oauth1_test

import (
	"reflect"
	"testing"

	"github.com/countersign/countersign/oauth1"
)

// Every Problem constant has the type Problem, not just the first of its
// block: a constant left untyped compares unequal, in reflect and testify,
// with the Problem a ResponseError or ProblemError holds.
func TestProblemConstantsAreTyped(t *testing.T) {
	want := reflect.TypeFor[oauth1.Problem]()
	for _, p := range []any{
		oauth1.ProblemVersionRejected, oauth1.ProblemParameterAbsent, oauth1.ProblemParameterRejected,
		oauth1.ProblemTimestampRefused, oauth1.ProblemNonceUsed, oauth1.ProblemSignatureMethodRejected,
		oauth1.ProblemSignatureInvalid, oauth1.ProblemConsumerKeyUnknown, oauth1.ProblemTokenRejected, oauth1.ProblemTokenRevoked,
		oauth1.ProblemTokenUsed, oauth1.ProblemPermissionUnknown, oauth1.ProblemPermissionDenied, oauth1.ProblemInternalError,
		oauth1.ProblemBodyHashInvalid,
	} {
		if got := reflect.TypeOf(p); got != want {
			t.Errorf("%q has type %v, want %v", p, got, want)
		}
	}
}
