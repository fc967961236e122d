package main

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strings"
	"testing"

	"github.com/countersign/countersign/oauth1/basestring"
)

// The tests below sign requests by hand, with crypto/hmac and the
// percent-encoding written out in kmEnc, not with the code under test.

// The provider's credentials. The secrets hold characters that
// percent-encoding changes, so that the encoding mistakes make other keys.
const (
	kmKey         = "ck-km"
	kmSecret      = "c/secret+km=1"
	kmToken       = "tok-km"
	kmTokenSecret = "t secret&km!2"
)

var kmEnv = map[string]string{"OAUTH1_CONSUMER_SECRET": kmSecret, "OAUTH1_TOKEN_SECRET": kmTokenSecret}

// kmRequest returns a raw GET of scheme://api.example.com/1/me?q=1 signed
// by a client that declares method, computes the HMAC with h under key,
// and sends the MAC as encode makes it (nil: standard base64); and the
// base string it signed.
func kmRequest(scheme, method string, h func() hash.Hash, key string, encode func([]byte) string) (req, base string) {
	params := map[string]string{
		"oauth_consumer_key": kmKey, "oauth_nonce": "n", "oauth_signature_method": method,
		"oauth_timestamp": "1", "oauth_token": kmToken, "oauth_version": "1.0", "q": "1",
	}
	var pairs []string
	for n, v := range params {
		pairs = append(pairs, enc(n)+"="+enc(v))
	}
	sort.Strings(pairs)
	base = "GET&" + enc(scheme+"://api.example.com/1/me") + "&" + enc(strings.Join(pairs, "&"))
	m := hmac.New(h, []byte(key))
	m.Write([]byte(base))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
	if encode != nil {
		sig = encode(m.Sum(nil))
	}
	auth := `OAuth oauth_consumer_key="` + kmKey + `", oauth_nonce="n", oauth_signature="` + enc(sig) + `", oauth_signature_method="` + method +
		`", oauth_timestamp="1", oauth_token="` + kmToken + `", oauth_version="1.0"`
	return "GET /1/me?q=1 HTTP/1.1\nHost: api.example.com\nAuthorization: " + auth + "\n\n", base
}

// Signature encodings clients send.
var (
	encTwice = func(sum []byte) string { return enc(base64.StdEncoding.EncodeToString(sum)) }
	encHex   = hex.EncodeToString
	encURL   = base64.RawURLEncoding.EncodeToString
)

