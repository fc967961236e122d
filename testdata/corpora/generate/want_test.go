package main

import (
	"testing"

	"github.com/countersign/countersign/internal/vectors"
)

// TestWantVectors checks the generator's RFC 5849 base string on every
// published vector of testdata/vectors that gives one.
func TestWantVectors(t *testing.T) {
	vs, err := vectors.All()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Get("base-string") == "" {
			continue
		}
		oauth := map[string]string{}
		for field, name := range map[string]string{
			"consumer-key": "oauth_consumer_key", "token": "oauth_token", "nonce": "oauth_nonce",
			"timestamp": "oauth_timestamp", "signature-method": "oauth_signature_method",
			"version": "oauth_version", "callback": "oauth_callback", "verifier": "oauth_verifier",
		} {
			if val := v.Get(field); val != "" {
				oauth[name] = val
			}
		}
		got, err := want(v.Get("method"), v.Get("url"), v.Get("body"), v.Get("content-type"), oauth)
		if err != nil {
			t.Errorf("%s: %v", v.Name, err)
			continue
		}
		if got != v.Get("base-string") {
			t.Errorf("%s:\n got %s\nwant %s", v.Name, got, v.Get("base-string"))
		}
		n++
	}
	if n < 5 {
		t.Errorf("%d vectors with a base string; the repository has more", n)
	}
	t.Logf("%d vectors", n)
}
