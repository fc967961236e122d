package main

import (
	"bufio"
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
)

// verify checks a raw HTTP request with oauth1.Verifier, the code a
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
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 1 {
		fs.Usage()
		return exitUsage
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
	r, err := parseRawRequest(raw, data)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	v := &oauth1.Verifier{Credentials: store, Scheme: scheme}
	if v.Scheme == "" {
		v.Scheme = "https"
		if r.URL.Scheme != "" {
			v.Scheme = r.URL.Scheme
		}
	}
	if plaintext {
		v.Methods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512", "PLAINTEXT"}
		v.AllowInsecurePlainText = true
	}
	now := time.Now()
	if n := string(nowFlag); n != "" {
		sec, _ := strconv.ParseInt(n, 10, 64)
		now = time.Unix(sec, 0)
	}
	v.Now = func() time.Time { return now }
	if anyTime {
		v.Window = 100 * 365 * 24 * time.Hour
	}

	res, err := v.Verify(r)
	w := c.stdout
	if err == nil {
		fmt.Fprintf(w, "Signature valid: %s, consumer key %s", res.Method, res.ConsumerKey)
		if res.Token != "" {
			fmt.Fprintf(w, ", token %s", res.Token)
		}
		fmt.Fprintf(w, ".\n\nSigned base string:\n%s\n", res.BaseString)
		return exitOK
	}
	var pe *oauth1.ProblemError
	if !errors.As(err, &pe) {
		return c.errorf(exitUsage, "%v", err)
	}
	fmt.Fprintf(w, "Signature NOT valid: %s.\n%s\n", pe.Problem, problemHint(pe, store))
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

// problemHint explains a refusal in a sentence; it never includes a secret.
func problemHint(pe *oauth1.ProblemError, store credStore) string {
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

func (s credStore) Consumer(_ context.Context, key string) (oauth1.Registration, error) {
	if s.key != "" && key != s.key {
		return oauth1.Registration{}, oauth1.ErrNotFound
	}
	return oauth1.Registration{Secret: s.secret, PublicKey: s.pub}, nil
}

func (s credStore) TokenSecret(_ context.Context, _, token string) (string, error) {
	if s.token != "" && token != s.token {
		return "", oauth1.ErrNotFound
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

// parseRawRequest reads an HTTP/1.x request as a proxy log or curl -v
// shows it. body, if not empty, replaces the body of the input.
func parseRawRequest(raw []byte, body string) (*http.Request, error) {
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
		return nil, errors.New("no HTTP request in the input (want a request line, headers, a blank line and the body)")
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
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	b := body
	if b == "" {
		b = strings.Join(rest, "\n")
		if cl := r.Header.Get("Content-Length"); cl != "" {
			if n, err := strconv.Atoi(cl); err == nil && n >= 0 && n < len(b) {
				b = b[:n]
			}
		} else {
			// A file ends with a newline that was not part of the body.
			b = strings.TrimRight(b, "\n")
		}
	}
	r.Body = io.NopCloser(strings.NewReader(b))
	r.ContentLength = int64(len(b))
	r.TransferEncoding = nil
	if b == "" {
		r.Body = http.NoBody
	}
	return r, nil
}
