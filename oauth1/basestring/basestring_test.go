package basestring_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/percent"
)

// The X API documentation's example ("Creating a signature"), from
// testdata/vectors/x-update-1.1.txt; xBase is its published signature
// base string.
var (
	xVector = vectors.MustLoad("x-update-1.1")
	xBase   = xVector.Get("base-string")
)

// TestXBaseIsPublished checks the vector's base string against its
// published signing key and signature, with crypto/hmac, so that the tests
// below start from a correct base string.
func TestXBaseIsPublished(t *testing.T) {
	mac := hmac.New(sha1.New, []byte(xVector.Get("signing-key")))
	mac.Write([]byte(xBase))
	if got, want := base64.StdEncoding.EncodeToString(mac.Sum(nil)), xVector.Get("signature"); got != want || want == "" {
		t.Fatalf("HMAC-SHA1(xBase) = %s, want %s", got, want)
	}
}

func TestParse(t *testing.T) {
	b, err := basestring.Parse(xBase)
	if err != nil {
		t.Fatal(err)
	}
	uri, query, _ := strings.Cut(xVector.Get("url"), "?")
	if b.Method != xVector.Get("method") || b.URI != uri {
		t.Errorf("Parse: method %q, URI %q", b.Method, b.URI)
	}
	qname, qvalue, _ := strings.Cut(query, "=")
	rawStatus, ok := strings.CutPrefix(xVector.Get("body"), "status=")
	if !ok {
		t.Fatalf("body %q is not status=...", xVector.Get("body"))
	}
	status, err := url.PathUnescape(rawStatus)
	if err != nil {
		t.Fatal(err)
	}
	want := []basestring.Param{
		{Name: qname, Value: qvalue},
		{Name: "oauth_consumer_key", Value: xVector.Get("consumer-key")},
		{Name: "oauth_nonce", Value: xVector.Get("nonce")},
		{Name: "oauth_signature_method", Value: xVector.Get("signature-method")},
		{Name: "oauth_timestamp", Value: xVector.Get("timestamp")},
		{Name: "oauth_token", Value: xVector.Get("token")},
		{Name: "oauth_version", Value: xVector.Get("version")},
		{Name: "status", Value: status, RawValue: rawStatus},
	}
	if len(b.Params) != len(want) {
		t.Fatalf("Parse: %d params, want %d", len(b.Params), len(want))
	}
	for i, w := range want {
		g := b.Params[i]
		if w.RawValue == "" {
			w.RawValue = w.Value
		}
		if g.Name != w.Name || g.Value != w.Value || g.RawName != w.Name || g.RawValue != w.RawValue {
			t.Errorf("Params[%d] = %+v, want %+v", i, g, w)
		}
		if !strings.HasPrefix(xBase[g.Offset:], g.RawName+"%3D") {
			t.Errorf("Params[%d].Offset = %d points at %.20q", i, g.Offset, xBase[g.Offset:])
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		escape bool // the error wraps a *percent.EscapeError
	}{
		{"POST", 4, false},
		{"POST&https%3A%2F%2Fa.example%2F", 31, false},
		{"POST&https%3A%2F%2Fa.example%2F&a%3D1&b%3D2", 37, false},
		{"&https%3A%2F%2Fa.example%2F&a%3D1", 0, false},
		{"POST&a.example&a%3D1", 5, false},
		{"P%ZT&https%3A%2F%2Fa.example&a%3D1", 1, true},
		{"POST&https%3A%2F%2Fa.example%2&a%3D1", 28, true},
		{"POST&https%3A%2F%2Fa.example&a%3D1%26b%3", 38, true},
		// The bad escape is in the second layer: "%2G" in the value of b.
		{"POST&https%3A%2F%2Fa.example&a%3D1%26b%3Dx%252G", 42, true},
		{"POST&https%3A%2F%2Fa.example&a%3D1%26b", 37, false},
		{"POST&https%3A%2F%2Fa.example&a%3D1%26%26b%3D2", 37, false},
	}
	for _, tt := range tests {
		_, err := basestring.Parse(tt.in)
		var se *basestring.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tt.in, err)
			continue
		}
		if se.Offset != tt.offset {
			t.Errorf("Parse(%q) error %q at offset %d, want %d", tt.in, err, se.Offset, tt.offset)
		}
		var ee *percent.EscapeError
		if errors.As(err, &ee) != tt.escape {
			t.Errorf("Parse(%q) error %q: wraps *percent.EscapeError = %v, want %v", tt.in, err, !tt.escape, tt.escape)
		}
		if !strings.HasPrefix(err.Error(), "basestring: ") {
			t.Errorf("Parse(%q) error %q lacks the package prefix", tt.in, err)
		}
	}
}

