package wire

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"

	"github.com/countersign/countersign/internal/ascii"
)

// maxLabelBytes is the most a DNS label holds (RFC 1035 §2.3.4), and so
// the most an IDNA A-label does (RFC 5890 §2.3.2.1).
const maxLabelBytes = 63

// Host returns host as net/http writes it into the Host header (and
// HTTP/2's :authority), which is what a provider puts into its base string:
// httpguts.PunycodeHostPort, the very function net/http calls, turns a
// host that is not ASCII into Punycode with the Punycode profile of
// golang.org/x/net/idna (no UTS #46 mapping: case and width are kept, and
// an "xn--" label beside a non-ASCII one is decoded and encoded again); an
// IPv6 zone is dropped (RFC 6874 §4, net/http's removeZone). Signing the
// host as the URL spells it gave a signature no provider could match for
// https://bücher.example/ or http://[fe80::1%25en0]/.
//
// It refuses two hosts that net/http would still send: one that is not a
// valid Host header, for which net/http sends an empty Host over HTTP/1.1
// (and refuses the request over HTTP/2), and one with a label that is not
// ASCII and has more than 59 characters, which in Punycode ("xn--" and at
// least a byte a character) is longer than the 63 bytes a DNS label holds,
// and which the Punycode encoder takes time quadratic in its length to
// encode.
func Host(host string) (string, error) {
	if !ascii.IsASCII(host) {
		if err := checkLabels(host); err != nil {
			return "", err
		}
		h, err := httpguts.PunycodeHostPort(host)
		if err != nil {
			return "", fmt.Errorf("host %q has no Punycode form: %w", host, err)
		}
		host = h
	}
	if !httpguts.ValidHostHeader(host) {
		return "", fmt.Errorf("%q is not a valid Host header", host)
	}
	return removeZone(host), nil
}

// checkLabels refuses a host with a non-ASCII label too long to be a DNS
// label in Punycode, before encoding it.
func checkLabels(host string) error {
	for label := range strings.SplitSeq(host, ".") {
		if ascii.IsASCII(label) {
			continue
		}
		if n := utf8.RuneCountInString(label); len("xn--")+n > maxLabelBytes {
			return fmt.Errorf("host label of %d characters is longer than the %d bytes a DNS label holds in Punycode", n, maxLabelBytes)
		}
	}
	return nil
}

// removeZone is net/http's: the zone of "[fe80::1%en0]:8080" goes.
func removeZone(host string) string {
	if !strings.HasPrefix(host, "[") {
		return host
	}
	i := strings.LastIndex(host, "]")
	if i < 0 {
		return host
	}
	j := strings.LastIndex(host[:i], "%")
	if j < 0 {
		return host
	}
	return host[:j] + host[i:]
}
