// Package verify is the work of oauth1 verify: it reads a captured HTTP
// request (a proxy log, curl -v), checks its signature with server.Verifier,
// the code a provider built on this module runs, and says why a refused
// signature is refused: the base string expected, the client's mistake
// in its key or its base string (reproduced from the signature), the
// scheme, and the provider quirks that match.
package verify

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
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

// badSignature reports whether pe refuses the signature (a body that
// does not match its hash is body_hash_invalid).
func badSignature(pe *server.ProblemError) bool {
	return pe.Problem == oauth1.ProblemSignatureInvalid
}

// Options are the flags of "oauth1 verify", with the environment's
// defaults filled in.
type Options struct {
	// ConsumerKey and Token, if not "", are the ones expected; "" accepts
	// the request's.
	ConsumerKey, ConsumerSecret string
	Token, TokenSecret          string
	// KeyFile is an RSA public key, certificate or private key file, read
	// with KeyPassword into PublicKey by Run.
	KeyFile, KeyPassword string
	PublicKey            *rsa.PublicKey
	Scheme               string    // of the URL the client signed; "" infers it
	Data                 string    // the body, when the input does not show it
	At                   time.Time // the time to verify at
	AnyTime, Plaintext   bool      // skip the timestamp window; accept PLAINTEXT
	ClientBase           string    // the base string the client signed, to diff
	JSON                 bool      // print the Report as JSON, not as text
}

// A report writes what verify finds as text, and keeps it as data.
type report struct {
	stdout, stderr io.Writer
	rep            *Report
}

// Run checks the request in raw, writes what it finds to stdout as text,
// and warnings to stderr, and returns the same as a Report; LoadKey has
// read f.KeyFile. An error (input that is not a request) means nothing was
// checked.
func Run(f *Options, raw []byte, stdout, stderr io.Writer) (*Report, error) {
	rep := &Report{Verdict: "invalid"}
	c := &report{stdout: stdout, stderr: stderr, rep: rep}
	r, cap, err := ParseRequest(raw, f.Data)
	if err != nil {
		return nil, err
	}
	if cap.LengthWarning != "" {
		c.warn(cap.LengthWarning)
	}
	if w := tokenWithoutSecret(raw, f.Data, f); w != "" {
		c.warn(w)
	}
	sc := f.RequestScheme(r, cap)
	res, err := f.Verifier(sc.Scheme).Verify(r)
	defer c.printVerifyQuirks(f, raw, res, err) // after the rest of the report
	if err == nil {
		c.printScheme(sc)
		c.printValid(res, r)
		rep.Verdict = "valid"
		return rep, nil
	}
	var pe *server.ProblemError
	if !errors.As(err, &pe) {
		return nil, err
	}
	httpValid := false
	if sc.guessed && badSignature(pe) {
		// Nothing names the scheme: try http too, the other one clients sign.
		if r2, _, err := ParseRequest(raw, f.Data); err == nil {
			_, err := f.Verifier("http").Verify(r2)
			var pe2 *server.ProblemError
			switch {
			case err == nil:
				httpValid = true
			case errors.As(err, &pe2) && badSignature(pe2) && pe2.BaseString != "" && named(pe2.KeyMistake) && !named(pe.KeyMistake):
				pe, r = pe2, r2
				sc = Scheme{Scheme: "http", why: "the request names no scheme, and with https no key mistake explains the signature, but with http one does"}
			}
		}
	}
	c.printScheme(sc)
	rep.Problem, rep.Summary = string(pe.Problem), problemHint(pe, f)
	fmt.Fprintf(c.stdout, "Signature NOT valid: %s.\n%s\n", pe.Problem, rep.Summary)
	if httpValid {
		c.notef("The scheme was taken as https, since the request names none, but the signature is valid for http://%s: "+
			"the client signed an http URL. Run again with --scheme http.\n", r.Host+r.URL.RequestURI())
	}
	if pe.BaseString == "" {
		return rep, nil
	}
	c.printExpected(pe.BaseString, r)
	same := false
	if f.ClientBase != "" {
		same = c.printClientDiff(pe.BaseString, f.ClientBase, sc.Scheme, sc.guessed)
		rep.setSigned(f.ClientBase, "given")
	}
	if badSignature(pe) && !httpValid && (f.ClientBase == "" || same) {
		f.ReproduceWide(pe, raw) // the operator's search, far wider than the Verifier's
		c.printKeyCheck(pe.KeyMistake, same)
	}
	return rep, nil
}

// warn writes a warning to stderr and keeps it in the report.
func (c *report) warn(w string) {
	fmt.Fprintln(c.stderr, "oauth1: warning: "+w)
	c.rep.Warnings = append(c.rep.Warnings, w)
}

// notef writes a paragraph of advice and keeps it in the report.
func (c *report) notef(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	fmt.Fprint(c.stdout, s)
	c.rep.note(s)
}

// LoadKey reads the RSA public key of KeyFile, if given, into PublicKey.
func (f *Options) LoadKey() error {
	if f.KeyFile == "" {
		return nil
	}
	b, err := os.ReadFile(f.KeyFile)
	if err != nil {
		return err
	}
	f.PublicKey, err = publicKey(b, f.KeyPassword)
	switch {
	case errors.Is(err, rsakey.ErrPasswordRequired):
		return fmt.Errorf("%s: %w; give its password with --key-password or $OAUTH1_KEY_PASSWORD, or give the public key", f.KeyFile, err)
	case errors.Is(err, rsakey.ErrIncorrectPassword):
		return fmt.Errorf("%s: %w; check --key-password or $OAUTH1_KEY_PASSWORD", f.KeyFile, err)
	case err != nil:
		return fmt.Errorf("%s: %w", f.KeyFile, err)
	}
	return nil
}