// mistake returns xBase with old replaced by new, failing if old is absent.
func mistake(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(xBase, old) {
		t.Fatalf("xBase does not contain %q", old)
	}
	return strings.Replace(xBase, old, new, 1)
}

// unencoded removes the second layer of encoding from a parameter string.
func unencoded(t *testing.T, ps string) string {
	t.Helper()
	d, err := percent.Decode(ps)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDiff(t *testing.T) {
	const status = "status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
	tests := []struct {
		name      string
		old, new  string // the mistake applied to xBase to make got
		kind      basestring.Kind
		param     string
		causeHint string // a phrase the cause must contain
	}{
		{"lowercase method", "POST&", "post&", basestring.MethodCase, "", "uppercase"},
		{"other method", "POST&", "GET&", basestring.MethodDiffers, "", "redirected"},
		{"uppercase host", "api.twitter.com", "API.twitter.com", basestring.SchemeHostCase, "", "lowercase"},
		{"uppercase scheme", "https%3A", "HTTPS%3A", basestring.SchemeHostCase, "", "lowercase"},
		{"default port", "api.twitter.com%2F", "api.twitter.com%3A443%2F", basestring.DefaultPort, "", "default port"},
		{"decoded-then-reencoded path", "update.json", "update%252Ejson", basestring.PathEncoding, "", "path"},
		{"query in URI", "update.json&", "update.json%3Finclude_entities%3Dtrue&", basestring.QueryInURI, "", "query"},
		{"scheme", "https%3A", "http%3A", basestring.URIDiffers, "", "TLS"},
		{"path", "1.1%2F", "2%2F", basestring.URIDiffers, "", "path"},
		{"form body not signed", "%26" + status, "", basestring.MissingParam, "status", "application/x-www-form-urlencoded"},
		{"oauth_version omitted", "%26oauth_version%3D1.0", "", basestring.MissingParam, "oauth_version", "OmitVersion"},
		{"extra parameter", "%26status", "%26source%3Dcli%26status", basestring.ExtraParam, "source", "Content-Type"},
		{"another nonce", "kYjzVBB8Y0", "AAAAAAAAAA", basestring.ValueDiffers, "oauth_nonce", "the same oauth_nonce and oauth_timestamp"},
		{"another value", "include_entities%3Dtrue", "include_entities%3Dfalse", basestring.ValueDiffers, "include_entities", "changed"},
		{"double-encoded value", "Gentlemen%252C", "Gentlemen%25252C", basestring.DoubleEncoded, "status", `want has "%2C", got "%252C"`},
		{"double-encoded spaces", "Hello%2520", "Hello%252520", basestring.DoubleEncoded, "status", "twice"},
		{"plus for space (QueryEscape)", status,
			"status%3DHello%2BLadies%2B%252B%2BGentlemen%252C%2Ba%2Bsigned%2BOAuth%2Brequest%2521",
			basestring.PlusForSpace, "status", "QueryEscape"},
		{"literal plus not decoded", "status%3DHello%2520", "status%3DHello%252B", basestring.PlusForSpace, "status", "decode it"},
		{"sort order", "include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog",
			"oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26include_entities%3Dtrue",
			basestring.SortOrder, "", "byte-wise"},
		{"realm signed", "%26status", "%26realm%3DPhotos%26status", basestring.RealmIncluded, "realm", "never signed"},
		{"oauth_signature signed", "%26oauth_signature_method", "%26oauth_signature%3DhCtSmYh%252BiHYCEqBWrE7C7hYmtUk%253D%26oauth_signature_method",
			basestring.SignatureIncluded, "oauth_signature", "never signed"},
		{"lowercase hex in a value", "Gentlemen%252C", "Gentlemen%252c", basestring.LowercaseHex, "status", `want has "%2C", got "%2c"`},
		{"unencoded character", "request%2521", "request%21", basestring.Unencoded, "status", "unencoded"},
		{"over-encoded character", "oauth_version%3D1.0", "oauth_version%3D1%252E0", basestring.OverEncoded, "oauth_version", "must not be encoded"},
		{"lowercase hex in the base string", "https%3A%2F%2F", "https%3a%2f%2f", basestring.LowercaseHex, "", "base string itself"},
		{"unencoded parameter string", xBase[strings.LastIndex(xBase, "&")+1:], unencoded(t, xBase[strings.LastIndex(xBase, "&")+1:]),
			basestring.Syntax, "", "did not encode the whole string again"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mistake(t, tt.old, tt.new)
			ds := basestring.Diff(xBase, got)
			if len(ds) == 0 {
				t.Fatalf("Diff(xBase, %q) = no differences", got)
			}
			found := false
			for _, d := range ds {
				if d.Kind == tt.kind && (tt.param == "" || d.Name == tt.param) {
					found = true
					if !strings.Contains(d.Cause, tt.causeHint) {
						t.Errorf("%v cause %q does not mention %q", d.Kind, d.Cause, tt.causeHint)
					}
				}
			}
			if !found {
				t.Errorf("Diff(xBase, got) = %s\nwant a %v difference for %q", basestring.Format(ds), tt.kind, tt.param)
			}
			if len(ds) > 1 && tt.kind != basestring.MissingParam && tt.kind != basestring.ExtraParam {
				t.Errorf("Diff(xBase, got): %d differences for one mistake:\n%s", len(ds), basestring.Format(ds))
			}
			if f := basestring.Format(ds); !strings.HasPrefix(f, "signature base strings differ (-want +got):\n") {
				t.Errorf("Format = %q", f)
			}
		})
	}
}

