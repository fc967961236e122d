package main

import (
	"strings"
	"testing"
)

// The example reads the oauth1 command's OAUTH1_* names; the former X_*
// ones still work, with a warning that names the new one.
func TestGetenvNames(t *testing.T) {
	tests := []struct {
		env      map[string]string
		name     string
		want     string
		warnings string
	}{
		{map[string]string{"OAUTH1_TOKEN": "new", "X_ACCESS_TOKEN": "old"}, "OAUTH1_TOKEN", "new", ""},
		{map[string]string{"X_CONSUMER_KEY": "k"}, "OAUTH1_CONSUMER_KEY", "k", "warning: $X_CONSUMER_KEY is deprecated; set $OAUTH1_CONSUMER_KEY instead\n"},
		{map[string]string{"X_CONSUMER_SECRET": "s"}, "OAUTH1_CONSUMER_SECRET", "s", "warning: $X_CONSUMER_SECRET is deprecated; set $OAUTH1_CONSUMER_SECRET instead\n"},
		{map[string]string{"X_ACCESS_TOKEN": "t"}, "OAUTH1_TOKEN", "t", "warning: $X_ACCESS_TOKEN is deprecated; set $OAUTH1_TOKEN instead\n"},
		{map[string]string{"X_ACCESS_TOKEN_SECRET": "ts"}, "OAUTH1_TOKEN_SECRET", "ts", "warning: $X_ACCESS_TOKEN_SECRET is deprecated; set $OAUTH1_TOKEN_SECRET instead\n"},
		{map[string]string{}, "OAUTH1_TOKEN", "", ""},
	}
	for _, tt := range tests {
		var w strings.Builder
		got := getenv(func(k string) string { return tt.env[k] }, &w, tt.name)
		if got != tt.want || w.String() != tt.warnings {
			t.Errorf("getenv(%v, %s) = %q, warnings %q; want %q, %q", tt.env, tt.name, got, w.String(), tt.want, tt.warnings)
		}
	}
}
