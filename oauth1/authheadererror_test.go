package oauth1_test

import (
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/percent"
)

// TestAuthHeaderErrorNameable: a caller outside the package names the error
// of a malformed header, from ParseAuthHeader and from the Verifier's
// refusal, and finds where parsing failed.
func TestAuthHeaderErrorNameable(t *testing.T) {
	// `OAuth a="b"x`: the value's closing quote is at offset 10, and the
	// "x" after it, at offset 11, is neither "," nor the end.
	_, err := oauth1.ParseAuthHeader(`OAuth a="b"x`)
	var he *oauth1.AuthHeaderError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 11, he.Offset)
	assert.NotEmpty(t, he.Reason)
	assert.Nil(t, he.Err)

	// A bad escape: the value starts at offset 8, and the error wraps the
	// *percent.EscapeError, whose offset is within the value.
	_, err = oauth1.ParseAuthHeader(`OAuth a="%zz"`)
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 8, he.Offset)
	var ee *percent.EscapeError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, percent.EscapeError{Offset: 0, Escape: "%zz"}, *ee)
	assert.Same(t, he.Err, error(ee))

	// The Verifier refuses the same header with a ProblemError that wraps it.
	v := &server.Verifier{Store: server.Consumers{"key": {Secret: "secret"}}}
	r := httptest.NewRequest("GET", "http://example.com/", nil)
	r.Header.Set("Authorization", `OAuth oauth_consumer_key="key"x`)
	_, err = v.Verify(r)
	var pe *server.ProblemError
	require.ErrorAs(t, err, &pe)
	require.ErrorAs(t, err, &he, "the ProblemError wraps the *oauth1.AuthHeaderError")
	assert.Equal(t, 30, he.Offset)
}

// TestAuthHeaderErrorDeclaredHere: the type is declared in package oauth1,
// not an alias of an internal one, so that go doc shows its fields and the
// API record holds them.
func TestAuthHeaderErrorDeclaredHere(t *testing.T) {
	typ := reflect.TypeFor[oauth1.AuthHeaderError]()
	assert.Equal(t, "github.com/countersign/countersign/oauth1", typ.PkgPath())
	assert.Equal(t, "AuthHeaderError", typ.Name())
}

// A malformed header's error quotes the name it stopped at, cut to 64
// bytes: a client's 8 KiB name does not make an 8 KiB log line.
func TestAuthHeaderErrorNameIsCut(t *testing.T) {
	name := "oauth_" + strings.Repeat("n", 8<<10) + "\r\n"
	_, err := oauth1.ParseAuthHeader("OAuth " + name + "x")
	if err == nil {
		t.Fatal("ParseAuthHeader accepted a name without a value")
	}
	want := `expected "=" after "oauth_` + strings.Repeat("n", 58) + `"...`
	if got := err.Error(); !strings.Contains(got, want) || len(got) > 200 {
		t.Errorf("Error() = %d bytes %.100q..., want it to contain %s", len(got), got, want)
	}
}
