package vectors

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	v, err := Load("x-update-1.1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "x-update-1.1.txt" || v.Get("consumer-key") != "xvz1evFS4wEEPTGEFPHBog" || v.Get("signature") != "hCtSmYh+iHYCEqBWrE7C7hYmtUk=" {
		t.Errorf("Load(x-update-1.1) = %s, consumer-key %q, signature %q", v.Name, v.Get("consumer-key"), v.Get("signature"))
	}
	if v.Has("authorization") || v.Get("authorization") != "" {
		t.Error("x-update-1.1 has an authorization line")
	}
	if _, err := Load("no-such-vector"); err == nil {
		t.Error("Load(no-such-vector) succeeded")
	}
	w := v.With("token", "")
	if v.Get("token") == "" || !w.Has("token") || w.Get("token") != "" {
		t.Errorf("With: v token %q, copy token %q", v.Get("token"), w.Get("token"))
	}
}

// Header must reproduce every Authorization header a source publishes.
func TestHeader(t *testing.T) {
	vs, err := All()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if !v.Has("authorization") {
			continue
		}
		n++
		if got, want := v.Header(), v.Get("authorization"); got != want {
			t.Errorf("%s: Header() =\n%s\nwant\n%s", v.Name, got, want)
		}
	}
	if n < 2 {
		t.Errorf("%d vectors with an authorization line, want at least 2", n)
	}
	x := MustLoad("x-update-1.1").With("token", "").With("signature", "a+/=")
	if h := x.Header(); strings.Contains(h, "oauth_token") || !strings.Contains(h, `oauth_signature="a%2B%2F%3D"`) {
		t.Errorf("Header() without token = %s", h)
	}
}

func TestEncode(t *testing.T) {
	for in, want := range map[string]string{"": "", "aZ09-._~": "aZ09-._~", "a b+c/=": "a%20b%2Bc%2F%3D", "☃": "%E2%98%83", "%": "%25"} {
		if got := Encode(in); got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
	}
}
