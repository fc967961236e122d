package main

import (
	"strings"
	"testing"
)

// TestRun keeps the README's first command working.
func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatalf("run: %v\n%s", err, b.String())
	}
	out := b.String()
	for _, want := range []string{
		"Secret:REDACTED}",
		"-> 200 OK: consumer=dpf43f3p2l4k3l03",
		"401 Unauthorized oauth_problem=nonce_used",
		"4 requests checked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "kd94hf93k423kf44") {
		t.Errorf("output shows the client secret:\n%s", out)
	}
}
