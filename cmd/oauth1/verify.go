package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/oauth1/server"
)

// verify checks a raw HTTP request with server.Verifier, the code a
// provider built on this module runs.
func (c *cmd) verify(args []string) int {
	fs := c.newFlags("verify", "[flags] [FILE]\n\n"+
		"FILE (default stdin) holds a raw HTTP request: request line, headers, a blank line, the body;\n"+
		"the \"> \" lines that curl -v prints are accepted too (curl -v does not print the body: use --data-raw).")
	var (
		store                 credStore
		scheme, pubFile, data string
		nowFlag               numberFlag
		anyTime, plaintext    bool
		clientBase            string
		keyPassword           string
	)
	fs.StringVar(&scheme, "scheme", "", "`scheme` of the URL the client signed (default https, or the request line's)")
	fs.StringVar(&store.key, "consumer-key", "", "the expected consumer `key`; default: accept the request's")
	fs.StringVar(&store.secret, "consumer-secret", "", "consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&store.token, "token", "", "the expected `token`; default: accept the request's")
	fs.StringVar(&store.tokenSecret, "token-secret", "", "token `secret` (default $OAUTH1_TOKEN_SECRET)")
	fs.StringVar(&pubFile, "key-file", "", "RSA public key, certificate or private key `file`, for the RSA methods")
	fs.StringVar(&keyPassword, "key-password", "", "`password` of an encrypted private key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&data, "data-raw", "", "the request `body`, when the input does not show it")
	fs.Var(&nowFlag, "now", "verify as at this time, in `seconds` since 1970 (default now)")
	fs.BoolVar(&anyTime, "any-time", false, "skip the timestamp window check, for requests captured earlier")
	fs.BoolVar(&plaintext, "allow-plaintext", false, "accept the PLAINTEXT method (refused by default, as the Verifier does)")
	fs.StringVar(&clientBase, "base-string", "", "the base string the client signed; if the signature is invalid, diff it against the expected one")
	pos, code, ok := fs.parse(args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return fs.usageError("extra argument %.40q after FILE", pos[1])
	}
	if store.secret == "" {
		store.secret = c.getenv("OAUTH1_CONSUMER_SECRET")
	}
	if store.tokenSecret == "" {
		store.tokenSecret = c.getenv("OAUTH1_TOKEN_SECRET")
	}
	if keyPassword == "" {
		keyPassword = c.getenv("OAUTH1_KEY_PASSWORD")
	}
	if pubFile != "" {
		b, err := os.ReadFile(pubFile)
		if err != nil {
			return c.errorf(exitUsage, "%v", err)
		}
		if store.pub, err = parsePublicKey(b, keyPassword); err != nil {
			return c.errorf(exitUsage, "%s: %v", pubFile, err)
		}
	}
	var in io.Reader = c.stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return c.errorf(exitUsage, "%v", err)
		}
		defer f.Close()
		in = f
	}
	raw, err := io.ReadAll(in)
	if err != nil {
		return c.errorf(exitUsage, "reading the request: %v", err)
	}
	r, cap, err := parseRawRequest(raw, data)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	if cap.lengthWarning != "" {
		fmt.Fprintln(c.stderr, "oauth1: warning: "+cap.lengthWarning)
	}
	// The request line of a captured request rarely names the scheme the
	// client signed; https is the likelier guess, and the one to revisit
	// when the signature fails.
	guessed := scheme == "" && r.URL.Scheme == ""
	if scheme == "" {
		scheme = cmp.Or(r.URL.Scheme, "https")
	}
	now := time.Now()
	if n := string(nowFlag); n != "" {
		sec, _ := strconv.ParseInt(n, 10, 64)
		now = time.Unix(sec, 0)
	}
	verifier := func(scheme string) *server.Verifier {
		v := &server.Verifier{Store: store, Scheme: scheme, Now: func() time.Time { return now }}
		if plaintext {
			v.Methods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512", "PLAINTEXT"}
			v.AllowInsecurePlaintext = true
		}
		if anyTime {
			v.Window = 100 * 365 * 24 * time.Hour
		}
		return v
	}

	res, err := verifier(scheme).Verify(r)
	w := c.stdout
	if err == nil {
		fmt.Fprintf(w, "Signature valid: %s, consumer key %s", res.Method, res.ConsumerKey)
		if res.Token != "" {
			fmt.Fprintf(w, ", token %s", res.Token)
		}
		fmt.Fprintf(w, ".\n\nSigned base string:\n%s\n", res.BaseString)
		return exitOK
	}
	var pe *server.ProblemError
	if !errors.As(err, &pe) {
		return c.errorf(exitUsage, "%v", err)
	}
	fmt.Fprintf(w, "Signature NOT valid: %s.\n%s\n", pe.Problem, problemHint(pe, store))
	if guessed && pe.Problem == oauth1.ProblemSignatureInvalid && len(pe.Params) == 0 {
		// Verify again as signed over http, on a fresh copy of the request
		// (the first Verify read the body) and with a fresh nonce store.
		r2, _, err := parseRawRequest(raw, data)
		switch {
		case err == nil && verifyOK(verifier("http"), r2):
			fmt.Fprintf(w, "The scheme was taken as https, since the request line does not name one, but the signature is valid for http://%s: "+
				"the client signed an http URL. Run again with --scheme http.\n", r.Host+r.URL.RequestURI())
		case cap.overHTTP != "":
			fmt.Fprintf(w, "The request was captured over http (%s), but the scheme was taken as https, since the request line does not name one. "+
				"If the client signed an http URL, run again with --scheme http.\n", cap.overHTTP)
		}
	}
	if pe.BaseString != "" {
		fmt.Fprintf(w, "\nThe base string this request yields (what the client should have signed):\n%s\n\n", pe.BaseString)
		if b, err := basestring.Parse(pe.BaseString); err == nil {
			var body string
			if form, _ := isFormType(r.Header.Get("Content-Type")); form && r.Body != nil {
				// Verify left an in-memory copy of the body it read.
				raw, _ := io.ReadAll(r.Body)
				body = string(raw)
			}
			writeBreakdown(w, b, sources(b, r.URL.RawQuery, body))
		}
		if clientBase != "" {
			fmt.Fprintln(w)
			if ds := basestring.Diff(pe.BaseString, clientBase); len(ds) > 0 {
				fmt.Fprint(w, basestring.Format(ds))
			} else {
				fmt.Fprintln(w, "The client's base string (--base-string) is the same: the secrets or the key differ.")
			}
		}
	}
	return exitFailure
}

