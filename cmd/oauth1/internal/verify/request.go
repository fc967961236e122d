package verify

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// A Capture is what the input says about how a request was captured.
type Capture struct {
	LengthWarning string // Content-Length disagrees with the body present
	curlScheme    string // the scheme curl -v shows it connected with; "" if it shows none
	curlWhy       string // what shows it
}

// ParseRequest reads an HTTP/1.x request as a proxy log or curl -v
// shows it. body, if not empty, replaces the body of the input.
func ParseRequest(raw []byte, body string) (*http.Request, Capture, error) {
	var cap Capture
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	var head []string
	var rest []string
	curl := false
	for _, l := range lines {
		if l == ">" || strings.HasPrefix(l, "> ") {
			curl = true
			break
		}
	}
	if curl {
		// curl -v: "> " lines are the request head; "*", "<", "{" and "}"
		// lines are curl's own; unmarked lines right after the head are the
		// body, and those after curl's next line are the response's.
		inHead, done, past := false, false, false
		for _, l := range lines {
			switch {
			case l == ">" || strings.HasPrefix(l, "> "):
				if done {
					continue
				}
				inHead = true
				if t := strings.TrimPrefix(strings.TrimPrefix(l, ">"), " "); t == "" {
					done = true
				} else {
					head = append(head, t)
				}
			case !inHead || !done || past || l == "":
			case strings.ContainsAny(l[:1], "*<{}"):
				past = true
			default:
				rest = append(rest, l)
			}
		}
	} else {
		i := 0
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++ // leading blank lines, as editors leave them
		}
		for ; i < len(lines) && lines[i] != ""; i++ {
			head = append(head, lines[i])
		}
		if i < len(lines) {
			rest = lines[i+1:]
		}
	}
	if len(head) == 0 {
		return nil, cap, errors.New("no HTTP request in the input (want a request line, headers, a blank line and the body)")
	}
	// curl -v shows HTTP/2 and HTTP/3 requests in HTTP/1.1 form, with a
	// version that http.ReadRequest refuses; the signature does not cover it.
	if m, target, ok := strings.Cut(head[0], " "); ok {
		if i := strings.LastIndex(target, " HTTP/"); i >= 0 && !strings.HasPrefix(target[i+1:], "HTTP/1.") {
			head[0] = m + " " + target[:i] + " HTTP/1.1"
		}
	}
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(strings.Join(head, "\r\n") + "\r\n\r\n")))
	if err != nil {
		return nil, cap, fmt.Errorf("reading the request: %w", err)
	}
	cl, hasCL := int64(-1), r.Header.Get("Content-Length") != ""
	if hasCL {
		if n, err := strconv.ParseInt(r.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			cl = n
		}
	}
	b := body
	switch {
	case b != "":
		if hasCL && cl != int64(len(b)) {
			cap.LengthWarning = fmt.Sprintf("Content-Length is %s but --data-raw has %d bytes; the body the client sent is the one to check", r.Header.Get("Content-Length"), len(b))
		}
	case hasCL:
		b = strings.Join(rest, "\n")
		// A file ends with a newline that was not part of the body.
		trimmed := strings.TrimRight(b, "\n")
		switch {
		case cl < 0:
			cap.LengthWarning = fmt.Sprintf("Content-Length %q is not a number; the body is taken as it is in the input", r.Header.Get("Content-Length"))
			b = trimmed
		case curl && b == "" && cl > 0:
			cap.LengthWarning = fmt.Sprintf("Content-Length is %d but curl -v does not show the body; give it with --data-raw", cl)
		case int64(len(b)) < cl:
			cap.LengthWarning = fmt.Sprintf("Content-Length is %d but only %d bytes follow the headers: the capture cut the body short, or it was edited", cl, len(trimmed))
			b = trimmed
		case int64(len(trimmed)) > cl:
			cap.LengthWarning = fmt.Sprintf("Content-Length is %d but %d bytes follow the headers; only the first %d are taken as the body", cl, len(trimmed), cl)
			b = b[:cl]
		default:
			b = b[:cl]
		}
	default:
		b = strings.TrimRight(strings.Join(rest, "\n"), "\n")
	}
	if curl {
		cap.curlScheme, cap.curlWhy = curlScheme(lines)
	}
	r.Body = io.NopCloser(strings.NewReader(b))
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	if b == "" {
		r.Body = http.NoBody
	}
	return r, cap, nil
}

// curlScheme returns the scheme that the "*" lines of curl -v show: the
// port it connected to (80 or 443), or a TLS handshake.
func curlScheme(lines []string) (scheme, why string) {
	for _, l := range lines {
		if !strings.HasPrefix(l, "* ") {
			continue
		}
		// curl 7 and 8: "* Connected to host (addr) port 80 (#0)",
		// "*   Trying 192.0.2.1:80..." and "* Host a.example:80 was resolved.".
		for _, port := range []string{"80", "443"} {
			_, after, connected := strings.Cut(l, ") port "+port)
			if connected && strings.HasPrefix(l, "* Connected to ") && (after == "" || after[0] == ' ') ||
				strings.Contains(l, "Trying ") && strings.HasSuffix(strings.TrimRight(l, " ."), ":"+port) ||
				strings.HasPrefix(l, "* Host ") && strings.HasSuffix(l, ":"+port+" was resolved.") {
				if port == "80" {
					return "http", "curl connected to port 80"
				}
				return "https", "curl connected to port 443"
			}
		}
		if strings.HasPrefix(l, "* SSL connection using") || strings.HasPrefix(l, "* TLSv1") {
			return "https", "curl -v shows a TLS connection"
		}
	}
	return "", ""
}
