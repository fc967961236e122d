package explain

import "testing"

func TestBaseStringArg(t *testing.T) {
	const base = "GET&https%3A%2F%2Fa.example%2F&oauth_consumer_key%3Dk"
	for _, tt := range []struct{ in, want string }{
		{base, base},
		// A provider's problem report: the base string is form-encoded once more.
		{"oauth_problem=signature_invalid&oauth_signature_base_string=GET%26https%253A%252F%252Fa.example%252F%26oauth_consumer_key%253Dk&x=1", base},
		{"debug_sbs=GET%26https%253A%252F%252Fa.example%252F%26oauth_consumer_key%253Dk", base},
		{"not a base string", "not a base string"},
	} {
		if got := BaseStringArg(tt.in); got != tt.want {
			t.Errorf("BaseStringArg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
