package oauth1_test

import (
	"bytes"
	"context"
	"crypto"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
)

// Tests of hostile sizes and of memory that must not be shared: each was a
// defect found by an audit.

// A form body of many distinct oauth_* names made Verify compare every pair
// of protocol parameters before authenticating anything: about 10 s of CPU
// for 1 MB. It is refused as soon as the count passes the bound.
func TestVerifyManyProtocolParameters(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "oauth_x%d=1&", i)
	}
	body := b.String()
	for _, where := range []string{"body", "query", "header"} {
		r := httptest.NewRequest("POST", "/r", nil)
		r.Host = "api.example.com"
		switch where {
		case "body":
			r.Body = io.NopCloser(strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		case "query":
			r.URL.RawQuery = body[:64<<10]
		case "header":
			var h strings.Builder
			h.WriteString("OAuth ")
			for i := range 6000 {
				fmt.Fprintf(&h, `oauth_x%d="1",`, i)
			}
			r.Header.Set("Authorization", h.String())
		}
		v := &server.Verifier{Store: acceptAll{}}
		start := time.Now()
		_, err := v.Verify(r)
		elapsed := time.Since(start)
		var pe *server.ProblemError
		require.ErrorAs(t, err, &pe, where)
		assert.Equal(t, oauth1.ProblemParameterRejected, pe.Problem, where)
		assert.Contains(t, pe.Error(), "more than 64 protocol parameters", where)
		// Generous, for the race detector on a loaded machine; the defect took seconds.
		assert.Less(t, elapsed, 2*time.Second, where)
	}
}

// acceptAll knows every consumer and token, with long secrets.
type acceptAll struct{}

func (acceptAll) Consumer(context.Context, string, time.Time) (server.Registration, error) {
	return server.Registration{Secret: xConsumer.Secret}, nil
}

func (acceptAll) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	return server.TokenCredentials{Token: token, Secret: xToken.Secret, ConsumerKey: key}, nil
}

// An error returned by SignAt must not change when the next request is
// signed: the form parser's error once quoted the pooled body buffer, and
// showed the next request's bytes.
func TestSignErrorDoesNotAliasPooledMemory(t *testing.T) {
	sign := func(body string) error {
		r, err := http.NewRequest("POST", "https://api.example.com/r", strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return testConfig.SignAt(r, nil, testTime, "n")
	}
	first := sign("a=%zz")
	var ee *percent.EscapeError
	require.ErrorAs(t, first, &ee)
	msg := first.Error()
	for range 100 {
		sign("QRS=" + strings.Repeat("SECRET", 10))
		sign("Q%R=1")
	}
	assert.Equal(t, "%zz", ee.Escape)
	assert.Equal(t, msg, first.Error())
}

// MaxBodyBytes above the cap is the cap, so that a documented setting can
// never overflow the signing buffers: with 1 GiB, a 440 MiB body of "!"
// once panicked with "slice bounds out of range".
func TestMaxBodyBytesCapped(t *testing.T) {
	if os.Getenv("COUNTERSIGN_LONG_TESTS") != "1" {
		t.Skip("reads 256 MiB for 20 to 40 s: set COUNTERSIGN_LONG_TESTS=1 to run it (.ci/run does)")
	}
	if testing.Short() || raceEnabled || strconv.IntSize == 32 {
		t.Skip("reads 256 MiB; skipped with -short, the race detector and on 32-bit platforms")
	}
	const maxLimit = 256 << 20
	c := *testConfig
	c.MaxBodyBytes = 1 << 30
	// One byte over the cap: refused, not read on.
	r, err := http.NewRequest("POST", "https://api.example.com/r", io.LimitReader(bangs{}, maxLimit+1))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	err = c.SignAt(r, nil, testTime, "n")
	require.ErrorIs(t, err, oauth1.ErrBodyTooLarge)
	assert.Contains(t, err.Error(), "limit 268435456 bytes")

	// At the cap: signed, each "!" encoded to five bytes in the base string.
	r, err = http.NewRequest("POST", "https://api.example.com/r", io.LimitReader(bangs{}, maxLimit))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	base, err := c.BaseString(r, nil, testTime, "n")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(base, "POST&https%3A%2F%2Fapi.example.com%2Fr&%2521%2521"))
	assert.Greater(t, len(base), 5*maxLimit)

	v := &server.Verifier{Store: acceptAll{}, Settings: server.Settings{MaxBodyBytes: 1 << 40}}
	r = httptest.NewRequest("POST", "/r", io.LimitReader(bangs{}, maxLimit+1))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Authorization", `OAuth oauth_consumer_key="k"`)
	_, err = v.Verify(r)
	require.ErrorIs(t, err, oauth1.ErrBodyTooLarge)
}

type bangs struct{}

func (bangs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '!'
	}
	return len(p), nil
}