// Verifier returns a Verifier for the flags, with a fresh nonce store.
func (f *Options) Verifier(scheme string) *server.Verifier {
	// A nonce store of its own: the request is verified once per scheme tried.
	// DiagnoseKeys: the key check runs on every signature_invalid refusal,
	// even of a signature whose length is not the method's.
	v := &server.Verifier{Store: f.credStore(), Settings: server.Settings{Nonces: new(server.MemoryNonceStore), Scheme: scheme, Now: func() time.Time { return f.At }, DiagnoseKeys: true}}
	if f.Plaintext {
		v.SignatureMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512", "PLAINTEXT"}
		v.AllowInsecurePlaintext = true
	}
	if f.AnyTime {
		v.Window = 100 * 365 * 24 * time.Hour
	}
	return v
}

// printValid reports a valid signature and the base string signed.
func (c *report) printValid(res *server.Verification, r *http.Request) {
	w := c.stdout
	c.rep.SignatureMethod, c.rep.ConsumerKey, c.rep.Token, c.rep.BaseString = res.SignatureMethod, res.ConsumerKey, res.Token, res.BaseString
	if b, err := basestring.Parse(res.BaseString); err == nil {
		c.rep.setParameters(b, sources(b, r))
	}
	fmt.Fprintf(w, "Signature valid: %s, consumer key %s", res.SignatureMethod, res.ConsumerKey)
	if res.Token != "" {
		fmt.Fprintf(w, ", token %s", res.Token)
	}
	fmt.Fprintf(w, ".\n\nSigned base string:\n%s\n", res.BaseString)
}

// printExpected prints the base string the Verifier computed, broken down.
func (c *report) printExpected(base string, r *http.Request) {
	w := c.stdout
	c.rep.BaseString = base
	fmt.Fprintf(w, "\nThe base string this request yields (what the client should have signed):\n%s\n\n", base)
	if b, err := basestring.Parse(base); err == nil {
		src := sources(b, r)
		explain.Breakdown(w, b, src)
		c.rep.setParameters(b, src)
	}
}

// sources says where each parameter of b came from in r, which the
// Verifier has read: the query, the form body, or the protocol parameters.
func sources(b *basestring.BaseString, r *http.Request) []string {
	var body string
	if form, _ := sign.IsFormType(r.Header.Get("Content-Type")); form && r.Body != nil {
		// Verify left an in-memory copy of the body it read.
		raw, _ := io.ReadAll(r.Body)
		body = string(raw)
	}
	return explain.Sources(b, r.URL.RawQuery, body)
}

// printClientDiff prints the differences between the expected base
// string and the client's (--base-string), and reports whether they are
// the same. scheme is the scheme verified with, and guessed whether the
// request line named none.
func (c *report) printClientDiff(base, clientBase, scheme string, guessed bool) bool {
	w := c.stdout
	fmt.Fprintln(w)
	ds := basestring.Diff(base, clientBase)
	if len(ds) == 0 {
		fmt.Fprintln(w, "The client's base string (--base-string) is the same, so the key differs: the secrets given, or how the client used them.")
		return true
	}
	fmt.Fprint(w, terminal.Safe(basestring.Format(explain.WithHints(ds))))
	if other, ok := onlyScheme(ds, base, clientBase); ok && guessed {
		c.notef("The only difference is the scheme, and it was taken as %s because the request line does not name one: "+
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
func problemHint(pe *server.ProblemError, f *Options) string {
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
		if pe.Err == nil && f.ConsumerKey != "" {
			return "The request's oauth_consumer_key is not the --consumer-key given."
		}
		return "The request's oauth_consumer_key is refused" + detail + "."
	case oauth1.ProblemTokenRejected:
		// Without --token every token is accepted; an HMAC or PLAINTEXT
		// one then needs its secret.
		switch {
		case errors.Is(pe.Err, server.ErrNotFound) && f.Token != "":
			return "The request's oauth_token is not the --token given."
		case f.TokenSecret == "" && (pe.Err == nil || strings.Contains(pe.Err.Error(), "without a secret")):
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

// credStore returns the store of f's credentials.
func (f *Options) credStore() credStore {
	return credStore{key: f.ConsumerKey, secret: f.ConsumerSecret, token: f.Token, tokenSecret: f.TokenSecret, pub: f.PublicKey}
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

// printVerifyQuirks names the quirks of a request "oauth1 verify" checked:
// res and err are what the Verifier returned.
func (c *report) printVerifyQuirks(f *Options, raw []byte, res *server.Verification, err error) {
	var pe *server.ProblemError
	switch {
	case err == nil && res != nil:
		qs := f.requestQuirks(raw, res.BaseString, true)
		quirks.Print(c.stdout, qs)
		c.rep.setQuirks(qs)
	case errors.As(err, &pe) && pe.BaseString != "":
		qs := f.requestQuirks(raw, pe.BaseString, false)
		quirks.Print(c.stdout, qs)
		c.rep.setQuirks(qs)
	}
}

// requestQuirks names the quirks of the request in raw; see quirks.Request.
func (f *Options) requestQuirks(raw []byte, base string, valid bool) []quirks.Quirk {
	r, _, err := ParseRequest(raw, f.Data)
	if err != nil {
		return nil
	}
	return quirks.Request(r, quirks.Secrets{ConsumerSecret: f.ConsumerSecret, TokenSecret: f.TokenSecret, PublicKey: f.PublicKey}, base, valid)
}
