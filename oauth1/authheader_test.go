package oauth1

import (
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/countersign/countersign/internal/vectors"
	"github.com/countersign/countersign/percent"
)

var xAuthorizing = vectors.MustLoad("x-update-1")

var parseAuthHeaderTests = []struct {
	in   string
	want []Param
}{
	// RFC 5849 §3.5.1, with the header's line folding joined by spaces.
	{
		`OAuth realm="Example",
        oauth_consumer_key="0685bd9184jfhq22",
        oauth_token="ad180jjd733klru7",
        oauth_signature_method="HMAC-SHA1",
        oauth_signature="wOJIO9A2W5mFwDgiDvZbTSMK%2FPY%3D",
        oauth_timestamp="137131200",
        oauth_nonce="4572616e48616d6d65724c61686176",
        oauth_version="1.0"`,
		[]Param{
			{"realm", "Example"},
			{"oauth_consumer_key", "0685bd9184jfhq22"},
			{"oauth_token", "ad180jjd733klru7"},
			{"oauth_signature_method", "HMAC-SHA1"},
			{"oauth_signature", "wOJIO9A2W5mFwDgiDvZbTSMK/PY="},
			{"oauth_timestamp", "137131200"},
			{"oauth_nonce", "4572616e48616d6d65724c61686176"},
			{"oauth_version", "1.0"},
		},
	},
	// The X API documentation's header ("Authorizing a request"), from
	// testdata/vectors/x-update-1.txt.
	{
		xAuthorizing.Get("authorization"),
		[]Param{
			{"oauth_consumer_key", xAuthorizing.Get("consumer-key")},
			{"oauth_nonce", xAuthorizing.Get("nonce")},
			{"oauth_signature", xAuthorizing.Get("signature")},
			{"oauth_signature_method", xAuthorizing.Get("signature-method")},
			{"oauth_timestamp", xAuthorizing.Get("timestamp")},
			{"oauth_token", xAuthorizing.Get("token")},
			{"oauth_version", xAuthorizing.Get("version")},
		},
	},
	{"OAuth", nil},
	{"  oauth   ", nil},
	{"OAUTH a=b", []Param{{"a", "b"}}},
	{"OAuth\ta = \"b\" ,c=d", []Param{{"a", "b"}, {"c", "d"}}},
	{"OAuth ,, a=\"\" , , b=x%20y+z,", []Param{{"a", ""}, {"b", "x y+z"}}},
	{`OAuth a="%e2%98%83"`, []Param{{"a", "☃"}}},
	{`OAuth realm="a \"q\" \\ %zz", b="1"`, []Param{{"realm", `a "q" \ %zz`}, {"b", "1"}}},
	{`OAuth a="x,y=z"`, []Param{{"a", "x,y=z"}}},
	{`OAuth a="1", a="2"`, []Param{{"a", "1"}, {"a", "2"}}}, // duplicates are the caller's business
}

func TestParseAuthHeader(t *testing.T) {
	for _, tt := range parseAuthHeaderTests {
		in := strings.ReplaceAll(tt.in, "\n", "")
		got, err := ParseAuthHeader(in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseAuthHeader(%q) = %q, %v, want %q", in, got, err, tt.want)
		}
	}
}

