package main

import (
	"bufio"
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/countersign/countersign/cmd/oauth1/internal/explain"
	"github.com/countersign/countersign/cmd/oauth1/internal/quirks"
	"github.com/countersign/countersign/cmd/oauth1/internal/sign"
	"github.com/countersign/countersign/cmd/oauth1/internal/terminal"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/rsakey"
	"github.com/countersign/countersign/oauth1/server"
)

// verify checks a raw HTTP request with server.Verifier, the code a
// provider built on this module runs.
func (c *cmd) verify(args []string) int {
	f, pos, code, ok := c.verifyFlags(args)
	if !ok {
		return code
	}
	if err := f.loadKey(); err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	raw, err := c.readInput(pos)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	r, cap, err := parseRawRequest(raw, f.data)
	if err != nil {
		return c.errorf(exitUsage, "%v", err)
	}
	if cap.lengthWarning != "" {
		fmt.Fprintln(c.stderr, "oauth1: warning: "+cap.lengthWarning)
	}
	if w := tokenWithoutSecret(raw, f.data, f); w != "" {
		fmt.Fprintln(c.stderr, "oauth1: warning: "+w)
	}
	sc := f.requestScheme(r, cap)
	res, err := f.verifier(sc.scheme).Verify(r)
	defer c.printVerifyQuirks(f, raw, res, err) // after the rest of the report
	if err == nil {
		c.printScheme(sc)
		c.printValid(res)
		return exitOK
	}
	var pe *server.ProblemError
	if !errors.As(err, &pe) {
		return c.errorf(exitUsage, "%v", err)
	}
	httpValid := false
	if sc.guessed && badSignature(pe) {
		// Nothing names the scheme: try http too, the other one clients sign.
		if r2, _, err := parseRawRequest(raw, f.data); err == nil {
			_, err := f.verifier("http").Verify(r2)
			var pe2 *server.ProblemError
			switch {
			case err == nil:
				httpValid = true
			case errors.As(err, &pe2) && badSignature(pe2) && pe2.BaseString != "" && named(pe2.KeyMistake) && !named(pe.KeyMistake):
				pe, r = pe2, r2
				sc = schemeChoice{scheme: "http", why: "the request names no scheme, and with https no key mistake explains the signature, but with http one does"}
			}
		}
	}
	c.printScheme(sc)
	fmt.Fprintf(c.stdout, "Signature NOT valid: %s.\n%s\n", pe.Problem, problemHint(pe, f.store))
	if httpValid {
		fmt.Fprintf(c.stdout, "The scheme was taken as https, since the request names none, but the signature is valid for http://%s: "+
			"the client signed an http URL. Run again with --scheme http.\n", r.Host+r.URL.RequestURI())
	}
	if pe.BaseString == "" {
		return exitFailure
	}
	c.printExpected(pe.BaseString, r)
	same := false
	if f.clientBase != "" {
		same = c.printClientDiff(pe.BaseString, f.clientBase, sc.scheme, sc.guessed)
	}
	if badSignature(pe) && !httpValid && (f.clientBase == "" || same) {
		f.reproduceWide(pe, raw) // the operator's search, far wider than the Verifier's
		c.printKeyCheck(pe.KeyMistake, same)
	}
	return exitFailure
}

// badSignature reports whether pe refuses the signature (a body that
// does not match its hash is body_hash_invalid).
func badSignature(pe *server.ProblemError) bool {
	return pe.Problem == oauth1.ProblemSignatureInvalid
}

// verifyOptions are the flags of "oauth1 verify", with the environment's
// defaults filled in.
type verifyOptions struct {
	store              credStore
	scheme, keyFile    string
	data               string
	now                numberFlag
	at                 time.Time // --now, or the time the command started
	anyTime, plaintext bool
	clientBase         string
	keyPassword        string
}

