package lti1p1_test

import (
	"crypto/sha1"
	"encoding/base64"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/lti1p1"
)

// TestFIPS140Only: in FIPS 140-only mode, where crypto/hmac panics on
// SHA-1 and on keys under 112 bits, Sign refuses a short secret with an
// error, Diagnose skips SHA-1 and says so, and a long secret still signs.
// The mode is fixed at start-up: the checks run in a child process.
func TestFIPS140Only(t *testing.T) {
	if runtime.GOARCH == "wasm" {
		t.Skip("starts a child process, which js/wasm and wasip1 cannot")
	}
	const long = "an LTI 1.1 secret long enough for FIPS"
	if os.Getenv("COUNTERSIGN_FIPS_CHILD") == "1" {
		_, err := lti1p1.Sign("short", guideSigned)
		require.ErrorContains(t, err, "FIPS 140-only mode")
		sign, err := lti1p1.Sign(long, guideSigned)
		require.NoError(t, err)
		require.NoError(t, lti1p1.Verify(long, guideSigned, sign))
		l := &lti1p1.Launch{Claim: &lti1p1.Claim{OAuthConsumerKeySign: os.Getenv("COUNTERSIGN_FIPS_SHA1")}, Signed: guideSigned}
		m, wrong := l.Diagnose(long)
		require.True(t, wrong)
		require.Equal(t, lti1p1.Unchecked, m.Kind, "%v", m)
		require.Contains(t, m.Cause, "SHA-1")
		return
	}
	sha1Sign := base64.StdEncoding.EncodeToString(rawHMAC(sha1.New, long, guideBase))
	cmd := exec.Command(os.Args[0], "-test.run=^TestFIPS140Only$", "-test.v")
	cmd.Env = append(os.Environ(), "COUNTERSIGN_FIPS_CHILD=1", "GODEBUG=fips140=only", "COUNTERSIGN_FIPS_SHA1="+sha1Sign)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "PASS")
}