// allocated returns the bytes f allocates, on average over a few runs.
func allocated(f func()) float64 {
	var before, after runtime.MemStats
	const runs = 5
	f()
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / runs
}

// Hostile headers and forms once made the parsers allocate about 60 times
// their size, growing slices one element at a time.
func TestAllocationAmplification(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	header := "OAuth " + strings.Repeat(`a="",`, 200_000)
	n := allocated(func() { oauth1.ParseAuthHeader(header) })
	assert.Less(t, n/float64(len(header)), 8.0, "ParseAuthHeader: bytes allocated per header byte")

	for _, tt := range []struct {
		name  string
		body  string
		limit float64
	}{
		// The base string alone takes 9/5 of "ab=c&", 5/3 of "%21" and
		// 7/2 of "a&", and a pair's offsets 12 bytes, twice over while a
		// large set is radix-sorted.
		{"pairs", strings.Repeat("ab=c&", 200_000), 11},
		{"escapes", strings.Repeat("%21", 300_000), 10},
		{"one-letter pairs", strings.Repeat("a&", 500_000), 21},
	} {
		name, body := tt.name, tt.body
		n := allocated(func() {
			r, _ := http.NewRequest("POST", "https://api.example.com/r", strings.NewReader(body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			testConfig.SignAt(r, nil, testTime, "n")
		})
		assert.Less(t, n/float64(len(body)), tt.limit, "%s: bytes allocated per body byte", name)
	}
}

// In FIPS 140-only mode crypto/hmac and crypto/sha1 panic on SHA-1 and on
// short keys; Sign and Verify must answer with an error that says so. The
// mode is fixed at start-up, so the checks run in a child process.
func TestFIPS140Only(t *testing.T) {
	if os.Getenv("COUNTERSIGN_FIPS_CHILD") == "1" {
		fipsChild(t)
		return
	}
	if runtime.GOARCH == "wasm" {
		t.Skip("starts a child process, which js/wasm and wasip1 cannot")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFIPS140Only$", "-test.v")
	cmd.Env = append(os.Environ(), "COUNTERSIGN_FIPS_CHILD=1", "GODEBUG=fips140=only")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "fips child: ok")
}

func fipsChild(t *testing.T) {
	longKey := oauth1.Credentials{Token: "ck", Secret: "a consumer secret of more than 112 bits"}
	req := func() *http.Request {
		r, _ := http.NewRequest("GET", "https://api.example.com/r", nil)
		return r
	}
	for _, tt := range []struct {
		name string
		cfg  oauth1.Config
		want string // "" for success
	}{
		{"HMAC-SHA1", oauth1.Config{ConsumerKey: longKey.Token, ConsumerSecret: longKey.Secret}, "SHA-1 is not allowed in FIPS 140-only mode"},
		{"short key", oauth1.Config{ConsumerKey: "ck", ConsumerSecret: "s", Signer: oauth1.HMAC{Hash: crypto.SHA256}}, "key shorter than 112 bits"},
		{"SHA-1 body hash", oauth1.Config{ConsumerKey: longKey.Token, ConsumerSecret: longKey.Secret, Signer: oauth1.HMAC{Hash: crypto.SHA256}, BodyHash: crypto.SHA1}, "SHA-1 is not allowed"},
		{"HMAC-SHA256", oauth1.Config{ConsumerKey: longKey.Token, ConsumerSecret: longKey.Secret, Signer: oauth1.HMAC{Hash: crypto.SHA256}}, ""},
	} {
		err := tt.cfg.SignAt(req(), nil, testTime, "n")
		if tt.want == "" {
			require.NoError(t, err, tt.name)
			continue
		}
		require.Error(t, err, tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
		assert.Contains(t, err.Error(), "FIPS 140-only", tt.name)
	}
	_, err := (oauth1.HMAC{}).Sign([]byte("b"), "long enough consumer secret", "")
	assert.ErrorContains(t, err, "FIPS 140-only")

	// Verify: an HMAC-SHA1 request is refused with a problem, not a panic.
	r := xRequestFIPS()
	v := &server.Verifier{Store: acceptAll{}, Settings: server.Settings{Now: xTime}}
	_, err = v.Verify(r)
	var pe *server.ProblemError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, oauth1.ProblemSignatureMethodRejected, pe.Problem)
	assert.ErrorContains(t, err, "FIPS 140-only")
	if !t.Failed() {
		fmt.Println("fips child: ok")
	}
}

func xRequestFIPS() *http.Request {
	u, err := url.Parse(xVector.Get("url"))
	if err != nil {
		panic(err)
	}
	r := httptest.NewRequest(xVector.Get("method"), u.RequestURI(), bytes.NewReader([]byte("status=x")))
	r.Host = u.Host
	r.Header.Set("Content-Type", xVector.Get("content-type"))
	// The X example's header without its token.
	r.Header.Set("Authorization", xVector.With("token", "").Header())
	return r
}