// verifyFlags parses the flags and at most one FILE argument. When parsing
// ends the command, ok is false and code is the exit status.
func (c *cmd) verifyFlags(args []string) (f *verifyOptions, pos []string, code int, ok bool) {
	fs := c.newFlags("verify", "[flags] [FILE]\n\n"+
		"FILE (default stdin) holds a raw HTTP request: request line, headers, a blank line, the body;\n"+
		"the \"> \" lines that curl -v prints are accepted too (curl -v does not print the body: use --data-raw).")
	f = &verifyOptions{}
	fs.StringVar(&f.scheme, "scheme", "", "`scheme` of the URL the client signed (default: the request line's, else what the capture shows: Forwarded, X-Forwarded-Proto, the Host port, curl -v; else https)")
	fs.StringVar(&f.store.key, "consumer-key", "", "the expected consumer `key`; default: accept the request's")
	fs.StringVar(&f.store.secret, "consumer-secret", "", "consumer `secret` (default $OAUTH1_CONSUMER_SECRET)")
	fs.StringVar(&f.store.token, "token", "", "the expected `token`; default: accept the request's")
	fs.StringVar(&f.store.tokenSecret, "token-secret", "", "token `secret` (default $OAUTH1_TOKEN_SECRET)")
	fs.StringVar(&f.keyFile, "key-file", "", "RSA public key, certificate or private key `file`, for the RSA methods")
	fs.StringVar(&f.keyPassword, "key-password", "", "`password` of an encrypted private key file (default $OAUTH1_KEY_PASSWORD)")
	fs.StringVar(&f.data, "data-raw", "", "the request `body`, when the input does not show it")
	fs.Var(&f.now, "now", "verify as at this time, in `seconds` since 1970 (default now)")
	fs.BoolVar(&f.anyTime, "any-time", false, "skip the timestamp window check, for requests captured earlier")
	fs.BoolVar(&f.plaintext, "allow-plaintext", false, "accept the PLAINTEXT method (refused by default, as the Verifier does)")
	fs.StringVar(&f.clientBase, "base-string", "", "the base string the client signed; if the signature is invalid, diff it against the expected one")
	if pos, code, ok = fs.parse(args); !ok {
		return nil, nil, code, false
	}
	if len(pos) > 1 {
		return nil, nil, fs.usageError("extra argument %.40q after FILE", pos[1]), false
	}
	fill := func(dst *string, name string) {
		if *dst == "" {
			*dst = c.getenv(name)
		}
	}
	fill(&f.store.secret, "OAUTH1_CONSUMER_SECRET")
	fill(&f.store.tokenSecret, "OAUTH1_TOKEN_SECRET")
	fill(&f.keyPassword, "OAUTH1_KEY_PASSWORD")
	if f.store.secret == "" && f.keyFile == "" {
		return nil, nil, fs.usageError("no key to verify with: give the consumer secret (--consumer-secret or $OAUTH1_CONSUMER_SECRET), or --key-file for the RSA methods"), false
	}
	f.at = time.Now()
	if n := string(f.now); n != "" {
		sec, _ := strconv.ParseInt(n, 10, 64)
		f.at = time.Unix(sec, 0)
	}
	return f, pos, exitOK, true
}

// loadKey reads the RSA public key of --key-file, if given.
func (f *verifyOptions) loadKey() error {
	if f.keyFile == "" {
		return nil
	}
	b, err := os.ReadFile(f.keyFile)
	if err != nil {
		return err
	}
	f.store.pub, err = publicKey(b, f.keyPassword)
	switch {
	case errors.Is(err, rsakey.ErrPasswordRequired):
		return fmt.Errorf("%s: %w; give its password with --key-password or $OAUTH1_KEY_PASSWORD, or give the public key", f.keyFile, err)
	case errors.Is(err, rsakey.ErrIncorrectPassword):
		return fmt.Errorf("%s: %w; check --key-password or $OAUTH1_KEY_PASSWORD", f.keyFile, err)
	case err != nil:
		return fmt.Errorf("%s: %w", f.keyFile, err)
	}
	return nil
}

// openInput opens FILE, or stdin when there is none or it is "-"; the
// caller closes what it returns.
func (c *cmd) openInput(pos []string) (io.ReadCloser, error) {
	if len(pos) == 1 && pos[0] != "-" {
		return os.Open(pos[0])
	}
	return io.NopCloser(c.stdin), nil
}

// readInput reads the raw request from FILE, or from stdin when there is
// none or it is "-".
func (c *cmd) readInput(pos []string) ([]byte, error) {
	in, err := c.openInput(pos)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	return raw, nil
}