// kmCases are one case per MistakeKind that a Verifier can report (all but
// unchecked, which it reaches only in FIPS 140-only mode: see
// oauth1/server's TestDiagnoseKeysFIPS140Only), and cases of two or three
// mistakes at once.
var kmCases = []struct {
	name   string
	method string
	h      func() hash.Hash
	key    string // the key the client signed with
	encode func([]byte) string
	want   []basestring.MistakeKind
}{
	{"signature encoded twice", "HMAC-SHA1", sha1.New, enc(kmSecret) + "&" + enc(kmTokenSecret), encTwice, kinds(basestring.SignatureEncoding)},
	{"hex signature", "HMAC-SHA256", sha256.New, enc(kmSecret) + "&" + enc(kmTokenSecret), encHex, kinds(basestring.SignatureEncoding)},
	{"unpadded URL-safe signature", "HMAC-SHA512", sha512.New, enc(kmSecret) + "&" + enc(kmTokenSecret), encURL, kinds(basestring.SignatureEncoding)},
	{"empty token secret", "HMAC-SHA1", sha1.New, enc(kmSecret) + "&", nil, kinds(basestring.EmptyTokenSecret)},
	{"consumer secret only", "HMAC-SHA1", sha1.New, enc(kmSecret), nil, kinds(basestring.ConsumerSecretOnly)},
	{"swapped secrets", "HMAC-SHA1", sha1.New, enc(kmTokenSecret) + "&" + enc(kmSecret), nil, kinds(basestring.SwappedSecrets)},
	{"secrets not encoded", "HMAC-SHA1", sha1.New, kmSecret + "&" + kmTokenSecret, nil, kinds(basestring.SecretNotEncoded)},
	{"secrets encoded twice", "HMAC-SHA1", sha1.New, enc(enc(kmSecret)) + "&" + enc(enc(kmTokenSecret)), nil, kinds(basestring.SecretEncodedTwice)},
	{"token secret with a newline", "HMAC-SHA1", sha1.New, enc(kmSecret) + "&" + enc(kmTokenSecret+"\n"), nil, kinds(basestring.SecretWhitespace)},
	{"consumer key as secret", "HMAC-SHA1", sha1.New, enc(kmKey) + "&" + enc(kmTokenSecret), nil, kinds(basestring.ConsumerKeyAsSecret)},
	{"token as secret", "HMAC-SHA1", sha1.New, enc(kmSecret) + "&" + enc(kmToken), nil, kinds(basestring.TokenAsSecret)},
	{"base64-encoded secret", "HMAC-SHA1", sha1.New, enc(base64.StdEncoding.EncodeToString([]byte(kmSecret))) + "&" + enc(kmTokenSecret), nil, kinds(basestring.Base64Secret)},
	{"SHA-512 digest as HMAC-SHA1", "HMAC-SHA1", sha512.New, enc(kmSecret) + "&" + enc(kmTokenSecret), nil, kinds(basestring.WrongHMACHash)},
	{"SHA-1 digest as HMAC-SHA256", "HMAC-SHA256", sha1.New, enc(kmSecret) + "&" + enc(kmTokenSecret), nil, kinds(basestring.WrongHMACHash)},
	{"another key", "HMAC-SHA1", sha1.New, "another&key", nil, kinds(basestring.KeyUnknown)},
	{"another key, hex", "HMAC-SHA1", sha1.New, "another&key", encHex, kinds(basestring.KeyUnknown)},
	// Two mistakes, and three.
	{"hex SHA-256 digest as HMAC-SHA1", "HMAC-SHA1", sha256.New, enc(kmSecret) + "&" + enc(kmTokenSecret), encHex, kinds(basestring.SignatureEncoding, basestring.WrongHMACHash)},
	{"empty token secret, hex", "HMAC-SHA1", sha1.New, enc(kmSecret) + "&", encHex, kinds(basestring.SignatureEncoding, basestring.EmptyTokenSecret)},
	{"swapped secrets with SHA-256", "HMAC-SHA1", sha256.New, enc(kmTokenSecret) + "&" + enc(kmSecret), nil, kinds(basestring.SwappedSecrets, basestring.WrongHMACHash)},
	{"empty token secret and a newline", "HMAC-SHA1", sha1.New, enc(kmSecret+"\n") + "&", nil, kinds(basestring.EmptyTokenSecret, basestring.SecretWhitespace)},
	{"consumer secret only with a newline", "HMAC-SHA256", sha256.New, enc(kmSecret + "\n"), nil, kinds(basestring.ConsumerSecretOnly, basestring.SecretWhitespace)},
	{"token as secret, SHA-512, encoded twice", "HMAC-SHA1", sha512.New, enc(kmSecret) + "&" + enc(kmToken), encTwice, kinds(basestring.SignatureEncoding, basestring.TokenAsSecret, basestring.WrongHMACHash)},
}

func kinds(k ...basestring.MistakeKind) []basestring.MistakeKind { return k }

