package lticlaim

import (
	"strings"
	"testing"
)

func TestReadPayload(t *testing.T) {
	var stderr strings.Builder
	// eyJhIjoxfQ is base64url of {"a":1}.
	got, err := ReadPayload(strings.NewReader("eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfQ.c2ln\n"), &stderr)
	if err != nil || string(got) != `{"a":1}` {
		t.Errorf("ReadPayload(JWT) = %q, %v", got, err)
	}
	if !strings.Contains(stderr.String(), "its signature is not checked") {
		t.Errorf("stderr %q does not say the JWT's signature is not checked", stderr.String())
	}
	got, err = ReadPayload(strings.NewReader(` {"a":1} `), &stderr)
	if err != nil || string(got) != `{"a":1}` {
		t.Errorf("ReadPayload(JSON) = %q, %v", got, err)
	}
	if _, err := ReadPayload(strings.NewReader("a.!!!.c"), &stderr); err == nil {
		t.Error("ReadPayload of a JWT whose payload is not base64url: no error")
	}
}