var parseAuthHeaderErrors = []struct {
	in     string
	offset int
}{
	{"", 0},
	{"Basic dXNlcjpwYXNz", 0},
	{"OAuthx a=b", 5},
	{"OAuth a", 7},
	{"OAuth a b", 8},
	{`OAuth a="b`, 8},
	{`OAuth a="b\`, 10},
	{`OAuth a="b" c="d"`, 12},
	{`OAuth a="b"x`, 11},
	{`OAuth ="b"`, 6},
	{`OAuth a=b;c=d`, 9},
	{`OAuth a="%zz"`, 8},
	{`OAuth a=%4`, 8},
	{"OAuth a=\"1\"\r\n b=\"2\"", 11},
}

func TestParseAuthHeaderErrors(t *testing.T) {
	for _, tt := range parseAuthHeaderErrors {
		got, err := ParseAuthHeader(tt.in)
		if err == nil {
			t.Errorf("ParseAuthHeader(%q) = %q, want an error", tt.in, got)
			continue
		}
		var he *AuthHeaderError
		if !errors.As(err, &he) || he.Offset != tt.offset || he.Reason == "" {
			t.Errorf("ParseAuthHeader(%q) error = %#v, want an *AuthHeaderError at offset %d with a reason", tt.in, err, tt.offset)
		}
		// The message names the offset and, after it, the problem.
		prefix := "oauth1: malformed Authorization header at offset " + strconv.Itoa(tt.offset) + ": "
		if msg := err.Error(); !strings.HasPrefix(msg, prefix) || len(msg) == len(prefix) {
			t.Errorf("ParseAuthHeader(%q) error = %q, want %q and the problem", tt.in, msg, prefix)
		}
	}
	_, err := ParseAuthHeader(`OAuth a="%zz"`)
	var ee *percent.EscapeError
	if !errors.As(err, &ee) || *ee != (percent.EscapeError{Offset: 0, Escape: "%zz"}) {
		t.Errorf("ParseAuthHeader(%q) = %v, want it to wrap the *percent.EscapeError", `OAuth a="%zz"`, err)
	}
}

// TestParseAuthHeaderSigner parses what this package's signer sends, with
// values chosen to need every kind of encoding.
func TestParseAuthHeaderSigner(t *testing.T) {
	c := &Config{
		ConsumerKey: "key with spaces+plus/slash", ConsumerSecret: "s",
		Realm: "Photos",
	}
	r, _ := http.NewRequest("GET", "https://example.com/x", nil)
	extra := Param{Name: "oauth_callback", Value: "https://client.example/cb?a=1&b=☃"}
	if err := c.SignAt(r, &Credentials{Token: `tok"en,=`, Secret: "t"}, time.Unix(1700000000, 0), "n0nce~._-", extra); err != nil {
		t.Fatal(err)
	}
	got, err := ParseAuthHeader(r.Header.Get("Authorization"))
	if err != nil {
		t.Fatalf("ParseAuthHeader(%q): %v", r.Header.Get("Authorization"), err)
	}
	want := map[string]string{
		"realm":                  "Photos",
		"oauth_callback":         extra.Value,
		"oauth_consumer_key":     "key with spaces+plus/slash",
		"oauth_nonce":            "n0nce~._-",
		"oauth_signature_method": "HMAC-SHA1",
		"oauth_timestamp":        "1700000000",
		"oauth_token":            `tok"en,=`,
		"oauth_version":          "1.0",
	}
	for _, p := range got {
		if p.Name == "oauth_signature" {
			continue
		}
		if w, ok := want[p.Name]; !ok || w != p.Value {
			t.Errorf("parsed %s=%q, want %q", p.Name, p.Value, w)
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("parameters missing from the parse: %v", want)
	}
}

func FuzzParseAuthHeader(f *testing.F) {
	for _, tt := range parseAuthHeaderTests {
		f.Add(tt.in)
	}
	for _, tt := range parseAuthHeaderErrors {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := ParseAuthHeader(in)
		if err != nil {
			var he *AuthHeaderError
			if !errors.As(err, &he) || he.Offset < 0 || he.Offset > len(in) {
				t.Fatalf("ParseAuthHeader(%q) error = %#v", in, err)
			}
			return
		}
		// Rendering the result the way the signer does must parse back to it.
		var b strings.Builder
		b.WriteString("OAuth ")
		for i, p := range ps {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(percent.Encode(p.Name)) // the signer encodes names too (§3.5.1)
			b.WriteString(`="`)
			if p.Name == "realm" {
				b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p.Value))
			} else {
				b.WriteString(percent.Encode(p.Value))
			}
			b.WriteString(`"`)
		}
		again, err := ParseAuthHeader(b.String())
		if err != nil || !reflect.DeepEqual(again, ps) {
			t.Fatalf("ParseAuthHeader(%q) = %q; re-rendered as %q it parses to %q, %v", in, ps, b.String(), again, err)
		}
	})
}
