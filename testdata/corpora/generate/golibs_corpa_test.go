package main

import (
	"os"
	"strings"
	"testing"
)

// TestCorpaGoDrivers runs the Go libraries added by corpa on the probes:
// each signs every probe it accepts, and the base string captured is the
// one under its signature (mastercard-go checks its RSA signature itself).
func TestCorpaGoDrivers(t *testing.T) {
	rs := requests(37, 0, 0)
	for _, name := range []string{"gomodule-oauth1", "kurrik-oauth1a", "gotwi", "mastercard-go"} {
		res, err := drivers[name](rs)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res) != len(rs) {
			t.Fatalf("%s: %d results for %d requests", name, len(res), len(rs))
		}
		for i, g := range res {
			if g.Error != "" {
				if name == "gotwi" && rs[i].Token == "" {
					continue // it needs an access token
				}
				t.Errorf("%s: request %d: %s", name, rs[i].ID, g.Error)
				continue
			}
			if g.Got == "" || !signed(g.Authorization, g.Got, rs[i]) {
				t.Errorf("%s: request %d: base string %q not under the signature of %q", name, rs[i].ID, g.Got, g.Authorization)
			}
		}
	}
}

// TestCorpaDriverFiles checks that every external driver corpa registers
// has its script.
func TestCorpaDriverFiles(t *testing.T) {
	for _, f := range []string{"corpa-twitter-api-v2.js", "corpa-oauth-header.js", "corpa-node-oauth1.js", "corpa-flickr-sdk.js", "corpa-oauth1-signature.js",
		"corpa-mastercard.js", "corpa-lines.js", "corpa-oauthlib.py", "corpa-tornado.py", "corpa_lines.py", "corpa-httr.R"} {
		if _, err := os.Stat("drivers/" + f); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{"twitter-api-v2", "oauth-header", "node-oauth1", "flickr-sdk", "oauth1-signature", "mastercard-js", "oauthlib", "tornado", "httr"} {
		if drivers[name] == nil {
			t.Errorf("no driver %q", name)
		}
	}
	if !strings.HasPrefix(consumerSecret, "kAcSOqF2") {
		t.Error("the secrets are not the shared corpus's")
	}
}
