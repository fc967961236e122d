package oauth1_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/percent"
)

// baseStringHost returns the host of the base string URI in base.
func baseStringHost(t *testing.T, base string) string {
	t.Helper()
	parts := strings.Split(base, "&")
	require.Len(t, parts, 3, "base string %q", base)
	uri, err := percent.Decode(parts[1])
	require.NoError(t, err)
	u, err := url.Parse(uri)
	require.NoError(t, err)
	return u.Host
}

// normalHost is what a provider does with a received Host before it goes
// into the base string (RFC 5849 §3.4.1.2): lowercase, default port
// dropped.
func normalHost(scheme, host string) string {
	host = strings.ToLower(host)
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	}
	return host
}

// TestWireHostMatchesNetHTTP sends requests for hosts that net/http
// rewrites through a real http.Client, over HTTP/1.1 and HTTP/2, to a
// loopback server (the dialer reaches it whatever the name, so no name is
// resolved), and compares the Host the server received with the host in
// the base string the same request is signed over. When net/http refuses
// to send a request, signing must refuse it too.
func TestWireHostMatchesNetHTTP(t *testing.T) {
	// h2 is false for the hosts that net/http cannot send over HTTP/2: it
	// waits for a connection until the timeout, apparently because its
	// HTTP/1 connection pool keys hosts by the IDNA Lookup profile (which
	// folds case and width) and its HTTP/2 pool by the Punycode profile
	// (which does not), so that the two keys differ.
	hosts := []struct {
		host string
		h2   bool
	}{
		{"api.x.com", true},
		{"API.X.COM:8443", true},
		{"bücher.example", true},
		{"BÜCHER.EXAMPLE", false},               // uppercase non-ASCII: kept, not folded
		{"MÜNCHEN.bücher.example:8080", false},  // mixed case, port
		{"ｅｘａｍｐｌｅ.com", false},                  // full-width letters: not mapped
		{"bücher。example", false},               // ideographic full stop: not a dot
		{"例え.テスト", true},                        // Japanese
		{"пример.испытание:443", true},          // Cyrillic, the https default port
		{"pаypal.com", true},                    // mixed scripts (Cyrillic а)
		{"bücher.example.", true},               // trailing dot
		{"bücher.example.:8443", true},          // trailing dot and port
		{"xn--bcher-kva.bücher.example", true},  // an A-label beside a U-label
		{"XN--BCHER-KVA.bücher.example", false}, // the same, uppercase
		{"xn--zz-.bücher.example", true},        // an A-label that is not Punycode
		{"a\u200db.example", true},              // zero width joiner
		{"[fe80::1%25en0]:8080", true},          // IPv6 zone
		{"[fe80::1%25en0]", true},               // IPv6 zone, no port
		{"[::1]:80", true},                      // the http default port
		{"bücher.example:", true},               // empty port
		{strings.Repeat("ü", 59) + ".example", true},
	}
	var gotHost, gotProto string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotHost, gotProto = r.Host, r.Proto
		io.WriteString(w, "ok")
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	h2 := httptest.NewUnstartedServer(handler)
	h2.EnableHTTP2 = true
	h2.StartTLS()
	defer h2.Close()

	tls1 := httptest.NewTLSServer(handler)
	defer tls1.Close()

	cfg := &oauth1.Config{ConsumerKey: xConsumer.Token, ConsumerSecret: xConsumer.Secret}
	for _, srv := range []*httptest.Server{plain, tls1, h2} {
		scheme, wantProto := "http", "HTTP/1.1"
		if srv != plain {
			scheme = "https"
		}
		if srv == h2 {
			wantProto = "HTTP/2.0"
		}
		for _, h := range hosts {
			host := h.host
			if srv == h2 && !h.h2 {
				continue
			}
			rawURL := scheme + "://" + host + "/p?q=1"
			t.Run(wantProto+"/"+scheme+"/"+host, func(t *testing.T) {
				// A transport of its own: hosts that differ only in case
				// share a connection key, and would share connections.
				tr := &http.Transport{
					DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
						return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
					},
					// The server's certificate names none of these hosts.
					TLSClientConfig:   &tls.Config{InsecureSkipVerify: true, ServerName: "example.com"},
					ForceAttemptHTTP2: srv == h2,
				}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr, Timeout: 3 * time.Second}
				req, err := http.NewRequest("GET", rawURL, nil)
				require.NoError(t, err)
				base, signErr := cfg.BaseString(req, &xToken, time.Unix(1318622958, 0), "nonce")
				gotHost, gotProto = "", ""
				resp, sendErr := client.Do(req)
				if sendErr != nil {
					assert.Error(t, signErr, "net/http refused to send it (%v), but it was signed over %q", sendErr, base)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				require.Equal(t, wantProto, gotProto)
				require.NoError(t, signErr, "net/http sent Host %q", gotHost)
				want := normalHost(scheme, gotHost)
				if srv == h2 {
					// HTTP/2's :authority keeps an IPv6 zone, which RFC
					// 6874 §4 has clients remove and HTTP/1.1 removes; the
					// signer removes it, and so does the Verifier from the
					// Host it receives.
					want = removeZone(want)
				}
				assert.Equal(t, want, baseStringHost(t, base), "server got Host %q", gotHost)
			})
		}
	}
}

// removeZone is net/http's, for HTTP/1.1: the zone of "[fe80::1%en0]:8080"
// goes.
func removeZone(host string) string {
	i, j := strings.IndexByte(host, '%'), strings.LastIndexByte(host, ']')
	if !strings.HasPrefix(host, "[") || i < 0 || j < i {
		return host
	}
	return host[:i] + host[j:]
}