func verifyOK(v *server.Verifier, r *http.Request) bool {
	_, err := v.Verify(r)
	return err == nil
}

// problemHint explains a refusal in a sentence; it never includes a secret.
func problemHint(pe *server.ProblemError, store credStore) string {
	detail := ""
	if pe.Err != nil {
		detail = " (" + strings.TrimPrefix(pe.Err.Error(), "oauth1: ") + ")"
	}
	switch pe.Problem {
	case oauth1.ProblemSignatureInvalid:
		if len(pe.Params) > 0 {
			return "The body does not match its oauth_body_hash: the body was changed after signing, or hashed with another algorithm."
		}
		return "The signature does not match the base string below with the secrets (or key) given. Either the secrets differ, " +
			"or the client signed another base string: compare it with this one (oauth1 diff, or --base-string)."
	case oauth1.ProblemTimestampRefused:
		return fmt.Sprintf("oauth_timestamp is outside the acceptable window %d-%d; for a request captured earlier use --any-time or --now.",
			pe.MinTimestamp, pe.MaxTimestamp)
	case oauth1.ProblemParameterAbsent:
		return "Missing protocol parameters: " + strings.Join(pe.Params, ", ") + "."
	case oauth1.ProblemParameterRejected:
		return "Rejected parameters: " + strings.Join(pe.Params, ", ") + detail + "."
	case oauth1.ProblemConsumerKeyUnknown:
		if store.key != "" {
			return "The request's oauth_consumer_key is not the --consumer-key given."
		}
		return "The consumer key is unknown."
	case oauth1.ProblemTokenRejected:
		return "The request's oauth_token is not the --token given."
	case oauth1.ProblemSignatureMethodRejected:
		return "The signature method cannot be checked" + detail + "; give --consumer-secret for HMAC, --key-file for RSA, --allow-plaintext for PLAINTEXT."
	case oauth1.ProblemVersionRejected:
		return "oauth_version must be 1.0" + detail + "."
	case oauth1.ProblemNonceUsed:
		return "The nonce was used before."
	}
	return strings.TrimPrefix(pe.Error(), "oauth1: ")
}

