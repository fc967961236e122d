package server

import (
	"strconv"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/mac"
)

// TestDiagnoseSameHMACsAnySecret checks that a refusal diagnosed with
// DiagnoseKeys computes as many HMACs whatever the form of the consumer's
// secret (as issued, base64, hex, with whitespace, with bytes to encode),
// counted by mac.Diagnosed: the mistaken keys KeyMistake tries depend on
// that form, and a client that does not know the secret must not learn
// it from the time of its refusals.
func TestDiagnoseSameHMACsAnySecret(t *testing.T) {
	now := time.Unix(1700000000, 0)
	secrets := []string{"plainconsumersecret", "Y29uc3VtZXIgc2VjcmV0", "0123456789abcdef", " consumer secret\n", "a&b/c+d=e%f~!", "s"}
	counts := map[int64][]string{}
	for i, secret := range secrets {
		withDiagBudget(t)
		v := &Verifier{Store: &memCredentials{consumers: map[string]Registration{"ck": {Secret: secret}}},
			Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }, DiagnoseKeys: true}}
		r, _ := hmacGET("ck", "a key no one has&", "n"+itoa(int64(i)), now.Unix())
		before := mac.Diagnosed.Load()
		pe := refusal(t, v, r)
		n := mac.Diagnosed.Load() - before
		if pe.KeyMistake.Kind != basestring.KeyUnknown {
			t.Errorf("secret %q: KeyMistake %v; want unknown", secret, pe.KeyMistake)
		}
		counts[n] = append(counts[n], strconv.Quote(secret))
	}
	t.Logf("HMACs by secret: %v", counts)
	if len(counts) != 1 {
		t.Errorf("HMACs a refusal computes, by secret: %v; want as many for each", counts)
	}
}