func kindList(ks []basestring.MistakeKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// TestVerifyNamesEveryKeyMistake checks that verify names each key
// mistake, whatever the signature looks like (a length that is not the
// method's, hex, encoded twice), and each of two or three mistakes made at
// once, and prints no secret.
func TestVerifyNamesEveryKeyMistake(t *testing.T) {
	for _, tt := range kmCases {
		t.Run(tt.name, func(t *testing.T) {
			req, base := kmRequest("https", tt.method, tt.h, tt.key, tt.encode)
			r := runCmd(t, kmEnv, req, "verify", "--any-time", "--base-string", base)
			want := "\nKey check: " + kindList(tt.want) + "\n"
			if r.code != exitFailure || !strings.Contains(r.stdout, want) {
				t.Errorf("exit %d, want 1 and %q in:\n%s%s", r.code, want, r.stdout, r.stderr)
			}
			for _, secret := range []string{kmSecret, kmTokenSecret, enc(kmSecret), enc(kmTokenSecret)} {
				if strings.Contains(r.stdout+r.stderr, secret) {
					t.Errorf("the output holds a secret:\n%s%s", r.stdout, r.stderr)
				}
			}
		})
	}
}

// TestVerifyCapturedHTTP checks that verify takes the scheme of a request
// captured over http from the capture, says so, and names the key mistake
// in it; and that with no evidence it tries http when https explains
// nothing.
func TestVerifyCapturedHTTP(t *testing.T) {
	swapped := enc(kmTokenSecret) + "&" + enc(kmSecret)
	req, _ := kmRequest("http", "HMAC-SHA1", sha1.New, swapped, nil)
	withHeader := func(h string) string {
		return strings.Replace(req, "Host: api.example.com\n", "Host: api.example.com\n"+h+"\n", 1)
	}
	curl := "*   Trying 192.0.2.7:80...\n* Connected to api.example.com (192.0.2.7) port 80 (#0)\n> " +
		strings.ReplaceAll(strings.TrimSuffix(req, "\n\n"), "\n", "\n> ") + "\n>\n< HTTP/1.1 401 Unauthorized\n"
	tests := []struct {
		name, req, why string
	}{
		{"Host port 80", strings.Replace(req, "Host: api.example.com\n", "Host: api.example.com:80\n", 1), "Scheme: http, since the Host header names port 80"},
		{"X-Forwarded-Proto", withHeader("X-Forwarded-Proto: http"), "Scheme: http, since the X-Forwarded-Proto header says http"},
		{"Forwarded", withHeader(`Forwarded: for=192.0.2.1;proto="http", proto=https`), "Scheme: http, since the Forwarded header says proto=http"},
		{"curl -v", curl, "Scheme: http, since curl connected to port 80"},
		{"absolute-form request line", strings.Replace(req, "GET /1/me", "GET http://api.example.com/1/me", 1), ""},
		{"no evidence", req, "Scheme: http, since the request names no scheme, and with https no key mistake explains the signature, but with http one does"},
	}
	var runs strings.Builder
	for _, tt := range tests {
		r := runCmd(t, kmEnv, tt.req, "verify", "--any-time")
		for _, want := range []string{tt.why, "Base URI: http://api.example.com/1/me", "\nKey check: swapped-secrets\n"} {
			if r.code != exitFailure || !strings.Contains(r.stdout, want) {
				t.Errorf("%s: exit %d, want 1 and %q in:\n%s%s", tt.name, r.code, want, r.stdout, r.stderr)
			}
		}
		fmt.Fprintf(&runs, "# %s\n%s", tt.name, transcript(t, kmEnv, tt.req, []string{"verify", "--any-time"}))
	}
	golden(t, "verify-captured-http-key-mistake", runs.String())

	// Evidence of https wins over the http key check.
	r := runCmd(t, kmEnv, withHeader("X-Forwarded-Proto: https"), "verify", "--any-time")
	if !strings.Contains(r.stdout, "Scheme: https, since the X-Forwarded-Proto header says https") || !strings.Contains(r.stdout, "Base URI: https://") {
		t.Errorf("X-Forwarded-Proto: https: want https\n%s", r.stdout)
	}
}

// TestVerifyWithoutSecret checks that verify with no secret and no key file
// is a usage error, as main.go's exit statuses say: nothing can be checked.
func TestVerifyWithoutSecret(t *testing.T) {
	req, _ := kmRequest("https", "HMAC-SHA1", sha1.New, enc(kmSecret)+"&"+enc(kmTokenSecret), nil)
	r := runCmd(t, map[string]string{"OAUTH1_TOKEN_SECRET": kmTokenSecret}, req, "verify", "--any-time")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no key to verify with") || r.stdout != "" {
		t.Errorf("verify without a secret: exit %d, stdout %q, stderr %q; want exit %d and a usage error", r.code, r.stdout, r.stderr, exitUsage)
	}
	if r := runCmd(t, kmEnv, req, "verify", "--any-time"); r.code != exitOK {
		t.Errorf("verify with the secrets: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
