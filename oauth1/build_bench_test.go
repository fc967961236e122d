package oauth1

import (
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// These benchmarks split SignAt into its stages on the three cases of the
// bench module, to see which stage a change speeds up.

func benchRequests() map[string]func() *http.Request {
	q := func() string {
		vals := []string{"caf%C3%A9", "a+b", "x%20y", "%E2%98%83", "1%2C2%2C3", "p%26q", "%21%2A%27", "plain", "~-._", "%E4%B8%AD%E6%96%87"}
		var b strings.Builder
		for i := 0; i < 20; i++ {
			if i > 0 {
				b.WriteByte('&')
			}
			fmt.Fprintf(&b, "k%d=%s", i%14, vals[i%len(vals)])
		}
		return b.String()
	}()
	form := func() string {
		var b strings.Builder
		for i := 0; b.Len() < 64<<10; i++ {
			if i > 0 {
				b.WriteByte('&')
			}
			fmt.Fprintf(&b, "field%d=value+%d%%2C+caf%%C3%%A9+%%26+more", i%500, i)
		}
		return b.String()[:64<<10]
	}()
	mk := func(method, url, body string) func() *http.Request {
		return func() *http.Request {
			r, _ := http.NewRequest(method, url, strings.NewReader(body))
			if body != "" {
				r.Header.Set("Content-Type", formType)
			} else {
				r.Body, r.GetBody = nil, nil
			}
			return r
		}
	}
	return map[string]func() *http.Request{
		"XExample":  mk("POST", "https://api.twitter.com/1.1/statuses/update.json?include_entities=true", "status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21"),
		"Query20":   mk("GET", "https://api.example.com/1/search?"+q, ""),
		"Form64KiB": mk("POST", "https://api.example.com/1/upload", form),
	}
}

func BenchmarkStages(b *testing.B) {
	c := &Config{Consumer: Credentials{Token: "xvz1evFS4wEEPTGEFPHBog", Secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"}}
	tok := &Credentials{Token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", Secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"}
	ts := time.Unix(1318622958, 0)
	const nonce = "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg"
	for _, name := range []string{"XExample", "Query20", "Form64KiB"} {
		r := benchRequests()[name]()
		b.Run("case="+name+"/stage=build", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := getState()
				if err := s.build(c, r, tok, ts, nonce, nil); err != nil {
					b.Fatal(err)
				}
				putState(s)
			}
		})
		b.Run("case="+name+"/stage=hmac", func(b *testing.B) {
			s := getState()
			if err := s.build(c, r, tok, ts, nonce, nil); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.sign(c.Consumer.Secret, tok.Secret); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("case="+name+"/stage=all", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.SignAt(r, tok, ts, nonce); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSetKeysAtEnd checks the keys of names too close to the end of the
// buffer for the eight-byte load, against keys packed byte by byte.
func TestSetKeysAtEnd(t *testing.T) {
	for _, names := range [][]string{{"a"}, {"abcdefgh"}, {"abcdefghij"}, {"", "xy"}, {"abc", "abcdefghi"}} {
		var s state
		for _, name := range names {
			k0 := len(s.enc)
			s.enc = append(s.enc, name...)
			s.params = append(s.params, newParam(k0, len(s.enc), len(s.enc)))
		}
		s.enc = s.enc[:len(s.enc):len(s.enc)]
		s.setKeys()
		for i, name := range names {
			var want [8]byte
			copy(want[:], name)
			if got := s.params[i].key; got != binary.BigEndian.Uint64(want[:]) {
				t.Errorf("key of %q = %#x, want %#x", name, got, want)
			}
		}
	}
}
