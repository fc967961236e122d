package oauth1

import (
	"net/url"
	"strings"
	"testing"
)

// namesOAuthRef is namesOAuth written plainly: split on "&", decode each
// name, look at its prefix.
func namesOAuthRef(raw string) bool {
	for _, kv := range strings.Split(raw, "&") {
		name, _, _ := strings.Cut(kv, "=")
		dec, err := url.QueryUnescape(name)
		if err != nil || strings.HasPrefix(dec, "oauth_") {
			return true
		}
	}
	return false
}

var namesOAuthSeeds = []string{
	"", "&", "=", "oauth_", "oauth", "oauth_=", "a=oauth_x", "a=1&oauth_x=2",
	"%6Fauth_nonce=1", "oauth%5Fnonce", "oauth%5fnonce=", "oauth+_", "oauth%2", "x=%zz&oauth_a",
	"x=%zz", "include_entities=true", "status=Hello%20Ladies%20%2B", "&&oauth_token", "oauth_token&&",
	"oautH_a", "x&oauth%", "oauth%5", "=oauth_", "a%3Doauth_=1", "oa%75th_", "%26oauth_=1",
}

// namesOAuth must find every name the reference finds: a miss would let a
// request carry a protocol parameter twice. It may only be more cautious
// about malformed escapes, which collecting refuses before it runs.
func TestNamesOAuth(t *testing.T) {
	for _, raw := range namesOAuthSeeds {
		if got, want := namesOAuth(raw), namesOAuthRef(raw); got != want {
			t.Errorf("namesOAuth(%q) = %v, want %v", raw, got, want)
		}
		if got, want := namesOAuth([]byte(raw)), namesOAuthRef(raw); got != want {
			t.Errorf("namesOAuth([]byte(%q)) = %v, want %v", raw, got, want)
		}
	}
}

func FuzzNamesOAuth(f *testing.F) {
	for _, s := range namesOAuthSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := namesOAuth(raw), namesOAuthRef(raw); got != want {
			if _, err := url.ParseQuery(strings.ReplaceAll(raw, ";", "%3B")); err != nil {
				return // malformed: collecting refuses it first
			}
			t.Errorf("namesOAuth(%q) = %v, want %v", raw, got, want)
		}
	})
}
