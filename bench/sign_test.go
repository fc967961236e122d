package bench

// Signing benchmarks: produce the Authorization header for a prepared
// request with countersign, github.com/dghubble/oauth1 and
// github.com/mrjones/oauth, against the floor: one hmac.New(sha1.New, key)
// over the finished base string, and its base64. See README.md for the
// command and the figures.

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	dghubble "github.com/dghubble/oauth1"
	mrjones "github.com/mrjones/oauth"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// The credentials, nonce and time of the X API documentation's example
// ("Authorizing a request"), which every case here is signed with.
const (
	consumerKey    = "xvz1evFS4wEEPTGEFPHBog"
	consumerSecret = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"
	token          = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"
	tokenSecret    = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"
	nonce          = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
	timestamp      = 1318622958
	formType       = "application/x-www-form-urlencoded"
)

// A signCase is a request to sign. The cases are defined here, once, for
// every benchmark in this module.
type signCase struct {
	name, method, url, contentType, body string
}

var (
	// xExample is the example's request, and xHeader the Authorization
	// header the documentation publishes for it.
	xExample = signCase{
		name: "XExample", method: "POST",
		url:         "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
		contentType: formType,
		body:        "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
	}
	query20Case   = signCase{name: "Query20", method: "GET", url: "https://api.example.com/1/search?" + query20()}
	form64KiBCase = signCase{name: "Form64KiB", method: "POST", url: "https://api.example.com/1/upload", contentType: formType, body: form64K()}

	signCases = []signCase{xExample, query20Case, form64KiBCase}
)

const xHeader = `OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", oauth_version="1.0"`

// query20 is 20 parameters of mixed content: UTF-8, reserved characters,
// spaces as "+" and "%20", and repeated names.
func query20() string {
	vals := []string{"caf%C3%A9", "a+b", "x%20y", "%E2%98%83", "1%2C2%2C3", "p%26q", "%21%2A%27", "plain", "~-._", "%E4%B8%AD%E6%96%87"}
	var b strings.Builder
	for i := 0; i < 20; i++ {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "k%d=%s", i%14, vals[i%len(vals)]) // k0..k5 repeat
	}
	return b.String()
}

// form64K is 64 KiB of form parameters with mixed content.
func form64K() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "field%d=value+%d%%2C+caf%%C3%%A9+%%26+more", i%500, i)
	}
	return b.String()[:64<<10]
}

func (c signCase) request(tb testing.TB) *http.Request {
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	r, err := http.NewRequest(c.method, c.url, body)
	if err != nil {
		tb.Fatal(err)
	}
	if c.contentType != "" {
		r.Header.Set("Content-Type", c.contentType)
	}
	return r
}

// resetBody gives a peer that consumes req.Body a fresh one; countersign
// reads through GetBody and needs no reset.
func (c signCase) resetBody(r *http.Request) {
	if c.body != "" {
		r.Body = io.NopCloser(strings.NewReader(c.body))
	}
}

var (
	headerSink  string
	requestSink *http.Request
)

var (
	xConfig = &oauth1.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret}
	xToken  = &oauth1.Credentials{Token: token, Secret: tokenSecret}
	xTime   = time.Unix(timestamp, 0)
)

// benchFloor is the floor of a case: a fresh hmac.New(sha1.New, key) over
// the finished base string, and its base64.
func benchFloor(b *testing.B, c signCase) {
	base, err := xConfig.BaseString(c.request(b), xToken, xTime, nonce)
	if err != nil {
		b.Fatal(err)
	}
	key := []byte(percent.Encode(consumerSecret) + "&" + percent.Encode(tokenSecret))
	bb := []byte(base)
	b.ReportAllocs()
	b.SetBytes(int64(len(bb)))
	reportCPU(b, func() {
		for b.Loop() {
			mac := hmac.New(sha1.New, key)
			mac.Write(bb)
			headerSink = base64.StdEncoding.EncodeToString(mac.Sum(nil))
		}
	})
}

