package oauth1_test

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
)

const (
	rConsumerSecret = "consumer-S3CRET"
	rTokenSecret    = "token-S3CRET"
	rCode           = "code-S3CRET" // a verification code
)

func redactRSAKey(t *testing.T) *rsa.PrivateKey {
	b, err := os.ReadFile("../testdata/keys/rsa2048-pkcs1.pem")
	require.NoError(t, err)
	blk, _ := pem.Decode(b)
	require.NotNil(t, blk)
	k, err := x509.ParsePKCS1PrivateKey(blk.Bytes)
	require.NoError(t, err)
	return k
}

// forbidden returns the texts that no output may hold: the secrets and the
// verification code as they are and in hex, and the leading digits of the
// private key's D and primes in the bases fmt writes integers in.
func forbidden(k *rsa.PrivateKey) []string {
	var out []string
	for _, s := range []string{rConsumerSecret, rTokenSecret, rCode} {
		out = append(out, s, hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))))
	}
	for _, n := range append([]*big.Int{k.D}, k.Primes...) {
		for _, base := range []int{10, 16, 8, 2} {
			out = append(out, n.Text(base)[:24])
		}
		out = append(out, strings.ToUpper(n.Text(16)[:24]))
	}
	return out
}

// fmtDirectives returns every verb letter with flags and widths, except
// %p and %w: fmt prints an operand they do not fit (a non-pointer, a
// non-error) through its bad-verb path, which walks the fields without
// calling any method, so no type can redact itself there. go vet's printf
// check reports both misuses.
func fmtDirectives() []string {
	var ds []string
	for _, r := range "abcdefghijklmnoqrstuvxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" {
		for _, flags := range []string{"", "+", "#", "-", " ", "0", "+#", "-40", "40", ".3", "#80", "08.2"} {
			ds = append(ds, "%"+flags+string(r))
		}
	}
	return ds
}

// secretHolders returns one value of each type that holds a secret, the
// secret set and every other field too.
func secretHolders(t *testing.T) map[string]any {
	key := redactRSAKey(t)
	cons := oauth1.Credentials{Token: "ck", Secret: rConsumerSecret}
	return map[string]any{
		"Credentials": oauth1.Credentials{Token: "tk", Secret: rTokenSecret},
		"Config": oauth1.Config{ConsumerKey: cons.Token, ConsumerSecret: cons.Secret, Signer: oauth1.RSA{Key: key, Hash: crypto.SHA256}, Realm: "r",
			HTTPClient: http.DefaultClient,
			Endpoint:   oauth1.Endpoint{RequestTokenURL: "https://user:" + rConsumerSecret + "@example.com/rt"},
			Params:     []oauth1.Param{{Name: "xoauth_a", Value: "b"}}},
		"Config HMAC":  oauth1.Config{ConsumerKey: cons.Token, ConsumerSecret: cons.Secret},
		"RSA":          oauth1.RSA{Key: key},
		"Registration": server.Registration{Secret: rConsumerSecret, PublicKey: &key.PublicKey},
		"TemporaryCredentials": server.TemporaryCredentials{Token: "tt", Secret: rTokenSecret, ConsumerKey: "ck",
			Callback: "https://client.example/cb", Expires: time.Unix(1e9, 0), User: "jane", VerificationCode: rCode},
		"TokenCredentials": server.TokenCredentials{Token: "tk", Secret: rTokenSecret, ConsumerKey: "ck", User: "jane"},
	}
}

// pointerTo returns a pointer to a copy of v.
func pointerTo(v any) any {
	p := reflect.New(reflect.TypeOf(v))
	p.Elem().Set(reflect.ValueOf(v))
	return p.Interface()
}

