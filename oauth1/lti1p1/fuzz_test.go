package lti1p1_test

import (
	"os"
	"testing"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

// FuzzParse: no payload makes Parse, Verify or Diagnose panic, and a
// launch that verifies is one Diagnose finds nothing wrong with.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/guide-payload.json"); err == nil {
		f.Add(b, "my-lti11-secret")
	}
	f.Add([]byte(`{"aud":["a","b"],"azp":"b","exp":1.5e9,"iss":"i","nonce":"n","https://purl.imsglobal.org/spec/lti/claim/deployment_id":"d","https://purl.imsglobal.org/spec/lti/claim/lti1p1":{"oauth_consumer_key":"k","oauth_consumer_key_sign":"%3D"}}`), "s")
	f.Add([]byte(`{"exp":-1e400,"aud":[]}`), "")
	f.Fuzz(func(t *testing.T, payload []byte, secret string) {
		l, err := lti1p1.Parse(payload)
		if err != nil {
			return
		}
		verr := l.Verify(secret)
		m, wrong := l.Diagnose(secret)
		if (verr == nil) == wrong {
			t.Fatalf("Verify = %v but Diagnose = %v, %v", verr, m, wrong)
		}
	})
}
