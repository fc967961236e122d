package main

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReviewDenyFinal: a denied authorization cannot be approved after,
// by the same user or another.
func TestReviewDenyFinal(t *testing.T) {
	cfg, base := reviewProvider(t)
	res, err := cfg.RequestToken(context.Background())
	require.NoError(t, err)
	tok := res.Credentials.Token
	csrf := consentCSRF(t, cfg, res.Credentials, "alice", "pw-alice")
	require.Equal(t, http.StatusSeeOther, decideAs(t, base, "alice", "pw-alice", url.Values{"oauth_token": {tok}, "deny": {"1"}, "csrf": {csrf}}).StatusCode)
	resp := decideAs(t, base, "alice", "pw-alice", url.Values{"oauth_token": {tok}, "approve": {"1"}, "csrf": {csrf}})
	assert.Contains(t, []int{http.StatusNotFound, http.StatusConflict}, resp.StatusCode, "approved after a denial")
}

// TestReviewCallbackRegistered is a review finding left open (it runs
// with COUNTERSIGN_REVIEW_FINDINGS=1): the provider registers its clients
// (-consumer KEY:SECRET) with no callback, so that a client may send its
// users, after consent, to any http or https URL, which the consent page
// does not show. The server's rules would restrict a client to its
// registered callbacks (Registration.Callbacks); the provider gives no
// way to register one.
func TestReviewCallbackRegistered(t *testing.T) {
	if os.Getenv("COUNTERSIGN_REVIEW_FINDINGS") != "1" {
		t.Skip("a review finding left open: COUNTERSIGN_REVIEW_FINDINGS=1 runs it")
	}
	cfg, _ := reviewProvider(t)
	c := *cfg
	c.Callback = "https://phish.example/login"
	_, err := c.RequestToken(context.Background())
	assert.Error(t, err, "a callback nobody registered was taken")
}
