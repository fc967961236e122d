package lti1p1_test

import (
	"fmt"
	"os"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

// A platform signs the claim with the LTI 1.1 shared secret of the
// consumer key; these are the values of the 1EdTech migration guide's
// example, and the sign it publishes.
func ExampleSign() {
	sign, err := lti1p1.Sign("my-lti11-secret", lti1p1.Signed{
		ConsumerKey:  "179248902",
		DeploymentID: "689302",
		Issuer:       "https://lmsvendor.com",
		ClientID:     "PM48OJSfGDTAzAo",
		Exp:          1551290856,
		Nonce:        "172we8671fd8z",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sign)
	// Output: lWd54kFo5qU7xshAna6v8BwoBm6tmUjc6GTax6+12ps=
}

// A tool parses the payload of the id_token it verified, looks up the
// secret of the claim's consumer key, and verifies the sign before it
// binds the deployment to the LTI 1.1 account.
func ExampleLaunch_Verify() {
	payload, err := os.ReadFile("testdata/guide-payload.json") // the guide's example
	if err != nil {
		fmt.Println(err)
		return
	}
	l, err := lti1p1.Parse(payload)
	if err != nil {
		fmt.Println(err)
		return
	}
	secrets := map[string]string{"179248902": "my-lti11-secret"} // the tool's LTI 1.1 keys
	if err := l.Verify(secrets[l.Claim.OAuthConsumerKey]); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("LTI 1.1 user", l.Claim.UserID, "of consumer key", l.Claim.OAuthConsumerKey, "is deployment", l.Signed.DeploymentID)
	// Output: LTI 1.1 user 34212 of consumer key 179248902 is deployment 689302
}

// When the sign is refused, Diagnose says what the platform did wrong:
// here it keyed the HMAC as OAuth 1.0a does, with "secret&" (the sign
// below is printf ... | openssl dgst -sha256 -hmac 'my-lti11-secret&' -binary | base64).
func ExampleLaunch_Diagnose() {
	l := &lti1p1.Launch{
		Claim: &lti1p1.Claim{OAuthConsumerKey: "179248902", OAuthConsumerKeySign: "EKfte9KBzPEwP7J9hYD0jSpEt6A5uuIl6LRGajBy2zk="},
		Signed: lti1p1.Signed{ConsumerKey: "179248902", DeploymentID: "689302", Issuer: "https://lmsvendor.com",
			ClientID: "PM48OJSfGDTAzAo", Exp: 1551290856, Nonce: "172we8671fd8z"},
	}
	fmt.Println(l.Verify("my-lti11-secret"))
	if m, wrong := l.Diagnose("my-lti11-secret"); wrong {
		fmt.Println(m.Kind)
	}
	// Output:
	// lti1p1: oauth_consumer_key_sign does not verify: the platform signed other values or with another secret
	// rfc5849-key
}
