package terminal

import "testing"

func TestSafe(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text\twith tab\nand newline", "plain text\twith tab\nand newline"},
		{"a\xe9b\x1b[2J\u009bc\td\ne\u00e9", `a\xE9b\x1B[2J\u009Bc` + "\td\ne\u00e9"},
		{"del\x7f", `del\x7F`},
	} {
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
