package server

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/mac"
)

// The requests of the base-string check, with the base strings computed
// by hand: the provider's, and the one a client with a known bug signs.
const (
	rpOAuth = "oauth_consumer_key%3Dkm-key%26oauth_nonce%3Drp1%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1700000000%26oauth_token%3Dkm-token%26oauth_version%3D1.0"
	rpGet   = "GET&https%3A%2F%2Fapi.example%2Fr&" + rpOAuth + "%26q%3Da%2520b"
	rpPost  = "POST&https%3A%2F%2Fapi.example%2Fr&" + rpOAuth + "%26status%3Dhi%2520there"
)

var rpNow = time.Unix(1700000000, 0)

var rpCases = []struct {
	name, method, url, body, realm string
	base, signed                   string // the provider's base string, and the client's
	cause                          string // what KeyMistake.Cause says
}{
	{"spaces as +", "GET", "https://api.example/r?q=a%20b", "", "",
		rpGet, strings.Replace(rpGet, "q%3Da%2520b", "q%3Da%2Bb", 1), `encodes spaces as "+"`},
	{"form body left out", "POST", "https://api.example/r", "status=hi%20there", "",
		rpPost, strings.Replace(rpPost, "%26status%3Dhi%2520there", "", 1), "leaves the form body's parameters out"},
	{"realm signed", "GET", "https://api.example/r?q=a%20b", "", "Photos",
		rpGet, rpGet + "%26realm%3DPhotos", "signs realm"},
	{"default port kept", "GET", "https://api.example/r?q=a%20b", "", "",
		rpGet, strings.Replace(rpGet, "api.example%2Fr", "api.example%3A443%2Fr", 1), "keeps the default port"},
}

// rpVerify verifies a request of method to url with body, whose
// Authorization header carries realm and an HMAC-SHA1 signature of signed
// under key.
func rpVerify(t *testing.T, v *Verifier, method, url, body, realm, signed, key string) (*ProblemError, string) {
	t.Helper()
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(signed))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
	h := `OAuth `
	if realm != "" {
		h += `realm="` + realm + `", `
	}
	h += `oauth_consumer_key="km-key", oauth_nonce="rp1", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000", ` +
		`oauth_token="km-token", oauth_version="1.0", oauth_signature="` + kmEncode(sig) + `"`
	r := httptest.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	r.Header.Set("Authorization", h)
	_, err := v.Verify(r)
	var pe *ProblemError
	require.True(t, errors.As(err, &pe), "Verify = %v, want a *ProblemError", err)
	w := httptest.NewRecorder()
	v.WriteError(w, err)
	var sent []string
	for k, vs := range w.Header() {
		sent = append(sent, k+": "+strings.Join(vs, ", "))
	}
	slices.Sort(sent)
	return pe, strings.Join(sent, "\n") + "\n\n" + w.Body.String()
}

func rpVerifier(diagnose bool) *Verifier {
	return &Verifier{Store: &memCredentials{
		consumers: map[string]Registration{kmConsumerKey: {Secret: kmConsumerSecret}},
		tokens:    map[string]string{kmConsumerKey + " " + kmToken: kmTokenSecret},
	}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return rpNow }, DiagnoseKeys: diagnose, SendBaseString: true}}
}

// TestVerifierReproduce checks that a Verifier with DiagnoseKeys names the
// bug in the client's base string when the key is right, with the base
// string the client signed, and that WriteError sends neither, even with
// SendBaseString. Each case has a fresh budget: one consumer key's share
// pays for about one check of the base string at once.
func TestVerifierReproduce(t *testing.T) {
	key := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)
	for _, tt := range rpCases {
		t.Run(tt.name, func(t *testing.T) {
			withDiagBudget(t)
			pe, sent := rpVerify(t, rpVerifier(true), tt.method, tt.url, tt.body, tt.realm, tt.signed, key)
			require.Equal(t, tt.base, pe.BaseString, "the hand-computed base string")
			assert.Equal(t, basestring.BaseStringDiffers, pe.KeyMistake.Kind)
			assert.Contains(t, pe.KeyMistake.Cause, tt.cause)
			assert.Contains(t, pe.KeyMistake.Cause, strconv.Quote(tt.signed))
			assert.Contains(t, pe.Error(), string(basestring.BaseStringDiffers))
			assert.NotContains(t, pe.KeyMistake.Cause, kmConsumerSecret)
			assert.NotContains(t, pe.KeyMistake.Cause, kmTokenSecret)
			// The client is told its problem, and with SendBaseString the
			// provider's base string, never the diagnosis.
			assert.Contains(t, sent, "signature_invalid")
			assert.NotContains(t, sent, string(basestring.BaseStringDiffers))
			assert.NotContains(t, sent, tt.cause)
			// What is sent is what a Verifier without DiagnoseKeys sends.
			_, plain := rpVerify(t, rpVerifier(false), tt.method, tt.url, tt.body, tt.realm, tt.signed, key)
			assert.Equal(t, plain, sent)
		})
	}
}