// Every type that holds a secret prints it as REDACTED under every fmt verb,
// flag and width, by value, by pointer and inside exported fields, slices
// and maps, and logs it redacted with slog's text and JSON handlers.
func TestRedaction(t *testing.T) {
	bad := forbidden(redactRSAKey(t))
	check := func(t *testing.T, what, got string) {
		t.Helper()
		for _, f := range bad {
			if strings.Contains(got, f) {
				t.Errorf("%s = %q: holds %q", what, got, f)
				return
			}
		}
	}
	holders := secretHolders(t)
	for name, v := range holders {
		t.Run(name, func(t *testing.T) {
			if !strings.Contains(fmt.Sprint(v), "REDACTED") && name != "RSA" { // an RSA names its key by size
				t.Errorf("Sprint = %q, which says nothing is redacted", fmt.Sprint(v))
			}
			p := pointerTo(v)
			forms := map[string]any{
				"value":  v,
				"ptr":    p,
				"struct": struct{ X any }{v},
				"slice":  []any{v, p},
				"map":    map[string]any{"k": v},
			}
			for form, x := range forms {
				for _, d := range fmtDirectives() {
					check(t, fmt.Sprintf("Sprintf(%q, %s)", d, form), fmt.Sprintf(d, x))
				}
			}
			for _, h := range []struct {
				name string
				new  func(*bytes.Buffer) slog.Handler
			}{
				{"text", func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) }},
				{"json", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
			} {
				var buf bytes.Buffer
				slog.New(h.new(&buf)).Info("msg", "v", v, "p", p, slog.Group("g", "v", v, "p", p))
				check(t, "slog "+h.name+" handler", buf.String())
				if !strings.Contains(buf.String(), "REDACTED") && name != "RSA" {
					t.Errorf("slog %s handler wrote %s, which says nothing is redacted", h.name, buf.String())
				}
			}
		})
	}

	// A Transport holds only pointers, which print redacted; an http.Client
	// from Config.Client holds a Transport.
	cfg := holders["Config"].(oauth1.Config)
	tok := holders["Credentials"].(oauth1.Credentials)
	tr := &oauth1.Transport{Config: &cfg, Token: &tok}
	for name, x := range map[string]any{"*Transport": tr, "Transport": *tr, "http.Client": cfg.Client(&tok)} {
		for _, d := range fmtDirectives() {
			check(t, fmt.Sprintf("Sprintf(%q, %s)", d, name), fmt.Sprintf(d, x))
		}
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("msg", "v", x)
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("msg", "v", x)
		check(t, "slog of "+name, buf.String())
	}
}

// The redacted forms say what there is.
func TestRedactedText(t *testing.T) {
	tok := oauth1.Credentials{Token: "tk", Secret: rTokenSecret}
	for d, want := range map[string]string{
		"%v":   "{Token:tk Secret:REDACTED}",
		"%+v":  "{Token:tk Secret:REDACTED}",
		"%s":   "{Token:tk Secret:REDACTED}",
		"%#v":  `oauth1.Credentials{Token:"tk", Secret:REDACTED}`,
		"%q":   strconv.Quote("{Token:tk Secret:REDACTED}"),
		"%30v": "    {Token:tk Secret:REDACTED}",
		"%-4s": "{Token:tk Secret:REDACTED}",
		"%d":   "%!d(oauth1.Credentials={Token:tk Secret:REDACTED})",
		"%x":   hex.EncodeToString([]byte("{Token:tk Secret:REDACTED}")),
	} {
		assert.Equal(t, want, fmt.Sprintf(d, tok), "Sprintf(%q, tok)", d)
	}
	assert.Equal(t, `{Token:tk Secret:""}`, fmt.Sprint(oauth1.Credentials{Token: "tk"}), "an empty secret")
	var nilTok *oauth1.Credentials
	assert.Equal(t, "<nil>", fmt.Sprint(nilTok))
	holders := secretHolders(t)
	assert.Equal(t, "{Key:RSA-2048 Hash:SHA-1}", fmt.Sprint(holders["RSA"]), "the zero Hash is SHA-1's (RSA-SHA1)")
	rsaKey := holders["RSA"].(oauth1.RSA).Key
	for _, tt := range []struct {
		s            oauth1.RSA
		text, goText string
	}{
		{oauth1.RSA{Key: rsaKey}, "{Key:RSA-2048 Hash:SHA-1}", "oauth1.RSA{Key:RSA-2048, Hash:crypto.SHA1}"},
		{oauth1.RSA{Key: rsaKey, Hash: crypto.SHA256}, "{Key:RSA-2048 Hash:SHA-256}", "oauth1.RSA{Key:RSA-2048, Hash:crypto.SHA256}"},
		{oauth1.RSA{Hash: crypto.SHA512}, "{Key:nil Hash:SHA-512}", "oauth1.RSA{Key:nil, Hash:crypto.SHA512}"},
		{oauth1.RSA{Hash: crypto.Hash(99)}, "{Key:nil Hash:crypto.Hash(99)}", "oauth1.RSA{Key:nil, Hash:crypto.Hash(99)}"},
	} {
		assert.Equal(t, tt.text, fmt.Sprint(tt.s))
		assert.Equal(t, tt.goText, fmt.Sprintf("%#v", tt.s))
		assert.Equal(t, "{ConsumerKey:ck ConsumerSecret:\"\" Signer:"+tt.text, fmt.Sprint(oauth1.Config{ConsumerKey: "ck", Signer: tt.s})[:len("{ConsumerKey:ck ConsumerSecret:\"\" Signer:")+len(tt.text)])
	}
	assert.Equal(t, "{Secret:REDACTED PublicKey:RSA-2048}", fmt.Sprint(holders["Registration"]))
	assert.Contains(t, fmt.Sprint(holders["TemporaryCredentials"]), "VerificationCode:REDACTED}")
}

