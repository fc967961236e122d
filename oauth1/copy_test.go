package oauth1_test

import (
	"net/http"
	"testing"

	"github.com/countersign/countersign/oauth1"
)

// Config and Transport may be copied: they hold no lock or cache of their
// own (keyed HMAC states live in a package-level cache), and go vet's
// copylocks check, which runs on this file, holds them to it. A copy signs
// as the original does.
func TestCopyable(t *testing.T) {
	c1 := oauth1.Config{ConsumerKey: rfcClient.Token, ConsumerSecret: rfcClient.Secret}
	c2 := c1
	t1 := oauth1.Transport{Config: &c2}
	t2 := t1
	for _, c := range []*oauth1.Config{&c1, &c2, t2.Config} {
		r, _ := http.NewRequest("GET", "https://api.example.com/", nil)
		if err := c.Sign(r, nil); err != nil {
			t.Fatal(err)
		}
	}
}
