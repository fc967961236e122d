// Package response is the work of oauth1 response: it reads a provider's
// raw HTTP response as curl -i (or curl -v) prints it, and says what a
// client learns from it: the problem report of a refusal, read as
// oauth1.CheckResponse reads it, and the retirement the provider announced
// (Deprecation, Sunset, Link).
package response

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/sunset"
)

// Report writes what resp tells the client: the problem report of a
// refusal to stdout, or the status of a success and, on stderr, the
// retirement it announces. It reports whether resp is a success.
func Report(resp *http.Response, stdout, stderr io.Writer) bool {
	if err := oauth1.CheckResponse(resp); err != nil {
		fmt.Fprintln(stdout, err)
		var re *oauth1.ResponseError
		if errors.As(err, &re) && re.BaseString != "" {
			// A base string is percent-encoded: a raw newline or control
			// character is the provider's, shown escaped.
			base := re.BaseString
			if strings.ContainsAny(base, "\n\t") {
				base = strconv.Quote(base)
			}
			fmt.Fprintln(stdout, "The provider's base string (oauth_signature_base_string):")
			fmt.Fprintln(stdout, terminal.Safe(base))
			fmt.Fprintln(stdout, "Compare it with the one the client signed (oauth1 sign --explain prints it): oauth1 diff 'PROVIDER_BASE' 'CLIENT_BASE'.")
		}
		return false
	}
	fmt.Fprintln(stdout, strings.TrimSpace(strconv.Itoa(resp.StatusCode)+" "+http.StatusText(resp.StatusCode)))
	if n := sunset.Read(resp.Header); n != (sunset.Notice{}) {
		fmt.Fprintln(stderr, "oauth1: warning: "+n.String())
	}
	return true
}

// Parse reads the last response of raw: curl -i -L prints one
// for each redirect, and a proxy's or a 100 Continue's comes first. The
// "< " lines of curl -v are read as the response, and the lines after them
// that curl -v does not mark as its own as the body.
func Parse(raw []byte) (*http.Response, error) {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	if bytes.HasPrefix(raw, []byte("< HTTP/")) || bytes.Contains(raw, []byte("\n< HTTP/")) {
		raw = fromCurlVerbose(raw)
	}
	// Find the start of the last status line that begins a header block.
	start := -1
	for i := 0; i < len(raw); {
		if bytes.HasPrefix(raw[i:], []byte("HTTP/")) {
			end := bytes.Index(raw[i:], []byte("\n\n"))
			if end < 0 {
				if start < 0 {
					start = i
				}
				break
			}
			start = i
			i += end + 2
			if !bytes.HasPrefix(raw[i:], []byte("HTTP/")) {
				break
			}
			continue
		}
		break
	}
	if start < 0 {
		return nil, fmt.Errorf("the input is not an HTTP response: it does not start with a status line such as HTTP/1.1 200 OK")
	}
	raw = raw[start:]
	head, body, _ := bytes.Cut(raw, []byte("\n\n"))
	// curl -i prints "HTTP/2 200" and "HTTP/3 200", which ReadResponse,
	// for HTTP/1.x, refuses; the headers read the same.
	for _, v := range []string{"HTTP/2 ", "HTTP/3 "} {
		if rest, ok := bytes.CutPrefix(head, []byte(v)); ok {
			head = append([]byte("HTTP/1.1 "), rest...)
		}
	}
	// The body as it is: a captured response has no reliable length
	// (curl -i prints a chunked one decoded).
	head = bytes.ReplaceAll(append(head, "\n\n"...), []byte("\n"), []byte("\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil)
	if err != nil {
		return nil, fmt.Errorf("the input is not an HTTP response: %w", err)
	}
	resp.Body.Close()
	resp.Body = readCloser{bytes.NewReader(body)}
	resp.ContentLength = int64(len(body))
	return resp, nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// fromCurlVerbose keeps the "< " lines of curl -v's output, without the
// marker, and the lines after the last of them that curl does not mark
// ("* ", "> ", "{ ", "} "): the body, when curl printed it.
func fromCurlVerbose(raw []byte) []byte {
	var head, body []byte
	for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("< ")):
			head = append(head, line[2:]...)
			body = body[:0]
		case bytes.Equal(bytes.TrimRight(line, "\n"), []byte("<")):
			head = append(head, '\n')
			body = body[:0]
		case bytes.HasPrefix(line, []byte("* ")), bytes.HasPrefix(line, []byte("> ")),
			bytes.HasPrefix(line, []byte("{ ")), bytes.HasPrefix(line, []byte("} ")),
			bytes.Equal(bytes.TrimRight(line, "\n"), []byte(">")):
		default:
			body = append(body, line...)
		}
	}
	if !bytes.HasSuffix(head, []byte("\n\n")) {
		head = append(head, '\n')
	}
	return append(head, body...)
}
