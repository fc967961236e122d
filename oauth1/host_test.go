package oauth1

import "testing"

// The samples of RFC 3492 §7.1, plus short labels. Each expected value was
// checked with Python's own codec:
//
//	python3 -c 'print("bücher".encode("punycode"))'  # b'bcher-kva'
var punycodeTests = []struct{ name, in, want string }{
	{"(A) Arabic", "\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F", "egbpdaj6bu4bxfgehfvwxn"},
	{"(B) Chinese (simplified)", "\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587", "ihqwcrb4cv8a8dqg056pqjye"},
	{"(L) Japanese with ASCII", "3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"},
	{"(M) Japanese, ASCII after", "\u5B89\u5BA4\u5948\u7F8E\u6075-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"},
	{"(P) Japanese, mixed", "Maji\u3067Koi\u3059\u308B5\u79D2\u524D", "MajiKoi5-783gue6qz075azm5e"},
	{"(R) Japanese, no ASCII", "\u305D\u306E\u30B9\u30D4\u30FC\u30C9\u3067", "d9juau41awczczp"},
	{"(S) ASCII only", "-> $1.00 <-", "-> $1.00 <--"},
	{"bücher", "bücher", "bcher-kva"},
	{"münchen", "münchen", "mnchen-3ya"},
	{"snowman", "☃", "n3h"},
}

func TestPunycode(t *testing.T) {
	for _, tt := range punycodeTests {
		got, err := appendPunycode(nil, tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: appendPunycode(%q) = %q, %v; want %q", tt.name, tt.in, got, err, tt.want)
		}
	}
}

// TestWireHost checks hosts against what net/http writes into the Host
// header: httpguts.PunycodeHostPort, then removeZone.
func TestWireHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"api.x.com", "api.x.com"},
		{"API.X.COM:8443", "API.X.COM:8443"}, // lowercasing is the base string's job
		{"bücher.example", "xn--bcher-kva.example"},
		{"bücher.example:8080", "xn--bcher-kva.example:8080"},
		{"münchen.bücher.example.", "xn--mnchen-3ya.xn--bcher-kva.example."},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"[::1]:8080", "[::1]:8080"},
		{"[fe80::1%en0]:8080", "[fe80::1]:8080"},
		{"[fe80::1%en0]", "[fe80::1]"},
	}
	for _, tt := range tests {
		if got, err := wireHost(tt.in); err != nil || got != tt.want {
			t.Errorf("wireHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