// credStore is the CredentialStore of one consumer and one token, from
// flags. An empty key or token accepts whatever the request carries.
type credStore struct {
	key, secret        string
	token, tokenSecret string
	pub                *rsa.PublicKey
}

func (s credStore) Consumer(_ context.Context, key string) (server.Registration, error) {
	if s.key != "" && key != s.key {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: s.secret, PublicKey: s.pub}, nil
}

func (s credStore) TokenSecret(_ context.Context, _, token string) (string, error) {
	if s.token != "" && token != s.token {
		return "", server.ErrNotFound
	}
	return s.tokenSecret, nil
}

// parsePublicKey reads an RSA public key from a PEM public key (PKIX or
// PKCS #1), a certificate, or any private key file rsakey.Parse reads.
func parsePublicKey(data []byte, password string) (*rsa.PublicKey, error) {
	for rest := data; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		var pub any
		var err error
		switch block.Type {
		case "PUBLIC KEY":
			pub, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var cert *x509.Certificate
			if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
				pub = cert.PublicKey
			}
		default:
			continue
		}
		if err != nil {
			return nil, err
		}
		if k, ok := pub.(*rsa.PublicKey); ok {
			return k, nil
		}
		return nil, fmt.Errorf("not an RSA key (%T)", pub)
	}
	key, err := rsakey.Parse(data, password)
	if err != nil {
		return nil, err
	}
	return &key.PublicKey, nil
}

// capture is what the input says about how a request was captured.
type capture struct {
	lengthWarning string // Content-Length disagrees with the body present
	overHTTP      string // why the request looks captured over http; "" if it does not
}

// parseRawRequest reads an HTTP/1.x request as a proxy log or curl -v
// shows it. body, if not empty, replaces the body of the input.
func parseRawRequest(raw []byte, body string) (*http.Request, capture, error) {
	var cap capture
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
		// lines are curl's own; what else follows the head is the body.
		inHead, done := false, false
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
			case inHead && done && l != "" && !strings.ContainsAny(l[:1], "*<{}"):
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
			cap.lengthWarning = fmt.Sprintf("Content-Length is %s but --data-raw has %d bytes; the body the client sent is the one to check", r.Header.Get("Content-Length"), len(b))
		}
	case hasCL:
		b = strings.Join(rest, "\n")
		// A file ends with a newline that was not part of the body.
		trimmed := strings.TrimRight(b, "\n")
		switch {
		case cl < 0:
			cap.lengthWarning = fmt.Sprintf("Content-Length %q is not a number; the body is taken as it is in the input", r.Header.Get("Content-Length"))
			b = trimmed
		case curl && b == "" && cl > 0:
			cap.lengthWarning = fmt.Sprintf("Content-Length is %d but curl -v does not show the body; give it with --data-raw", cl)
		case int64(len(b)) < cl:
			cap.lengthWarning = fmt.Sprintf("Content-Length is %d but only %d bytes follow the headers: the capture cut the body short, or it was edited", cl, len(trimmed))
			b = trimmed
		case int64(len(trimmed)) > cl:
			cap.lengthWarning = fmt.Sprintf("Content-Length is %d but %d bytes follow the headers; only the first %d are taken as the body", cl, len(trimmed), cl)
			b = b[:cl]
		default:
			b = b[:cl]
		}
	default:
		b = strings.TrimRight(strings.Join(rest, "\n"), "\n")
	}
	cap.overHTTP = capturedOverHTTP(lines, r)
	r.Body = io.NopCloser(strings.NewReader(b))
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	if b == "" {
		r.Body = http.NoBody
	}
	return r, cap, nil
}

// capturedOverHTTP returns the evidence in a captured request that it was
// sent over http, not https: a Host header with port 80, or curl -v
// connecting to port 80. It returns "" when there is none.
func capturedOverHTTP(lines []string, r *http.Request) string {
	if strings.HasSuffix(r.Host, ":80") {
		return "the Host header names port 80"
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "* ") {
			continue
		}
		// curl 7 and 8: "* Connected to host (addr) port 80 (#0)" and
		// "*   Trying 192.0.2.1:80...".
		if _, after, ok := strings.Cut(l, ") port 80"); ok && strings.HasPrefix(l, "* Connected to ") && (after == "" || after[0] == ' ') ||
			strings.Contains(l, "Trying ") && strings.HasSuffix(strings.TrimRight(l, " ."), ":80") {
			return "curl connected to port 80"
		}
	}
	return ""
}
