package params

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/percent"
)

// runOf returns the run of adds, whose names are unreserved and begin with
// "oauth_", sorted as a Set sorts them.
func runOf(adds [][2]string) []byte {
	type enc struct{ name, value []byte }
	es := make([]enc, len(adds))
	for i, a := range adds {
		es[i].name, _ = AppendTwice(nil, a[0])
		es[i].value, _ = AppendTwice(nil, a[1])
	}
	slices.SortFunc(es, func(a, b enc) int {
		if c := strings.Compare(string(a.name), string(b.name)); c != 0 {
			return c
		}
		return strings.Compare(string(a.value), string(b.value))
	})
	var run []byte
	for _, e := range es {
		run = append(append(append(append(run, e.name...), sepEq...), e.value...), sepAmp...)
	}
	return run
}

func TestRunRFC5849Example(t *testing.T) {
	// The example of §3.4.1.1, its protocol parameters as a run.
	adds := [][2]string{
		{"oauth_consumer_key", "9djdj82h48djs9d2"}, {"oauth_token", "kkk9d7dh3k39sjv7"},
		{"oauth_signature_method", "HMAC-SHA1"}, {"oauth_timestamp", "137131201"},
		{"oauth_nonce", "7d8f3e4a"},
	}
	forms := []string{"b5=%3D%253D&a3=a&c%40=&a2=r%20b", "c2&a3=2+q"}
	var s Set
	want, err := build(&s, "POST", "http://example.com/request", forms, adds)
	require.NoError(t, err)
	s.Reset()
	for _, f := range forms {
		require.NoError(t, s.AddForm(f))
	}
	got, ok := s.AppendBaseStringRun(nil, "POST", []byte("http%3A%2F%2Fexample.com%2Frequest"), runOf(adds))
	require.True(t, ok)
	assert.Equal(t, want, string(got))

	run, plain := AppendRunPair(nil, "oauth_token", "a b")
	assert.False(t, plain)
	assert.Equal(t, "oauth_token%3Da%2520b%26", string(run))
}

func TestRunRefusesInterleaving(t *testing.T) {
	var s Set
	require.NoError(t, s.AddForm("a=1&oauth_callback=x&z=2"))
	dst, ok := s.AppendBaseStringRun([]byte("kept"), "GET", []byte("u"), runOf([][2]string{{"oauth_nonce", "n"}}))
	assert.False(t, ok)
	assert.Equal(t, "kept", string(dst))
}

// FuzzRunMatchesAdd checks AppendBaseStringRun, protocol parameters merged
// as a run, against the same parameters added to the Set one by one.
func FuzzRunMatchesAdd(f *testing.F) {
	f.Add("POST", "https://h/p", "b5=%3D%253D&a3=a&c%40=&a2=r%20b", "c2&a3=2+q", "nonce", "7d8f3e4a", "k y")
	f.Add("GET", "http://h/", "oauth=1&oauth_=2&oauthz=3&oauth%5Fx=4", "", "version", "1.0", "")
	f.Add("GET", "u", "zzz=1&aaa=2&oauth%5E=3&oauth~=4", "p=%00", "timestamp", "", "é")
	f.Add("GET", "u", "", "", "a", "", "")
	f.Fuzz(func(t *testing.T, method, uri, query, body, name, value, key string) {
		if _, plain := AppendTwice(nil, name); !plain {
			return // a run's names are unreserved
		}
		adds := [][2]string{{"oauth_" + name, value}, {"oauth_consumer_key", key}, {"oauth_version", "1.0"}}
		forms := []string{query, body}
		var s Set
		want, err := build(&s, method, uri, forms, adds)
		if err != nil {
			return // malformed forms: the Set's own tests
		}
		s.Reset()
		for _, f := range forms {
			require.NoError(t, s.AddForm(f))
		}
		got, ok := s.AppendBaseStringRun(nil, method, []byte(percent.Encode(uri)), runOf(adds))
		if !ok {
			// Only when the request names an oauth_ parameter itself.
			ref, err := refBaseString(method, uri, forms, nil)
			require.NoError(t, err)
			params := strings.SplitN(ref, "&", 3)[2]
			require.True(t, strings.HasPrefix(params, "oauth_") || strings.Contains(params, "%26oauth_"),
				"refused a run for %q", params)
			return
		}
		if string(got) != want {
			t.Fatalf("base string\n got %q\nwant %q", got, want)
		}
	})
}