// JSON is the faithful serialization of Credentials and Config: what
// json.Marshal writes, json.Unmarshal reads back the same, secrets
// included. Config leaves out its Signer, HTTPClient, Now and Nonce.
func TestJSONRoundTrip(t *testing.T) {
	tok := oauth1.Credentials{Token: "tk", Secret: rTokenSecret}
	b, err := json.Marshal(tok)
	require.NoError(t, err)
	assert.JSONEq(t, `{"Token":"tk","Secret":"`+rTokenSecret+`"}`, string(b))
	var backTok oauth1.Credentials
	require.NoError(t, json.Unmarshal(b, &backTok))
	assert.Equal(t, tok, backTok)

	cfg := oauth1.Config{
		ConsumerKey: "ck", ConsumerSecret: rConsumerSecret,
		Realm:                  "1234567_SB1",
		Delivery:               oauth1.FormBody,
		OmitVersion:            true,
		SendEmptyRealm:         true,
		SendEmptyToken:         true,
		BodyHash:               crypto.SHA256,
		AllowInsecurePlaintext: true,
		MaxBodyBytes:           1 << 10,
		Endpoint: oauth1.Endpoint{RequestTokenURL: "https://p.example/rt", AuthorizeURL: "https://p.example/a",
			AccessTokenURL: "https://p.example/at", TokenMethod: "GET"},
		Callback: "https://client.example/cb",
		Params:   []oauth1.Param{{Name: "xoauth_requestor_id", Value: "jane"}},
	}
	// Every field that JSON carries is set, so that a new one is tested too.
	skipped := map[string]bool{"Signer": true, "HTTPClient": true, "Now": true, "Nonce": true}
	rv := reflect.ValueOf(cfg)
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		if skip := f.Tag.Get("json") == "-"; skip != skipped[f.Name] {
			t.Errorf("Config.%s: json tag %q", f.Name, f.Tag.Get("json"))
		} else if !skip && rv.Field(i).IsZero() {
			t.Errorf("Config.%s is not set in this test", f.Name)
		}
	}
	b, err = json.Marshal(cfg)
	require.NoError(t, err)
	assert.Contains(t, string(b), rConsumerSecret)
	var back oauth1.Config
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cfg, back)

	// An RSA is written without its key.
	b, err = json.Marshal(oauth1.RSA{Key: redactRSAKey(t), Hash: crypto.SHA256})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Hash":5}`, string(b))

	// What is left out is left out, a key first of all.
	withCode := cfg
	withCode.Signer = oauth1.RSA{Key: redactRSAKey(t)}
	withCode.HTTPClient = http.DefaultClient
	withCode.Now = time.Now
	withCode.Nonce = func() string { return "n" }
	b, err = json.Marshal(withCode)
	require.NoError(t, err)
	for _, f := range forbidden(redactRSAKey(t)) {
		if f != rConsumerSecret && f != hex.EncodeToString([]byte(rConsumerSecret)) && f != strings.ToUpper(hex.EncodeToString([]byte(rConsumerSecret))) {
			assert.NotContains(t, string(b), f)
		}
	}
	back = oauth1.Config{}
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cfg, back)
}

// A printed Config shows HMAC's ConsumerSecretOnly, which changes the key
// and is no secret, under fmt and slog.
func TestRedactedConsumerSecretOnly(t *testing.T) {
	for _, s := range []oauth1.Signer{
		oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true},
		&oauth1.HMAC{Hash: crypto.SHA256, ConsumerSecretOnly: true},
	} {
		cfg := oauth1.Config{ConsumerKey: "ck", ConsumerSecret: rConsumerSecret, Signer: s}
		for _, d := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(d, cfg)
			assert.Contains(t, out, "Signer:HMAC-SHA256(ConsumerSecretOnly)", "Sprintf(%q, cfg) with %T", d, s)
			assert.NotContains(t, out, rConsumerSecret)
		}
		var buf bytes.Buffer
		slog.New(slog.NewTextHandler(&buf, nil)).Info("msg", "cfg", cfg)
		assert.Contains(t, buf.String(), "cfg.Signer=HMAC-SHA256(ConsumerSecretOnly)")
	}
	plain := oauth1.Config{Signer: oauth1.HMAC{Hash: crypto.SHA256}}
	assert.Contains(t, fmt.Sprint(plain), "Signer:HMAC-SHA256 ", "without the quirk, the method alone")
	var nilHMAC *oauth1.HMAC
	assert.Contains(t, fmt.Sprint(oauth1.Config{Signer: nilHMAC}), "Signer:*oauth1.HMAC ", "a nil *HMAC does not panic")
}

