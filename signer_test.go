// The conformance suite: every vector in testdata/vectors is a request with
// expected values taken from a published source (the X API documentation,
// RFC 5849) or computed by an independent tool (openssl), as each file's
// "# source:" and "# command:" lines say. Nothing in this repository
// generates those files.
package countersign_test

import (
	"bufio"
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/percent"
)

// A vector is one file of testdata/vectors: "key: value" lines, where a
// value runs to the end of the line and may be empty.
type vector struct {
	file   string
	fields map[string]string
}

func (v vector) get(k string) string { return v.fields[k] }

func (v vector) has(k string) bool { _, ok := v.fields[k]; return ok }

func readVectors(t *testing.T) []vector {
	t.Helper()
	files, err := filepath.Glob("testdata/vectors/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in testdata/vectors: %v", err)
	}
	var vs []vector
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		v := vector{file: filepath.Base(f), fields: map[string]string{}}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, val, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("%s: malformed line %q", f, line)
			}
			v.fields[k] = strings.TrimPrefix(val, " ")
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if !v.has("source") && !strings.Contains(readFile(t, f), "# source:") {
			t.Errorf("%s: no # source: line", f)
		}
		vs = append(vs, v)
	}
	return vs
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var hashes = map[string]crypto.Hash{"SHA1": crypto.SHA1, "SHA256": crypto.SHA256, "SHA512": crypto.SHA512}

func (v vector) config(t *testing.T) *oauth1.Config {
	t.Helper()
	c := &oauth1.Config{
		Consumer:    oauth1.Credentials{Token: v.get("consumer-key"), Secret: v.get("consumer-secret")},
		Realm:       v.get("realm"),
		OmitVersion: v.get("version") == "",
	}
	method, hash, _ := strings.Cut(v.get("signature-method"), "-")
	switch method {
	case "HMAC":
		c.Signer = oauth1.HMAC{Hash: hashes[hash]}
	case "RSA":
		key, err := rsakey.Parse([]byte(readFile(t, v.get("private-key-file"))), "")
		if err != nil {
			t.Fatalf("%s: %v", v.file, err)
		}
		c.Signer = oauth1.RSA{Key: key, Hash: hashes[hash]}
	case "PLAINTEXT":
		c.Signer = oauth1.PlainText{}
	default:
		t.Fatalf("%s: unknown signature-method %q", v.file, v.get("signature-method"))
	}
	return c
}

func (v vector) request(t *testing.T) *http.Request {
	t.Helper()
	var body *strings.Reader
	if v.get("body") != "" {
		body = strings.NewReader(v.get("body"))
	}
	var r *http.Request
	var err error
	if body != nil {
		r, err = http.NewRequest(v.get("method"), v.get("url"), body)
	} else {
		r, err = http.NewRequest(v.get("method"), v.get("url"), nil)
	}
	if err != nil {
		t.Fatalf("%s: %v", v.file, err)
	}
	if ct := v.get("content-type"); ct != "" {
		r.Header.Set("Content-Type", ct)
	}
	return r
}

func (v vector) token() *oauth1.Credentials {
	if !v.has("token") && !v.has("token-secret") {
		return nil
	}
	return &oauth1.Credentials{Token: v.get("token"), Secret: v.get("token-secret")}
}

func (v vector) time(t *testing.T) time.Time {
	t.Helper()
	ts, err := strconv.ParseInt(v.get("timestamp"), 10, 64)
	if err != nil {
		t.Fatalf("%s: timestamp: %v", v.file, err)
	}
	return time.Unix(ts, 0)
}

func (v vector) extra() []oauth1.Param {
	var ps []oauth1.Param
	if cb := v.get("callback"); cb != "" {
		ps = append(ps, oauth1.Param{Name: "oauth_callback", Value: cb})
	}
	if vf := v.get("verifier"); vf != "" {
		ps = append(ps, oauth1.Param{Name: "oauth_verifier", Value: vf})
	}
	return ps
}