// verifier returns a Verifier for the flags, with a fresh nonce store.
func (f *verifyOptions) verifier(scheme string) *server.Verifier {
	// A nonce store of its own: the request is verified once per scheme tried.
	// DiagnoseKeys: the key check runs on every signature_invalid refusal,
	// even of a signature whose length is not the method's.
	v := &server.Verifier{Store: f.store, Settings: server.Settings{Nonces: new(server.MemoryNonceStore), Scheme: scheme, Now: func() time.Time { return f.at }, DiagnoseKeys: true}}
	if f.plaintext {
		v.SignatureMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512", "PLAINTEXT"}
		v.AllowInsecurePlaintext = true
	}
	if f.anyTime {
		v.Window = 100 * 365 * 24 * time.Hour
	}
	return v
}

// printValid reports a valid signature and the base string signed.
func (c *cmd) printValid(res *server.Verification) {
	w := c.stdout
	fmt.Fprintf(w, "Signature valid: %s, consumer key %s", res.SignatureMethod, res.ConsumerKey)
	if res.Token != "" {
		fmt.Fprintf(w, ", token %s", res.Token)
	}
	fmt.Fprintf(w, ".\n\nSigned base string:\n%s\n", res.BaseString)
}

// printExpected prints the base string the Verifier computed, broken down.
func (c *cmd) printExpected(base string, r *http.Request) {
	w := c.stdout
	fmt.Fprintf(w, "\nThe base string this request yields (what the client should have signed):\n%s\n\n", base)
	if b, err := basestring.Parse(base); err == nil {
		var body string
		if form, _ := sign.IsFormType(r.Header.Get("Content-Type")); form && r.Body != nil {
			// Verify left an in-memory copy of the body it read.
			raw, _ := io.ReadAll(r.Body)
			body = string(raw)
		}
		explain.Breakdown(w, b, explain.Sources(b, r.URL.RawQuery, body))
	}
}

// printClientDiff prints the differences between the expected base
// string and the client's (--base-string), and reports whether they are
// the same. scheme is the scheme verified with, and guessed whether the
// request line named none.
func (c *cmd) printClientDiff(base, clientBase, scheme string, guessed bool) bool {
	w := c.stdout
	fmt.Fprintln(w)
	ds := basestring.Diff(base, clientBase)
	if len(ds) == 0 {
		fmt.Fprintln(w, "The client's base string (--base-string) is the same, so the key differs: the secrets given, or how the client used them.")
		return true
	}
	fmt.Fprint(w, terminal.Safe(basestring.Format(explain.WithHints(ds))))
	if other, ok := onlyScheme(ds, base, clientBase); ok && guessed {
		fmt.Fprintf(w, "The only difference is the scheme, and it was taken as %s because the request line does not name one: "+
			"the client signed an %s URL. Run again with --scheme %s.\n", scheme, other, other)
	}
	return false
}

// onlyScheme reports whether the differences ds between two base strings
// are all in their base string URIs, which differ only in the scheme, and
// returns got's scheme.
func onlyScheme(ds []basestring.Difference, want, got string) (string, bool) {
	for _, d := range ds {
		if d.Kind != basestring.URIDiffers || d.Name != "" {
			return "", false
		}
	}
	w, err1 := basestring.Parse(want)
	g, err2 := basestring.Parse(got)
	if err1 != nil || err2 != nil {
		return "", false
	}
	ws, wrest, _ := strings.Cut(w.URI, "://")
	gs, grest, _ := strings.Cut(g.URI, "://")
	if strings.EqualFold(ws, gs) || wrest != grest {
		return "", false
	}
	return strings.ToLower(gs), true
}