// TestVerifierReproduceNot checks when the base-string check names
// nothing: without DiagnoseKeys, when a key mistake makes the signature
// (which KeyMistake names instead), and when no variant does.
func TestVerifierReproduceNot(t *testing.T) {
	tt := rpCases[0]
	key := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)

	pe, _ := rpVerify(t, rpVerifier(false), tt.method, tt.url, tt.body, tt.realm, tt.signed, key)
	assert.Zero(t, pe.KeyMistake)

	pe, _ = rpVerify(t, rpVerifier(true), tt.method, tt.url, tt.body, tt.realm, tt.base, kmEncode(kmConsumerSecret)+"&")
	assert.Equal(t, basestring.EmptyTokenSecret, pe.KeyMistake.Kind)

	pe, _ = rpVerify(t, rpVerifier(true), tt.method, tt.url, tt.body, tt.realm, strings.Replace(tt.base, "rp1", "rp2", 1), key)
	assert.Equal(t, basestring.KeyUnknown, pe.KeyMistake.Kind)
}

// TestVerifierReproduceOnBudget checks that the base-string check draws on
// the diagnosis budget for its work: a client that keeps sending badly
// signed requests has them reproduced no more often than the consumer
// key's share pays for at mac.ReproduceWork each, and then is told why
// not.
func TestVerifierReproduceOnBudget(t *testing.T) {
	withDiagBudget(t) // a clock that does not move: nothing refills
	tt := rpCases[0]
	key := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)
	perCall := int(mac.ReproduceWork(len(tt.base), 0)) // at least what one check is charged
	reproduced, lastCause := 0, ""
	for range 400 {
		pe, _ := rpVerify(t, rpVerifier(true), tt.method, tt.url, tt.body, tt.realm, tt.signed, key)
		if pe.KeyMistake.Kind == basestring.BaseStringDiffers {
			reproduced++
		}
		lastCause = pe.KeyMistake.Cause
	}
	if max := diagConsumerBurst/perCall + 1; reproduced > max {
		t.Errorf("%d of 400 refusals reproduced on one consumer key's share, want at most %d", reproduced, max)
	}
	assert.Positive(t, reproduced, "the share pays for some checks")
	assert.Contains(t, lastCause, "for its cost")
}

// TestVerifierReproduceChargesWork checks that a refusal whose base string
// is checked is charged the work of the check, building its variants and
// not only their HMACs: mac.ReproduceWork of the base string, query and
// form body, which basestring's search stays within
// (TestReproduceWorkBound), on top of the key check's HMACs.
func TestVerifierReproduceChargesWork(t *testing.T) {
	key := kmEncode(kmConsumerSecret) + "&" + kmEncode(kmTokenSecret)
	for _, tt := range rpCases[:2] {
		withDiagBudget(t)
		pe, _ := rpVerify(t, rpVerifier(true), tt.method, tt.url, tt.body, tt.realm, tt.signed, key)
		require.Equal(t, basestring.BaseStringDiffers, pe.KeyMistake.Kind, tt.name)
		query := len(tt.url) - strings.IndexByte(tt.url+"?", '?') - 1
		if query < 0 {
			query = 0
		}
		want := diagnosisCost(len(tt.base), mac.MaxKeyTries, 0, nil, 0) + mac.ReproduceWork(len(tt.base), query+len(tt.body))
		assert.Equal(t, want, diagnoses.spent, "%s: charged", tt.name)
		assert.GreaterOrEqual(t, diagnoses.spent, int64(768<<10), "%s: charged less than the check's fixed work", tt.name)
	}
}