// The provider's records (Registration, TemporaryCredentials,
// TokenCredentials) hold no secret when they are printed or logged inside
// a container: slog's JSON handler encodes a slice, map or struct with
// encoding/json and does not call LogValue on what it holds, and its text
// handler formats one with fmt. So neither slog handler, fmt under %v, %+v,
// %#v, %s or %q, nor encoding/json writes their secrets, in slices, maps,
// pointers and nested structs.
func TestRedactionInContainers(t *testing.T) {
	bad := forbidden(redactRSAKey(t))
	holders := secretHolders(t)
	type nested struct {
		Name  string
		Inner struct{ Records []any }
		Ptr   any
	}
	for _, name := range []string{"Registration", "TemporaryCredentials", "TokenCredentials"} {
		v := holders[name]
		p := pointerTo(v)
		slice := reflect.Append(reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(v)), 0, 2), reflect.ValueOf(v), reflect.ValueOf(v)).Interface()
		ptrs := reflect.Append(reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(p)), 0, 1), reflect.ValueOf(p)).Interface()
		m := reflect.MakeMap(reflect.MapOf(reflect.TypeOf(""), reflect.TypeOf(v)))
		m.SetMapIndex(reflect.ValueOf("tt"), reflect.ValueOf(v))
		var n nested
		n.Name, n.Inner.Records, n.Ptr = "n", []any{v, p}, &slice
		containers := map[string]any{
			"slice": slice, "slice of pointers": ptrs, "map": m.Interface(),
			"map of slices": map[string]any{"k": slice}, "nested struct": n, "pointer to nested struct": &n,
		}
		for cname, x := range containers {
			what := name + " in a " + cname
			var outs []string
			for _, h := range []func(*bytes.Buffer) slog.Handler{
				func(b *bytes.Buffer) slog.Handler { return slog.NewTextHandler(b, nil) },
				func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) },
			} {
				var buf bytes.Buffer
				slog.New(h(&buf)).Info("msg", "x", x, slog.Group("g", "x", x))
				outs = append(outs, buf.String())
			}
			for _, d := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
				outs = append(outs, fmt.Sprintf(d, x))
			}
			b, err := json.Marshal(x)
			require.NoError(t, err, what)
			outs = append(outs, string(b))
			for _, out := range outs {
				for _, f := range bad {
					if strings.Contains(out, f) {
						t.Errorf("%s: %.300s holds %q", what, out, f)
					}
				}
			}
			// The rest of the record is still there.
			kept := `"ConsumerKey":"ck"`
			if name == "Registration" {
				kept = `"PublicKey":{"N":`
			}
			if !strings.Contains(outs[1], kept) {
				t.Errorf("%s: slog's JSON handler lost %s: %.200s", what, kept, outs[1])
			}
		}
	}
}

// A field that holds CR/LF or an escape, such as a token a hostile
// provider sent, prints quoted under fmt's %v and %s, on one line.
func TestRedactedFieldsAreOneLine(t *testing.T) {
	const hostile = "tk\r\nlevel=ERROR msg=forged\x1b[2K"
	for _, v := range []any{
		oauth1.Credentials{Token: hostile, Secret: rTokenSecret},
		oauth1.Config{ConsumerKey: hostile, ConsumerSecret: rConsumerSecret, Realm: hostile},
		server.TemporaryCredentials{Token: hostile, ConsumerKey: hostile, Callback: hostile, User: hostile},
		server.TokenCredentials{Token: hostile, ConsumerKey: hostile, User: hostile},
		server.Registration{Secret: rConsumerSecret, CallbackSchemes: []string{hostile}},
	} {
		for _, d := range []string{"%v", "%+v", "%s", "%#v"} {
			got := fmt.Sprintf(d, v)
			if strings.ContainsAny(got, "\r\n\x1b") {
				t.Errorf("Sprintf(%q, %T) = %q, want one line without control characters", d, v, got)
			}
			if !strings.Contains(got, `"tk\r\nlevel=ERROR msg=forged\x1b[2K"`) {
				t.Errorf("Sprintf(%q, %T) = %q, want the field quoted", d, v, got)
			}
		}
	}
}
