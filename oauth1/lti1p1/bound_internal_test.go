package lti1p1

import (
	"strings"
	"testing"
)

// The tries of Diagnose are a fixed list: with every option that adds
// tries at once (many audiences, azp, a stored secret with a space), all
// of them under each of the three hashes fit in maxTries.
func TestDiagnoseBounded(t *testing.T) {
	l := &Launch{
		Claim:           &Claim{OAuthConsumerKey: "k", OAuthConsumerKeySign: "x"},
		Signed:          Signed{ConsumerKey: "k", DeploymentID: "d", Issuer: "https://i/", ClientID: "azp", Exp: 1, Nonce: "n"},
		Audience:        strings.Fields("a b c d e f g h i j k l m n o p"),
		AuthorizedParty: "azp",
	}
	secret := " s e c r e t "
	right := candidate{key: secret, base: l.Signed.BaseString()}
	n := 1 + len(l.candidates(secret, right))
	if 3*n > maxTries {
		t.Fatalf("%d tries under 3 hashes = %d, over maxTries %d", n, 3*n, maxTries)
	}
	t.Logf("%d tries a hash, %d at most", n, 3*n)
}