// problemHint explains a refusal in a sentence; it never includes a secret.
func problemHint(pe *server.ProblemError, store credStore) string {
	detail := ""
	if pe.Err != nil {
		detail = " (" + strings.TrimPrefix(pe.Err.Error(), "oauth1: ") + ")"
	}
	switch pe.Problem {
	case oauth1.ProblemBodyHashInvalid:
		return "The body does not match its oauth_body_hash: the body was changed after signing, or hashed with another algorithm."
	case oauth1.ProblemSignatureInvalid:
		return "The signature does not match the base string below with the secrets (or key) given. Either the secrets differ, " +
			"or the client signed another base string: compare it with this one (oauth1 diff, or --base-string)."
	case oauth1.ProblemTimestampRefused:
		return fmt.Sprintf("oauth_timestamp is outside the acceptable window %d-%d; for a request captured earlier use --any-time or --now.",
			pe.MinTimestamp, pe.MaxTimestamp)
	case oauth1.ProblemParameterAbsent:
		return "Missing protocol parameters: " + strings.Join(pe.ParamsAbsent, ", ") + "."
	case oauth1.ProblemParameterRejected:
		return "Rejected parameters: " + strings.Join(pe.ParamsRejected, ", ") + detail + "."
	case oauth1.ProblemConsumerKeyUnknown:
		// Without --consumer-key every key is accepted: only one no store
		// looks up (a control character) is refused, and pe.Err says so.
		if pe.Err == nil && store.key != "" {
			return "The request's oauth_consumer_key is not the --consumer-key given."
		}
		return "The request's oauth_consumer_key is refused" + detail + "."
	case oauth1.ProblemTokenRejected:
		// Without --token every token is accepted; an HMAC or PLAINTEXT
		// one then needs its secret.
		switch {
		case errors.Is(pe.Err, server.ErrNotFound) && store.token != "":
			return "The request's oauth_token is not the --token given."
		case store.tokenSecret == "" && (pe.Err == nil || strings.Contains(pe.Err.Error(), "without a secret")):
			return "The request carries oauth_token, and no token secret was given (--token-secret or $OAUTH1_TOKEN_SECRET): " +
				"an HMAC or PLAINTEXT signature cannot be checked without it."
		}
		return "The request's oauth_token is refused" + detail + "."
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

func (s credStore) Consumer(_ context.Context, key string, _ time.Time) (server.Registration, error) {
	if s.key != "" && key != s.key {
		return server.Registration{}, server.ErrNotFound
	}
	return server.Registration{Secret: s.secret, PublicKey: s.pub}, nil
}

func (s credStore) TokenCredentials(_ context.Context, key, token string, _ time.Time) (server.TokenCredentials, error) {
	if s.token != "" && token != s.token {
		return server.TokenCredentials{}, server.ErrNotFound
	}
	return server.TokenCredentials{Token: token, Secret: s.tokenSecret, ConsumerKey: key}, nil
}

// publicKey reads an RSA public key with rsakey.ParsePublic, or takes
// the public half of a private key file that rsakey.Parse reads, so that
// a client's own key file can be checked against its requests.
func publicKey(data []byte, password string) (*rsa.PublicKey, error) {
	pub, err := rsakey.ParsePublic(data)
	if !errors.Is(err, rsakey.ErrFormat) {
		return pub, err
	}
	key, perr := rsakey.Parse(data, password)
	switch {
	case perr == nil:
		return &key.PublicKey, nil
	case errors.Is(perr, rsakey.ErrFormat):
		return nil, err // neither a public nor a private key: say what a public key file holds
	}
	return nil, perr
}

// capture is what the input says about how a request was captured.
type capture struct {
	lengthWarning string // Content-Length disagrees with the body present
	curlScheme    string // the scheme curl -v shows it connected with; "" if it shows none
	curlWhy       string // what shows it
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

// printVerifyQuirks names the quirks of a request "oauth1 verify" checked:
// res and err are what the Verifier returned.
func (c *cmd) printVerifyQuirks(f *verifyOptions, raw []byte, res *server.Verification, err error) {
	var pe *server.ProblemError
	switch {
	case err == nil && res != nil:
		quirks.Print(c.stdout, f.requestQuirks(raw, res.BaseString, true))
	case errors.As(err, &pe) && pe.BaseString != "":
		quirks.Print(c.stdout, f.requestQuirks(raw, pe.BaseString, false))
	}
}

// requestQuirks names the quirks of the request in raw; see quirks.Request.
func (f *verifyOptions) requestQuirks(raw []byte, base string, valid bool) []quirks.Quirk {
	r, _, err := parseRawRequest(raw, f.data)
	if err != nil {
		return nil
	}
	return quirks.Request(r, quirks.Secrets{ConsumerSecret: f.store.secret, TokenSecret: f.store.tokenSecret, PublicKey: f.store.pub}, base, valid)
}