var sigParam = regexp.MustCompile(`oauth_signature="([^"]*)"`)

func TestConformance(t *testing.T) {
	for _, v := range readVectors(t) {
		t.Run(v.file, func(t *testing.T) {
			c, tok, ts := v.config(t), v.token(), v.time(t)

			base, err := c.BaseString(v.request(t), tok, ts, v.get("nonce"), v.extra()...)
			if err != nil {
				t.Fatalf("BaseString: %v", err)
			}
			if want := v.get("base-string"); want != "" && base != want {
				t.Errorf("BaseString =\n%s\nwant\n%s", base, want)
			}
			if want := v.get("parameter-string"); want != "" {
				// The third part of the base string is the encoded parameter string.
				parts := strings.Split(base, "&")
				got, err := percent.Decode(parts[len(parts)-1])
				if err != nil || got != want {
					t.Errorf("parameter string = %q, %v\nwant %q", got, err, want)
				}
			}
			if key := v.get("signing-key"); key != "" && v.get("base-string") != "" {
				// Check the published key against the published base
				// string and signature with crypto/hmac alone.
				mac := hmac.New(sha1.New, []byte(key))
				mac.Write([]byte(v.get("base-string")))
				if got := base64.StdEncoding.EncodeToString(mac.Sum(nil)); got != v.get("signature") {
					t.Errorf("HMAC-SHA1(signing-key, base-string) = %s, want %s", got, v.get("signature"))
				}
			}

			r := v.request(t)
			if err := c.SignAt(r, tok, ts, v.get("nonce"), v.extra()...); err != nil {
				t.Fatalf("SignAt: %v", err)
			}
			auth := r.Header.Get("Authorization")
			if want := v.get("authorization"); want != "" && auth != want {
				t.Errorf("Authorization =\n%s\nwant\n%s", auth, want)
			}
			if want := v.get("signature"); want != "" {
				m := sigParam.FindStringSubmatch(auth)
				if m == nil {
					t.Fatalf("no oauth_signature in %q", auth)
				}
				got, err := percent.Decode(m[1])
				if err != nil || got != want {
					t.Errorf("oauth_signature = %q, %v, want %q", got, err, want)
				}
				checkDeliveries(t, v, want)
			}
		})
	}
}

// checkDeliveries signs the vector's request with query and form-body
// delivery and checks that the wire form carries the same signature and
// every protocol parameter exactly once.
func checkDeliveries(t *testing.T, v vector, wantSig string) {
	t.Helper()
	for _, d := range []oauth1.Delivery{oauth1.QueryString, oauth1.FormBody} {
		if d == oauth1.FormBody && v.get("method") == "GET" {
			continue
		}
		c := v.config(t)
		c.Delivery = d
		r := v.request(t)
		if err := c.SignAt(r, v.token(), v.time(t), v.get("nonce"), v.extra()...); err != nil {
			t.Fatalf("SignAt with %v delivery: %v", d, err)
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%v delivery set an Authorization header", d)
		}
		wire := r.URL.RawQuery
		if d == oauth1.FormBody {
			b, err := r.GetBody()
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			if _, err := bufio.NewReader(b).WriteTo(&sb); err != nil {
				t.Fatal(err)
			}
			wire = sb.String()
			if got := r.ContentLength; got != int64(len(wire)) {
				t.Errorf("%v delivery: ContentLength = %d, want %d", d, got, len(wire))
			}
		}
		vals, err := url.ParseQuery(wire)
		if err != nil {
			t.Fatalf("%v delivery: wire form %q: %v", d, wire, err)
		}
		if got := vals["oauth_signature"]; len(got) != 1 || got[0] != wantSig {
			t.Errorf("%v delivery: oauth_signature = %q, want [%q]", d, got, wantSig)
		}
		if got := vals["oauth_nonce"]; len(got) != 1 || got[0] != v.get("nonce") {
			t.Errorf("%v delivery: oauth_nonce = %q, want [%q]", d, got, v.get("nonce"))
		}
	}
}
