package server

import (
	"crypto"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// TestVerifyRefusesEmptyStoredTokenSecret checks that token credentials a
// store returns without a secret sign for nobody: with an HMAC method, the
// key would be the consumer secret and "&", which the client holds without
// any token. A store that keeps its records as JSON loses the secret so,
// since encoding/json leaves it out.
func TestVerifyRefusesEmptyStoredTokenSecret(t *testing.T) {
	now := time.Unix(1700000000, 0)
	rec, err := json.Marshal(TokenCredentials{Token: "tok", Secret: "token-secret", ConsumerKey: "ck", User: "alice"})
	require.NoError(t, err)
	var back TokenCredentials
	require.NoError(t, json.Unmarshal(rec, &back))
	require.Empty(t, back.Secret, "encoding/json keeps no secret")

	for _, method := range []string{"HMAC-SHA1", "HMAC-SHA256", "PLAINTEXT"} {
		t.Run(method, func(t *testing.T) {
			v := &Verifier{Store: &memCredentials{
				consumers: map[string]Registration{"ck": {Secret: "consumer-secret"}},
				tokens:    map[string]string{"ck tok": back.Secret},
			}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }, SignatureMethods: []string{method}, AllowInsecurePlaintext: true}}
			signer := oauth1.Signer(oauth1.HMAC{})
			switch method {
			case "HMAC-SHA256":
				signer = oauth1.HMAC{Hash: crypto.SHA256}
			case "PLAINTEXT":
				signer = oauth1.Plaintext{}
			}
			c := &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "consumer-secret", Signer: signer, AllowInsecurePlaintext: true}
			r := httptest.NewRequest("GET", "http://api.example/photos", nil)
			// What an attacker who holds only the client's credentials sends.
			require.NoError(t, c.SignAt(r, &oauth1.Credentials{Token: "tok"}, now, "n-"+method))
			_, err := v.Verify(r)
			var pe *ProblemError
			require.True(t, errors.As(err, &pe), "Verify = %v, want a refusal", err)
			assert.Equal(t, oauth1.ProblemTokenRejected, pe.Problem)
		})
	}
}
