package percent

import (
	"errors"
	"testing"
)

func TestAppendReencodeForm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain-._~", "plain-._~"},
		{"a+b", "a%20b"},
		{"a%2Bb", "a%2Bb"},
		{"%7e%7E%41", "~~A"},     // escapes of unreserved bytes are decoded
		{"%2f%2F/", "%2F%2F%2F"}, // hex uppercased, a raw "/" escaped
		{"Hello Ladies + Gentlemen!", "Hello%20Ladies%20%20%20Gentlemen%21"},
		{"caf%C3%A9", "caf%C3%A9"},
		{"☃", "%E2%98%83"},
		{"%ff\xfe", "%FF%FE"},
	}
	for _, tt := range tests {
		got, err := AppendReencodeForm([]byte("lead"), tt.in)
		if err != nil || string(got) != "lead"+tt.want {
			t.Errorf("AppendReencodeForm(%q, %q) = %q, %v, want %q", "lead", tt.in, got, err, "lead"+tt.want)
		}
	}
	got, err := AppendReencodeForm([]byte("lead"), "a+b%zz")
	var e *EscapeError
	if !errors.As(err, &e) || *e != (EscapeError{Offset: 3, Escape: "%zz"}) || string(got) != "leada%20b" {
		t.Errorf("AppendReencodeForm(%q) = %q, %#v; want partial %q and the escape at offset 3", "a+b%zz", got, err, "leada%20b")
	}
}

// FuzzReencodeForm checks the one-pass form against the two functions it
// fuses, which have tests of their own.
func FuzzReencodeForm(f *testing.F) {
	for _, s := range []string{"", "a+b%2B", "%7e%2f", "%", "%G1", "x%2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := AppendReencodeForm(nil, s)
		dec, derr := DecodeForm(s)
		if (err != nil) != (derr != nil) {
			t.Fatalf("AppendReencodeForm(%q) error %v, DecodeForm error %v", s, err, derr)
		}
		if err != nil {
			var e1, e2 *EscapeError
			if !errors.As(err, &e1) || !errors.As(derr, &e2) || *e1 != *e2 {
				t.Fatalf("AppendReencodeForm(%q) error %v, DecodeForm error %v", s, err, derr)
			}
			return
		}
		if want := Encode(dec); string(got) != want {
			t.Fatalf("AppendReencodeForm(%q) = %q, want %q", s, got, want)
		}
	})
}
