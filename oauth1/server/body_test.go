package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1"
)

// readCounter is a body that counts the calls to its Read.
type readCounter struct {
	io.Reader
	reads int
}

func (c *readCounter) Read(p []byte) (int, error) {
	c.reads++
	return c.Reader.Read(p)
}

func (c *readCounter) Close() error { return nil }

// TestVerifyUnknownConsumerBodyUnread checks that a form POST whose
// Authorization header or query names a consumer the store does not know
// is refused before its body is read: a client nobody registered cannot
// make the provider read and hold a body. A consumer key sent in the body
// itself can only be found by reading it.
func TestVerifyUnknownConsumerBodyUnread(t *testing.T) {
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }}}
	const rest = `oauth_nonce="n", oauth_signature="AAAAAAAAAAAAAAAAAAAAAAAAAAA%3D", oauth_signature_method="HMAC-SHA1", oauth_timestamp="1700000000"`
	const restForm = "oauth_nonce=n&oauth_signature=AAAAAAAAAAAAAAAAAAAAAAAAAAA%3D&oauth_signature_method=HMAC-SHA1&oauth_timestamp=1700000000"
	body := strings.Repeat("a=b&", 1000) + "c=d"
	for _, tt := range []struct {
		name          string
		query, header string
		body          string
		problem       oauth1.Problem
		mustRead      bool
	}{
		{"unknown key in the header", "", `OAuth oauth_consumer_key="stranger", ` + rest, body, oauth1.ProblemConsumerKeyUnknown, false},
		{"unknown key in the query", "?oauth_consumer_key=stranger&" + restForm, "", body, oauth1.ProblemConsumerKeyUnknown, false},
		{"hostile key in the header", "", `OAuth oauth_consumer_key="k%0Aey", ` + rest, body, oauth1.ProblemConsumerKeyUnknown, false},
		{"unknown key in the body", "", "", "oauth_consumer_key=stranger&" + restForm + "&" + body, oauth1.ProblemConsumerKeyUnknown, true},
		{"known key in the header", "", `OAuth oauth_consumer_key="` + xConsumerKey + `", ` + rest, body, oauth1.ProblemSignatureInvalid, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rc := &readCounter{Reader: strings.NewReader(tt.body)}
			r := httptest.NewRequest("POST", "https://api.example.com/r"+tt.query, nil)
			r.Body, r.ContentLength = rc, int64(len(tt.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			_, err := v.Verify(r)
			var pe *ProblemError
			require.True(t, errors.As(err, &pe), "%v", err)
			assert.Equal(t, tt.problem, pe.Problem)
			if tt.mustRead {
				assert.NotZero(t, rc.reads, "the body was not read")
			} else {
				assert.Zero(t, rc.reads, "the body of a request from an unknown consumer was read")
			}
		})
	}
}

// firstRead wraps a body and signals, once, when it is first read: by
// then the reader has taken whatever buffer it reads into.
type firstRead struct {
	io.ReadCloser
	once atomic.Bool
	read chan<- struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	if f.once.CompareAndSwap(false, true) {
		f.read <- struct{}{}
	}
	return f.ReadCloser.Read(p)
}

// TestVerifyStalledBodyMemory opens connections that send the headers of
// a large form POST, without an Authorization header, and then nothing:
// the Verifier, waiting for the body, must hold memory for what arrived,
// not for the declared Content-Length (4 MiB each before, or 64 MiB with
// a larger MaxBodyBytes).
func TestVerifyStalledBodyMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, limit := range []int64{0, 64 << 20} {
		v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), MaxBodyBytes: limit}}
		declared := v.maxBodyBytes()
		const conns = 16
		read := make(chan struct{}, conns)
		done := make(chan struct{}, conns)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = &firstRead{ReadCloser: r.Body, read: read}
			v.Verify(r)
			done <- struct{}{}
		}))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var open []net.Conn
		for range conns {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			require.NoError(t, err)
			open = append(open, c)
			fmt.Fprintf(c, "POST /r HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\na=b", declared)
		}
		for range conns {
			select {
			case <-read:
			case <-time.After(10 * time.Second):
				t.Fatal("the handler never read the body")
			}
		}
		runtime.ReadMemStats(&after)
		for _, c := range open {
			c.Close()
		}
		for range conns {
			<-done
		}
		srv.Close()
		per := float64(after.TotalAlloc-before.TotalAlloc) / conns
		// A connection costs net/http some 10 KiB; the body's buffer may
		// be 512 bytes until more arrives.
		assert.Less(t, per, float64(64<<10), "limit %d: %.0f bytes allocated per stalled connection declaring %d", declared, per, declared)
		t.Logf("limit %d: %.0f bytes per stalled connection", declared, per)
	}
}
