package oauth1_test

import (
	"crypto"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// Keyed HMAC states are reused per Config, Transport and Verifier; each must
// only ever sign with the secrets it was keyed with, however secrets, tokens
// and Configs change between requests.
func TestKeyedStatesFollowTheSecrets(t *testing.T) {
	cfgs := make([]*oauth1.Config, 100) // more than the Configs that keep states
	for i := range cfgs {
		cfgs[i] = &oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "cs" + strconv.Itoa(i%7), Signer: oauth1.HMAC{Hash: crypto.SHA256}}
	}
	check := func(c *oauth1.Config, tok *oauth1.Credentials) {
		t.Helper()
		r := newRequest(t, "GET", "https://api.example.com/r?a=1", "", "")
		require.NoError(t, c.SignAt(r, tok, testTime, "n"))
		base, err := c.BaseString(newRequest(t, "GET", "https://api.example.com/r?a=1", "", ""), tok, testTime, "n")
		require.NoError(t, err)
		ps, err := oauth1.ParseAuthHeader(r.Header.Get("Authorization"))
		require.NoError(t, err)
		var sig string
		for _, p := range ps {
			if p.Name == "oauth_signature" {
				sig = p.Value
			}
		}
		mac := hmac.New(sha256.New, []byte(percent.Encode(c.ConsumerSecret)+"&"+percent.Encode(tok.Secret)))
		mac.Write([]byte(base))
		assert.Equal(t, base64.StdEncoding.EncodeToString(mac.Sum(nil)), sig, "secrets %q %q", c.ConsumerSecret, tok.Secret)
	}
	for round := range 3 {
		for i, c := range cfgs {
			check(c, &oauth1.Credentials{Token: "t", Secret: "ts" + strconv.Itoa((i+round)%5)})
		}
	}
	// A Config changed in place signs with its new secret.
	c := cfgs[0]
	tok := &oauth1.Credentials{Token: "t", Secret: "ts"}
	check(c, tok)
	c.ConsumerSecret = "rotated"
	check(c, tok)
}