func BenchmarkSign(b *testing.B) {
	cfg, tok, ts := xConfig, xToken, xTime
	for _, c := range signCases {
		b.Run("case="+c.name+"/lib=floor", func(b *testing.B) { benchFloor(b, c) })
		b.Run("case="+c.name+"/lib=countersign", func(b *testing.B) {
			r := c.request(b)
			b.ReportAllocs()
			reportCPU(b, func() {
				for b.Loop() {
					if err := cfg.SignAt(r, tok, ts, nonce); err != nil {
						b.Fatal(err)
					}
					headerSink = r.Header.Get("Authorization")
				}
			})
		})
		b.Run("case="+c.name+"/lib=dghubble", func(b *testing.B) {
			rt := &capture{}
			dc := &dghubble.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Noncer: fixedNonce{}}
			client := dc.Client(context.Background(), dghubble.NewToken(token, tokenSecret))
			client.Transport.(*dghubble.Transport).Base = rt
			r := c.request(b)
			b.ReportAllocs()
			for b.Loop() {
				c.resetBody(r)
				if _, err := client.Transport.RoundTrip(r); err != nil {
					b.Fatal(err)
				}
				headerSink = rt.auth
			}
		})
		b.Run("case="+c.name+"/lib=mrjones", func(b *testing.B) {
			rt := &capture{}
			mc := mrjones.NewCustomHttpClientConsumer(consumerKey, consumerSecret, mrjones.ServiceProvider{}, nil)
			mc.HttpClient = rt
			tr, err := mc.MakeRoundTripper(&mrjones.AccessToken{Token: token, Secret: tokenSecret})
			if err != nil {
				b.Fatal(err)
			}
			r := c.request(b)
			b.ReportAllocs()
			for b.Loop() {
				c.resetBody(r)
				if _, err := tr.RoundTrip(r); err != nil {
					b.Fatal(err)
				}
				headerSink = rt.auth
			}
		})
	}
}

// BenchmarkTransport sends the X example through a Transport whose base
// does nothing, which keeps its keyed HMAC from request to request.
// lib=request is the copy of the request that a RoundTripper must build
// before changing it (a new Request and its own header map, as the
// Transport makes), so that the Transport can be read net of it.
func BenchmarkTransport(b *testing.B) {
	c := xExample
	b.Run("case="+c.name+"/lib=floor", func(b *testing.B) { benchFloor(b, c) })
	b.Run("case="+c.name+"/lib=request", func(b *testing.B) {
		r := c.request(b)
		b.ReportAllocs()
		for b.Loop() {
			r2 := new(http.Request)
			*r2 = *r
			r2.Header = maps.Clone(r.Header)
			requestSink = r2
		}
	})
	b.Run("case="+c.name+"/lib=countersign", func(b *testing.B) {
		rt := &capture{}
		tr := &oauth1.Transport{Config: xConfig, Token: xToken, Base: rt}
		r := c.request(b)
		b.ReportAllocs()
		reportCPU(b, func() {
			for b.Loop() {
				if _, err := tr.RoundTrip(r); err != nil {
					b.Fatal(err)
				}
				headerSink = rt.auth
			}
		})
	})
}

type fixedNonce struct{}

func (fixedNonce) Nonce() string { return nonce }

// capture stands in for the network: it records the Authorization header
// and answers 200 with an empty body, one response for every request, so
// that it costs next to nothing. It serves as an http.RoundTripper for
// dghubble and as mrjones's HttpClient.
type capture struct {
	auth string
	resp http.Response
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) { return c.Do(r) }

func (c *capture) Do(r *http.Request) (*http.Response, error) {
	c.auth = r.Header.Get("Authorization")
	if r.Body != nil {
		r.Body.Close()
	}
	c.resp = http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}
	return &c.resp, nil
}

// TestPeersSignTheSameParameters makes sure the benchmark compares equal
// work: each library's header names the same protocol parameters.
func TestPeersSignTheSameParameters(t *testing.T) {
	for _, c := range signCases {
		rt := &capture{}
		dc := &dghubble.Config{ConsumerKey: consumerKey, ConsumerSecret: consumerSecret, Noncer: fixedNonce{}}
		client := dc.Client(context.Background(), dghubble.NewToken(token, tokenSecret))
		client.Transport.(*dghubble.Transport).Base = rt
		if _, err := client.Transport.RoundTrip(c.request(t)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rt.auth, `oauth_nonce="`+nonce+`"`) || !strings.Contains(rt.auth, "oauth_signature=") {
			t.Errorf("%s: dghubble header %q", c.name, rt.auth)
		}
	}
}
