package oauth1

import (
	"errors"
	"math"
	"net"
	"strings"
	"unicode/utf8"
)

// wireHost returns host as net/http writes it into the Host header, which
// is what a provider puts into its base string: a label that is not ASCII
// in Punycode with its "xn--" prefix (net/http calls the Punycode profile
// of golang.org/x/net/idna, which maps nothing and encodes each such label
// as it is), and an IPv6 address without its zone (RFC 6874 §4). Signing
// the host as the URL spells it gave a signature that no provider could
// match for https://bücher.example/ or http://[fe80::1%25en0]/.
func wireHost(host string) (string, error) {
	if !isASCII(host) {
		h, port, err := net.SplitHostPort(host)
		if err != nil {
			h, port = host, ""
		}
		labels := strings.Split(h, ".")
		for i, l := range labels {
			if isASCII(l) {
				continue
			}
			b, err := appendPunycode([]byte("xn--"), l)
			if err != nil {
				return "", err
			}
			labels[i] = string(b)
		}
		host = strings.Join(labels, ".")
		if port != "" {
			host = net.JoinHostPort(host, port)
		}
	}
	// As net/http's removeZone: the zone of "[fe80::1%en0]:8080" goes.
	if strings.HasPrefix(host, "[") {
		if i := strings.LastIndexByte(host, ']'); i >= 0 {
			if j := strings.LastIndexByte(host[:i], '%'); j >= 0 {
				host = host[:j] + host[i:]
			}
		}
	}
	return host, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Punycode parameters (RFC 3492 §5).
const (
	punyBase        = 36
	punyTMin        = 1
	punyTMax        = 26
	punySkew        = 38
	punyDamp        = 700
	punyInitialBias = 72
	punyInitialN    = 128
)

var errPunycodeOverflow = errors.New("oauth1: host label too long for Punycode")

// appendPunycode appends the Punycode encoding of label (RFC 3492 §6.3):
// its ASCII code points, a "-" if there were any, then the others as
// variable-length deltas. Invalid UTF-8 is read as U+FFFD, as ranging over
// a string does and as x/net/idna does.
func appendPunycode(dst []byte, label string) ([]byte, error) {
	var basic, total int
	for _, r := range label {
		total++
		if r < utf8.RuneSelf {
			dst = append(dst, byte(r))
			basic++
		}
	}
	if basic > 0 {
		dst = append(dst, '-')
	}
	n, delta, bias := rune(punyInitialN), 0, punyInitialBias
	for h := basic; h < total; {
		// The smallest code point not handled yet.
		m := rune(math.MaxInt32)
		for _, r := range label {
			if r >= n && r < m {
				m = r
			}
		}
		if int64(delta)+int64(m-n)*int64(h+1) > math.MaxInt32 {
			return dst, errPunycodeOverflow
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range label {
			if r < n {
				delta++
				if delta > math.MaxInt32 {
					return dst, errPunycodeOverflow
				}
			}
			if r != n {
				continue
			}
			q := delta
			for k := punyBase; ; k += punyBase {
				t := min(max(k-bias, punyTMin), punyTMax)
				if q < t {
					break
				}
				dst = append(dst, punyDigit(t+(q-t)%(punyBase-t)))
				q = (q - t) / (punyBase - t)
			}
			dst = append(dst, punyDigit(q))
			bias = punyAdapt(delta, h+1, h == basic)
			delta = 0
			h++
		}
		delta++
		n++
	}
	return dst, nil
}

// punyDigit is the basic code point for a digit 0..35: a-z, then 0-9.
func punyDigit(d int) byte {
	if d < 26 {
		return byte('a' + d)
	}
	return byte('0' + d - 26)
}

// punyAdapt is the bias adaptation function of RFC 3492 §6.1.
func punyAdapt(delta, numPoints int, first bool) int {
	if first {
		delta /= punyDamp
	} else {
		delta /= 2
	}
	delta += delta / numPoints
	k := 0
	for delta > (punyBase-punyTMin)*punyTMax/2 {
		delta /= punyBase - punyTMin
		k += punyBase
	}
	return k + (punyBase-punyTMin+1)*delta/(delta+punySkew)
}