func TestDiffEqual(t *testing.T) {
	if ds := basestring.Diff(xBase, xBase); ds != nil {
		t.Errorf("Diff(xBase, xBase) = %v, want nil", ds)
	}
	if f := basestring.Format(nil); f != "" {
		t.Errorf("Format(nil) = %q, want empty", f)
	}
}

func TestFormat(t *testing.T) {
	got := mistake(t, "%26status%3D", "%26status%3D%3D")
	ds := basestring.Diff(xBase, strings.Replace(got, "POST", "post", 1))
	want := `signature base strings differ (-want +got):
method case: the method must be uppercase in the base string (RFC 5849 §3.4.1.1)
  - POST
  + post
value differs status: the client signed another value than the provider received (want has "", got "="); was the request changed after signing?
  - status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21
  + status==Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21
`
	if f := basestring.Format(ds); f != want {
		t.Errorf("Format(Diff) =\n%s\nwant\n%s", f, want)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(xBase)
	f.Add("GET&http%3A%2F%2Fa.example%2F&")
	f.Add("POST&https%3A%2F%2Fa.example&a%3D1%26b%3Dx%252G")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := basestring.Parse(s)
		if err != nil {
			var se *basestring.SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("Parse(%q) error %v: not a *SyntaxError with an offset in range", s, err)
			}
			return
		}
		for _, p := range b.Params {
			if p.Offset < 0 || p.Offset > len(s) {
				t.Fatalf("Parse(%q): param offset %d out of range", s, p.Offset)
			}
		}
		if ds := basestring.Diff(s, s); ds != nil {
			t.Fatalf("Diff(s, s) = %v", ds)
		}
	})
}

func FuzzDiff(f *testing.F) {
	f.Add(xBase, strings.Replace(xBase, "POST", "post", 1))
	f.Add(xBase, strings.Replace(xBase, "%2520", "%252520", 1))
	f.Add("GET&http%3A%2F%2Fa.example%3A80%2F&a%3D1%26a%3D2", "GET&http%3A%2F%2Fa.example%2F&a%3D2%26a%3D1")
	f.Fuzz(func(t *testing.T, want, got string) {
		ds := basestring.Diff(want, got)
		if (len(ds) == 0) != (want == got) {
			t.Fatalf("Diff(%q, %q) = %v", want, got, ds)
		}
		_ = basestring.Format(ds)
	})
}

// BenchmarkDiffLarge diffs two base strings of 5,000 parameters that share
// none: Diff must stay near linear in the number of parameters.
func BenchmarkDiffLarge(b *testing.B) {
	var w, g []string
	for i := range 5000 {
		w = append(w, "n"+strconv.Itoa(i)+"%3D"+strconv.Itoa(i))
		g = append(g, "m"+strconv.Itoa(i)+"%3D"+strconv.Itoa(i))
	}
	want := "GET&http%3A%2F%2Fa.example%2F&" + strings.Join(w, "%26")
	got := "GET&http%3A%2F%2Fa.example%2F&" + strings.Join(g, "%26")
	b.ReportAllocs()
	for b.Loop() {
		basestring.Diff(want, got)
	}
}
