package wire

import (
	"strings"
	"testing"
	"time"
)

// The samples of RFC 3492 §7.1 that are not all ASCII, plus short labels,
// as the label of a host. Each expected value was checked with Python's
// own codec:
//
//	python3 -c 'print("bücher".encode("punycode"))'  # b'bcher-kva'
var punycodeTests = []struct{ name, in, want string }{
	{"(A) Arabic", "\u0644\u064A\u0647\u0645\u0627\u0628\u062A\u0643\u0644\u0645\u0648\u0634\u0639\u0631\u0628\u064A\u061F", "egbpdaj6bu4bxfgehfvwxn"},
	{"(B) Chinese (simplified)", "\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587", "ihqwcrb4cv8a8dqg056pqjye"},
	{"(L) Japanese with ASCII", "3\u5E74B\u7D44\u91D1\u516B\u5148\u751F", "3B-ww4c5e180e575a65lsy2b"},
	{"(M) Japanese, ASCII after", "\u5B89\u5BA4\u5948\u7F8E\u6075-with-SUPER-MONKEYS", "-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n"},
	{"(P) Japanese, mixed", "Maji\u3067Koi\u3059\u308B5\u79D2\u524D", "MajiKoi5-783gue6qz075azm5e"},
	{"(R) Japanese, no ASCII", "\u305D\u306E\u30B9\u30D4\u30FC\u30C9\u3067", "d9juau41awczczp"},
	{"bücher", "bücher", "bcher-kva"},
	{"münchen", "münchen", "mnchen-3ya"},
	{"snowman", "☃", "n3h"},
}

func TestWireHostPunycode(t *testing.T) {
	for _, tt := range punycodeTests {
		in, want := tt.in+".example:8080", "xn--"+tt.want+".example:8080"
		if got, err := Host(in); err != nil || got != want {
			t.Errorf("%s: Host(%q) = %q, %v; want %q", tt.name, in, got, err, want)
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
		if got, err := Host(tt.in); err != nil || got != tt.want {
			t.Errorf("Host(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// A long label of distinct code points took the hand-written encoder
// seconds (the work grows with the square of its length); such a label is
// longer than any DNS label and is refused at once, as is any non-ASCII
// label whose Punycode would pass 63 bytes.
func TestWireHostLongLabel(t *testing.T) {
	var b strings.Builder
	for r := rune(0x4E00); b.Len() < 48<<10; r++ {
		b.WriteRune(r)
	}
	long := b.String()
	for _, host := range []string{
		long + ".example",
		"api." + long,
		strings.Repeat("ü", 60) + ".example",
		"[fe80::1%" + long + "]",
	} {
		start := time.Now()
		got, err := Host(host)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Errorf("Host(%d bytes) took %v", len(host), d)
		}
		if err == nil {
			t.Errorf("Host(%d bytes) = %.40q..., want an error", len(host), got)
		}
	}
	// 59 characters may still fit: net/http's answer is the signer's.
	if _, err := Host(strings.Repeat("ü", 59) + ".example"); err != nil {
		t.Errorf("Host(59 × ü) = %v", err)
	}
}
