package oauth1

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/countersign/countersign/percent"
)

// ErrNotFound is what a [CredentialStore] returns, possibly wrapped, for a
// consumer key or token it does not know. The Verifier reports it as the
// consumer_key_unknown or token_rejected problem; any other lookup error
// is an internal error.
var ErrNotFound = errors.New("oauth1: credentials not found")

// A Registration is what a provider registered for a client (RFC 5849
// §1.1, "client credentials"): the shared secret for
// the HMAC and PLAINTEXT methods, and the public key for the RSA methods
// (RFC 5849 §3.4.3, registered with the provider out of band). Either may
// be empty; a request signed with a method whose key is missing is refused
// with the signature_method_rejected problem.
type Registration struct {
	Secret    string
	PublicKey *rsa.PublicKey
}

// A CredentialStore looks up the credentials a [Verifier] needs, by consumer
// key and by token. Both methods return an error wrapping [ErrNotFound] for
// an unknown key or token; the token lookup gets the consumer key too, so
// that a store can refuse a token issued to another client. Token returns
// the token's shared secret, whether the token is temporary (for the
// token request of §2.3) or an access token; the handler, which knows
// which kind the endpoint expects, checks that. Implementations must be safe
// for concurrent use.
type CredentialStore interface {
	Consumer(ctx context.Context, consumerKey string) (Registration, error)
	TokenSecret(ctx context.Context, consumerKey, token string) (string, error)
}

// A Problem is a code of the OAuth Problem Reporting extension, such as
// "signature_invalid", as carried by oauth_problem.
type Problem string

// Problem codes of the OAuth Problem Reporting extension, as returned in
// [ProblemError.Problem].
const (
	ProblemVersionRejected         Problem = "version_rejected"
	ProblemParameterAbsent         Problem = "parameter_absent"
	ProblemParameterRejected       Problem = "parameter_rejected"
	ProblemTimestampRefused        Problem = "timestamp_refused"
	ProblemNonceUsed               Problem = "nonce_used"
	ProblemSignatureMethodRejected Problem = "signature_method_rejected"
	ProblemSignatureInvalid        Problem = "signature_invalid"
	ProblemConsumerKeyUnknown      Problem = "consumer_key_unknown"
	ProblemTokenRejected           Problem = "token_rejected"
)

// A ProblemError is a refused request, described with a code of the OAuth
// Problem Reporting extension. Its message and fields never hold a secret or
// the signature the Verifier expected.
type ProblemError struct {
	Problem Problem // one of the Problem* codes

	// Params names the absent or rejected parameters, for parameter_absent
	// and parameter_rejected (and oauth_body_hash for signature_invalid
	// when the body does not match its hash).
	Params []string

	// MinTimestamp and MaxTimestamp are the acceptable oauth_timestamp
	// values at the time of a timestamp_refused problem.
	MinTimestamp, MaxTimestamp int64

	// BaseString is the signature base string the Verifier computed, when
	// it got that far. It is what the client should have signed; it holds
	// no secret, and comparing it with the client's is how a
	// signature_invalid problem is diagnosed. It is not sent to the client.
	BaseString string

	Err error // the underlying error, if any, such as a *HeaderError
}

func (e *ProblemError) Error() string {
	var b strings.Builder
	b.WriteString("oauth1: request refused: ")
	b.WriteString(string(e.Problem))
	if len(e.Params) > 0 {
		b.WriteString(" (")
		b.WriteString(strings.Join(e.Params, ", "))
		b.WriteString(")")
	}
	if e.Problem == ProblemTimestampRefused {
		fmt.Fprintf(&b, " (acceptable %d-%d)", e.MinTimestamp, e.MaxTimestamp)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *ProblemError) Unwrap() error { return e.Err }

// StatusCode is the HTTP status for the problem (RFC 5849 §3.2): 400 Bad
// Request for malformed requests, with missing, duplicated or unsupported
// parameters or methods, and 401 Unauthorized for bad credentials,
// signatures, timestamps and nonces.
func (e *ProblemError) StatusCode() int {
	switch e.Problem {
	case ProblemVersionRejected, ProblemParameterAbsent, ProblemParameterRejected, ProblemSignatureMethodRejected:
		return http.StatusBadRequest
	}
	return http.StatusUnauthorized
}

// Body returns the application/x-www-form-urlencoded problem report:
// oauth_problem and, where they apply, oauth_parameters_absent,
// oauth_parameters_rejected, oauth_acceptable_timestamps and
// oauth_acceptable_versions.
func (e *ProblemError) Body() string {
	b := []byte("oauth_problem=")
	b = percent.AppendEncode(b, string(e.Problem))
	list := func(name string) {
		b = append(b, "&"+name+"="...)
		b = percent.AppendEncode(b, strings.Join(e.Params, "&"))
	}
	switch e.Problem {
	case ProblemParameterAbsent:
		list("oauth_parameters_absent")
	case ProblemParameterRejected:
		list("oauth_parameters_rejected")
	case ProblemTimestampRefused:
		b = append(b, "&oauth_acceptable_timestamps="...)
		b = strconv.AppendInt(b, e.MinTimestamp, 10)
		b = append(b, "%2D"...)
		b = strconv.AppendInt(b, e.MaxTimestamp, 10)
	case ProblemVersionRejected:
		b = append(b, "&oauth_acceptable_versions=1.0%2D1.0"...)
	}
	return string(b)
}

func problem(code Problem, err error, params ...string) *ProblemError {
	return &ProblemError{Problem: code, Params: params, Err: err}
}

// Verification is what a [Verifier] found in a request it accepted.
type Verification struct {
	ConsumerKey string // oauth_consumer_key
	Token       string // oauth_token; empty for two-legged and temporary credential requests
	Method      string // oauth_signature_method, such as "HMAC-SHA1"

	// Params holds every protocol parameter of the request except
	// oauth_signature, decoded, wherever it was sent: oauth_callback and
	// oauth_verifier, for the endpoints of §2, are read from here.
	Params []Param

	BaseString string // the signature base string that was verified
}

// Get returns the value of the protocol parameter name, or "".
func (v *Verification) Get(name string) string {
	for _, p := range v.Params {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// DefaultWindow is the timestamp window of a Verifier whose Window is zero.
const DefaultWindow = 5 * time.Minute

// defaultMethods are the signature methods a Verifier accepts when its
// Methods field is nil; PLAINTEXT is not among them. Unexported, so that no
// package can change what every other Verifier accepts.
var defaultMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512"}

// A Verifier checks OAuth 1.0a signed requests on the provider side: the
// protocol parameters, the signature (recomputing the base string with the
// code that signs requests, and comparing in constant time), the timestamp
// window and, through a [NonceStore], that the request is not a replay.
//
// Only Credentials is required. A Verifier is safe for concurrent use; it
// must not be copied or modified after first use.
//
// # The base string URI behind a proxy
//
// The signature covers the URL the client used, so the Verifier must
// rebuild it from what the server received: the path and query exactly as
// in the request line, the host from the Host header, and the scheme from
// the connection (https when r.TLS is set). Behind a proxy that terminates
// TLS, the connection says http while the client signed https: set Scheme
// to "https" when every request comes through such a proxy, or
// SchemeHeader to "X-Forwarded-Proto" when the proxy sets that header. Of
// a header that a chain of proxies appended to ("https, http", or several
// header lines), the Verifier takes the last value, the one the proxy
// nearest to it added; a proxy that passes the client's value on without
// adding its own must not be trusted with SchemeHeader. The proxy must pass
// the Host header through unchanged.
//
// # Pinning the host
//
// A request is signed for one URL, but nothing in it stops a replay to
// another service that knows the same credentials: a request accepted by
// api-a.example, resent to api-b.example with its Host header unchanged,
// carries a valid signature there too, and a nonce that api-b's store has
// never seen. Set Host (and Scheme) to the name clients sign for, and the
// Verifier refuses requests whose Host header names another host, with
// the parameter_rejected problem naming Host. Instances that serve one name
// accept each other's requests by design, so they must share one
// NonceStore: with a store per instance, each instance accepts a request
// once.
type Verifier struct {
	// Credentials looks up consumer secrets, public keys and token secrets.
	Credentials CredentialStore

	// Nonces records nonces for replay protection. Nil means an internal
	// MemoryNonceStore of DefaultMaxNonces, private to this Verifier; a
	// service with several instances needs a shared store.
	Nonces NonceStore

	// Methods lists the accepted signature methods; nil means every HMAC
	// and RSA method (HMAC-SHA1/256/512, RSA-SHA1/256/512). PLAINTEXT, if listed, is accepted only over https
	// (RFC 5849 §3.4.4) unless AllowInsecurePlainText is set.
	Methods                []string
	AllowInsecurePlainText bool

	// Window is how far oauth_timestamp may be from the current time, in
	// either direction; zero means DefaultWindow. Nonces are remembered for
	// as long as their timestamp is acceptable.
	Window time.Duration

	// Now is the clock; nil means time.Now. Tests set a fixed clock.
	Now func() time.Time

	// Scheme, if set, is the scheme of the base string URI of every
	// request; see "The base string URI behind a proxy".
	Scheme string

	// SchemeHeader, if set, names a request header (such as
	// X-Forwarded-Proto) whose last value, http or https, is the scheme of
	// the base string URI; it takes precedence over Scheme and the
	// connection. When the header is absent, or its last value is neither
	// http nor https, Scheme or the connection decides. Set it only when a
	// trusted proxy always sets or appends to the header.
	SchemeHeader string

	// Host, if set, is the host, with its port if that is not the
	// scheme's default, that every request must be addressed to, such as
	// "api.example.com" or "api.example.com:8443"; see "Pinning the host".
	// A request whose Host header names another host, once both are
	// normalized as the base string URI normalizes them (lowercase, default
	// port dropped), is refused with parameter_rejected (Host). Empty
	// means any host: the Host header alone makes the base string URI.
	Host string

	// RequireToken refuses requests without oauth_token (two-legged
	// requests and temporary credential requests).
	RequireToken bool

	// BodyHash, if nonzero, requires an oauth_body_hash computed with this
	// hash on every request whose body is not form-encoded (the Request Body
	// Hash extension; LTI 1.1 uses crypto.SHA1). When zero, oauth_body_hash
	// is checked when present, with the SHA-1, SHA-256 or SHA-512 hash its
	// length implies. oauth_body_hash on a form-encoded body is always
	// refused, as the extension requires.
	BodyHash crypto.Hash

	// MaxBodyBytes limits how much of a body is read, for form parameters
	// and body hashes; zero means DefaultMaxBodyBytes, and no limit goes
	// above 256 MiB.
	MaxBodyBytes int64

	// Realm is sent in the WWW-Authenticate header of refusals.
	Realm string

	nonceOnce sync.Once
	nonces    NonceStore
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

func (v *Verifier) window() time.Duration {
	if v.Window > 0 {
		return v.Window
	}
	return DefaultWindow
}

func (v *Verifier) nonceStore() NonceStore {
	if v.Nonces != nil {
		return v.Nonces
	}
	v.nonceOnce.Do(func() { v.nonces = new(MemoryNonceStore) })
	return v.nonces
}

func (v *Verifier) maxBodyBytes() int64 { return bodyLimit(v.MaxBodyBytes) }

// Verify checks the OAuth signature of r and returns what it found. A
// refused request is a [*ProblemError]; other errors come from the
// CredentialStore or the NonceStore, or are [ErrBodyTooLarge].
//
// Verify reads a form-encoded body (and, for oauth_body_hash, any body) and
// replaces r.Body with an in-memory copy, so that the handler can still
// read it. The nonce is recorded only once everything else checks out: a
// refused request never uses up its nonce.
func (v *Verifier) Verify(r *http.Request) (*Verification, error) {
	if v.Credentials == nil {
		return nil, errors.New("oauth1: Verifier.Credentials is nil")
	}
	if r == nil || r.URL == nil {
		return nil, errors.New("oauth1: Verify: nil request or URL")
	}
	s := getState()
	defer putState(s)
	limit := v.maxBodyBytes()
	header, proto, form, hasBody, err := collectProtocol(s, r, limit)
	if err != nil {
		return nil, err
	}
	get := func(name string) (string, bool) {
		for _, p := range proto {
			if p.Name == name {
				return p.Value, true
			}
		}
		return "", false
	}

	// Cheap checks first, then the lookups, the signature and the nonce.
	if ver, ok := get("oauth_version"); ok && ver != "1.0" {
		return nil, problem(ProblemVersionRejected, fmt.Errorf("oauth_version %q", ver))
	}
	method, _ := get("oauth_signature_method")
	plain := method == "PLAINTEXT"
	var absent []string
	required := []string{"oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce"}
	if plain {
		required = required[:3] // §3.1: PLAINTEXT may omit the timestamp and nonce
	}
	if v.RequireToken {
		required = append(required, "oauth_token")
	}
	for _, name := range required {
		if val, ok := get(name); !ok || val == "" && name == "oauth_token" {
			absent = append(absent, name)
		}
	}
	bodyHash, hasBodyHash := get("oauth_body_hash")
	if hasBodyHash && form {
		return nil, problem(ProblemParameterRejected, errors.New("oauth_body_hash on a form-encoded body"), "oauth_body_hash")
	}
	if v.BodyHash != 0 && !form && !hasBodyHash {
		absent = append(absent, "oauth_body_hash")
	}
	if len(absent) > 0 {
		return nil, problem(ProblemParameterAbsent, nil, absent...)
	}
	methods := v.Methods
	if methods == nil {
		methods = defaultMethods
	}
	if !slices.Contains(methods, method) {
		return nil, problem(ProblemSignatureMethodRejected, fmt.Errorf("method %q is not accepted", method))
	}
	scheme := v.scheme(r)
	if plain && !v.AllowInsecurePlainText && scheme != "https" {
		return nil, problem(ProblemSignatureMethodRejected, errors.New("PLAINTEXT needs https (RFC 5849 §3.4.4)"))
	}
	now := v.now()
	tsText, hasTS := get("oauth_timestamp")
	var ts int64
	if hasTS {
		if ts, err = parseTimestamp(tsText); err != nil {
			return nil, problem(ProblemParameterRejected, err, "oauth_timestamp")
		}
		w := v.window()
		lo, hi := now.Add(-w).Unix(), now.Add(w).Unix()
		if ts < lo || ts > hi {
			return nil, &ProblemError{Problem: ProblemTimestampRefused, MinTimestamp: lo, MaxTimestamp: hi}
		}
	}
	nonce, _ := get("oauth_nonce")
	if hasTS && nonce == "" {
		return nil, problem(ProblemParameterRejected, errors.New("empty nonce"), "oauth_nonce")
	}

	ctx := r.Context()
	consumerKey, _ := get("oauth_consumer_key")
	consumer, err := v.Credentials.Consumer(ctx, consumerKey)
	if errors.Is(err, ErrNotFound) {
		return nil, problem(ProblemConsumerKeyUnknown, nil)
	} else if err != nil {
		return nil, fmt.Errorf("oauth1: looking up the consumer key: %w", err)
	}
	token, hasToken := get("oauth_token")
	var tokenSecret string
	if hasToken && token != "" {
		tokenSecret, err = v.Credentials.TokenSecret(ctx, consumerKey, token)
		if errors.Is(err, ErrNotFound) {
			return nil, problem(ProblemTokenRejected, nil)
		} else if err != nil {
			return nil, fmt.Errorf("oauth1: looking up the token: %w", err)
		}
	}

	if s.uri, err = v.baseURI(s.uri[:0], r, scheme); err != nil {
		return nil, problem(ProblemParameterRejected, err, "Host")
	}
	if err := s.receivedBase(r, header, limit); err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			return nil, err
		}
		return nil, problem(ProblemParameterRejected, err)
	}
	base := s.base // pooled: what outlives Verify is a copy
	sig, _ := get("oauth_signature")
	if err := s.checkSignature(method, base, sig, consumer, tokenSecret); err != nil {
		return nil, &ProblemError{Problem: err.Problem, Err: err.Err, BaseString: string(base)}
	}
	if hasBodyHash || (v.BodyHash != 0 && !form) {
		if err := v.checkBodyHash(s, r, hasBody, bodyHash, limit); err != nil {
			if pe, ok := err.(*ProblemError); ok {
				pe.BaseString = string(base)
			}
			return nil, err
		}
	}

	if hasTS {
		w := v.window()
		fresh, err := v.nonceStore().Use(ctx, Nonce{ConsumerKey: consumerKey, Token: token, Nonce: nonce, Timestamp: ts},
			now, time.Unix(ts, 0).Add(w+time.Second))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNonceStoreUnavailable, err)
		}
		if !fresh {
			return nil, &ProblemError{Problem: ProblemNonceUsed, BaseString: string(base)}
		}
	}

	out := &Verification{ConsumerKey: consumerKey, Token: token, Method: method, BaseString: string(base)}
	out.Params = proto[:0] // proto is this call's own, not pooled: filtered in place
	for _, p := range proto {
		if p.Name != "oauth_signature" && p.Name != "realm" {
			out.Params = append(out.Params, p)
		}
	}
	return out, nil
}

// maxProtocolParams bounds the protocol parameters of one request: §3.1
// defines eight, and extensions add a few more. More is refused before any
// lookup, so that hostile requests cost little.
const maxProtocolParams = 64

// collectProtocol returns the parameters of r's OAuth Authorization header,
// and the protocol parameters from all three places of §3.5 (with realm),
// refusing duplicates. It reports whether r has a form body and a body.
func collectProtocol(s *state, r *http.Request, limit int64) (header, proto []Param, form, hasBody bool, err error) {
	fail := func(err error) ([]Param, []Param, bool, bool, error) { return nil, nil, false, false, err }
	seen := false
	for _, h := range r.Header.Values("Authorization") {
		if !isOAuthScheme(h) {
			continue
		}
		if seen {
			return fail(problem(ProblemParameterRejected, errors.New("more than one OAuth Authorization header"), "Authorization"))
		}
		seen = true
		if header, err = ParseAuthHeader(h); err != nil {
			return fail(problem(ProblemParameterRejected, err, "Authorization"))
		}
	}
	proto = make([]Param, 0, 10)
	for _, p := range header {
		if strings.HasPrefix(p.Name, "oauth_") || p.Name == "realm" {
			proto = append(proto, p)
		}
	}
	if len(proto) > maxProtocolParams {
		return fail(problem(ProblemParameterRejected, fmt.Errorf("more than %d protocol parameters", maxProtocolParams), "Authorization"))
	}
	if proto, err = appendOAuthForm(proto, r.URL.RawQuery, "query"); err != nil {
		return fail(err)
	}
	if form, err = isForm(r.Header.Get("Content-Type")); err != nil {
		return fail(problem(ProblemParameterRejected, err, "Content-Type"))
	}
	hasBody = r.Body != nil && r.Body != http.NoBody
	if hasBody && form {
		body, err := s.formBody(r, limit) // kept for receivedBase: one read
		if err != nil {
			return fail(err)
		}
		if proto, err = appendOAuthForm(proto, body, "body"); err != nil {
			return fail(err)
		}
	}
	if name, ok := repeatedName(proto); ok {
		return fail(problem(ProblemParameterRejected, errors.New("duplicated protocol parameter"), name))
	}
	return header, proto, form, hasBody, nil
}

// repeatedName returns a name that occurs more than once in ps, which holds
// at most maxProtocolParams parameters.
func repeatedName(ps []Param) (string, bool) {
	for i, p := range ps {
		for _, q := range ps[:i] {
			if p.Name == q.Name {
				return p.Name, true
			}
		}
	}
	return "", false
}

func isOAuthScheme(h string) bool {
	h = strings.TrimLeft(h, " \t")
	return len(h) >= 5 && strings.EqualFold(h[:5], "OAuth") && (len(h) == 5 || h[5] == ' ' || h[5] == '\t')
}

// appendOAuthForm appends the oauth_* parameters of a query or form body,
// decoded with form rules, as §3.4.1.3.1 reads them. Past maxProtocolParams
// in all, the request is refused. What it appends is copied out of raw.
func appendOAuthForm[T string | []byte](dst []Param, raw T, where string) ([]Param, error) {
	for len(raw) > 0 {
		if len(dst) > maxProtocolParams {
			return dst, problem(ProblemParameterRejected, fmt.Errorf("more than %d protocol parameters", maxProtocolParams))
		}
		pair := raw
		raw = raw[len(raw):]
		if i := index(pair, '&'); i >= 0 {
			pair, raw = pair[:i], pair[i+1:]
		}
		name, value := pair, pair[len(pair):]
		if i := index(pair, '='); i >= 0 {
			name, value = pair[:i], pair[i+1:]
		}
		// Most names are skipped without decoding; an escaped one, such as
		// "%6Fauth_nonce", is decoded first.
		if (len(name) < len("oauth_") || string(name[:6]) != "oauth_") && index(name, '%') < 0 {
			continue
		}
		n, err := percent.DecodeForm(string(name))
		if err != nil || !strings.HasPrefix(n, "oauth_") {
			continue // a malformed escape is reported with the base string
		}
		val, err := percent.DecodeForm(string(value))
		if err != nil {
			return dst, problem(ProblemParameterRejected, fmt.Errorf("malformed %s: %w", where, err), n)
		}
		dst = append(dst, Param{Name: n, Value: val})
	}
	return dst, nil
}

// index is strings.IndexByte or bytes.IndexByte.
func index[T string | []byte](s T, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// parseTimestamp accepts a positive decimal number of seconds, digits only.
func parseTimestamp(s string) (int64, error) {
	if s == "" || len(s) > 18 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("oauth_timestamp %q is not a positive integer", s)
	}
	return strconv.ParseInt(s, 10, 64)
}

// scheme returns the scheme of r's base string URI. From SchemeHeader it
// takes the last element of the last line: a proxy that appends to the
// header rather than replacing it puts its own value after the client's.
func (v *Verifier) scheme(r *http.Request) string {
	if v.SchemeHeader != "" {
		if lines := r.Header.Values(v.SchemeHeader); len(lines) > 0 {
			h := lines[len(lines)-1]
			if i := strings.LastIndexByte(h, ','); i >= 0 {
				h = h[i+1:]
			}
			h = strings.ToLower(strings.TrimSpace(h))
			if h == "http" || h == "https" {
				return h
			}
		}
	}
	if v.Scheme != "" {
		return strings.ToLower(v.Scheme)
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// baseURI appends the base string URI of a received request: the scheme
// as configured, the Host header, and the path exactly as it was in the
// request line (r.RequestURI), which r.URL may have normalized. With
// v.Host set, a Host header that names another host is an error.
func (v *Verifier) baseURI(dst []byte, r *http.Request, scheme string) ([]byte, error) {
	path := r.URL.EscapedPath()
	if r.URL.Opaque != "" {
		path = r.URL.Opaque
	}
	if ru := r.RequestURI; ru != "" && ru != "*" {
		p, _, _ := strings.Cut(ru, "?")
		if !strings.HasPrefix(p, "/") {
			// absolute-form (RFC 9112 §3.2.2): skip scheme and authority.
			if _, rest, ok := strings.Cut(p, "://"); ok {
				p = ""
				if i := strings.IndexByte(rest, '/'); i >= 0 {
					p = rest[i:]
				}
			}
		}
		path = p
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	if host == "" {
		return dst, errors.New("request has no Host")
	}
	if v.Host != "" {
		// Compared as normalized: "API.example.com:443" is api.example.com
		// over https.
		var got, want [128]byte
		g, err := appendURI(got[:0], scheme, host, "/")
		if err != nil {
			return dst, err
		}
		w, err := appendURI(want[:0], scheme, v.Host, "/")
		if err != nil {
			return dst, fmt.Errorf("invalid Verifier.Host %q: %w", v.Host, err)
		}
		if !bytes.Equal(g, w) {
			return dst, fmt.Errorf("the Host header %q is not %q, the host this Verifier serves", host, v.Host)
		}
	}
	return appendURI(dst, scheme, host, path)
}

// checkSignature compares sig with the signature of base in constant time.
// Its error never says what the expected signature was.
func (s *state) checkSignature(method string, base []byte, sig string, c Registration, tokenSecret string) *ProblemError {
	invalid := func(err error) *ProblemError { return problem(ProblemSignatureInvalid, err) }
	rejected := func(err error) *ProblemError { return problem(ProblemSignatureMethodRejected, err) }
	if method == "PLAINTEXT" {
		if c.Secret == "" {
			return rejected(errors.New("no shared secret registered for the consumer")) // "&" would do
		}
		s.key = appendKey(s.key[:0], c.Secret, tokenSecret)
		ok := hmac.Equal(s.key, []byte(sig))
		clear(s.key)
		if !ok {
			return invalid(nil)
		}
		return nil
	}
	h, isRSA, ok := methodHash(method)
	if !ok {
		return rejected(fmt.Errorf("method %q is not supported", method))
	}
	if isRSA {
		if c.PublicKey == nil {
			return rejected(errors.New("no RSA public key registered for the consumer"))
		}
		raw, err := base64.StdEncoding.DecodeString(sig)
		if err != nil {
			return invalid(errors.New("oauth_signature is not base64"))
		}
		if err := checkHash(h); err != nil {
			return rejected(err)
		}
		d := h.New()
		d.Write(base)
		var sum [64]byte
		if rsa.VerifyPKCS1v15(c.PublicKey, h, d.Sum(sum[:0]), raw) != nil {
			return invalid(nil)
		}
		return nil
	}
	if c.Secret == "" {
		// An empty secret would make an HMAC anybody can compute.
		return rejected(errors.New("no shared secret registered for the consumer"))
	}
	s.key = appendKey(s.key[:0], c.Secret, tokenSecret)
	mac, err := HMAC{Hash: h}.new(s.key)
	clear(s.key)
	if err != nil {
		return rejected(err)
	}
	s.sig = appendHMAC(s.sig[:0], s.sum[:], mac, base)
	ok = hmac.Equal(s.sig, []byte(sig))
	clear(s.sig)
	if !ok {
		return invalid(nil)
	}
	return nil
}

// checkBodyHash compares oauth_body_hash with the hash of the body.
func (v *Verifier) checkBodyHash(s *state, r *http.Request, hasBody bool, got string, limit int64) error {
	raw, err := base64.StdEncoding.DecodeString(got)
	if err != nil {
		return problem(ProblemParameterRejected, errors.New("oauth_body_hash is not base64"), "oauth_body_hash")
	}
	h := v.BodyHash
	if h == 0 {
		switch len(raw) {
		case 20:
			h = crypto.SHA1
		case 32:
			h = crypto.SHA256
		case 64:
			h = crypto.SHA512
		default:
			return problem(ProblemParameterRejected, errors.New("oauth_body_hash has an unknown length"), "oauth_body_hash")
		}
	}
	if !h.Available() || h.Size() != len(raw) {
		return problem(ProblemParameterRejected, errors.New("oauth_body_hash is not a "+hashName(h)+" hash"), "oauth_body_hash")
	}
	if err := checkHash(h); err != nil {
		return problem(ProblemParameterRejected, err, "oauth_body_hash")
	}
	var body []byte
	if hasBody {
		if body, err = s.readBody(r, limit); err != nil {
			return err
		}
	}
	d := h.New()
	d.Write(body)
	var sum [64]byte
	if !hmac.Equal(d.Sum(sum[:0]), raw) {
		return &ProblemError{Problem: ProblemSignatureInvalid, Params: []string{"oauth_body_hash"}, Err: errors.New("the body does not match oauth_body_hash")}
	}
	return nil
}

// quoteEscaper makes a quoted-string of RFC 9110 §5.6.4.
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

type verificationKey struct{}

// VerificationFrom returns the Verification that [Verifier.Middleware]
// stored in the context of the request it passed on.
func VerificationFrom(ctx context.Context) (*Verification, bool) {
	v, ok := ctx.Value(verificationKey{}).(*Verification)
	return v, ok
}

// Middleware returns a handler that verifies each request and passes it on
// to next, with the [Verification] in its context (see [VerificationFrom]),
// or answers it with [Verifier.WriteError]. next can read the body.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ver, err := v.Verify(r)
		if err != nil {
			v.WriteError(w, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verificationKey{}, ver)))
	})
}

// WriteError answers a request that Verify refused. A [*ProblemError] gets
// its StatusCode, a WWW-Authenticate challenge with v.Realm and its Body as
// application/x-www-form-urlencoded; a body too large gets 413, a nonce
// store that failed ([ErrNonceStoreUnavailable], [ErrNonceStoreFull]) 503
// with Retry-After, and any other error 500, with no detail.
func (v *Verifier) WriteError(w http.ResponseWriter, err error) {
	var pe *ProblemError
	status, body := http.StatusInternalServerError, "oauth_problem=internal_error"
	switch {
	case errors.As(err, &pe):
		status, body = pe.StatusCode(), pe.Body()
		w.Header().Set("WWW-Authenticate", `OAuth realm="`+quoteEscaper.Replace(v.Realm)+`"`)
	case errors.Is(err, ErrBodyTooLarge):
		status, body = http.StatusRequestEntityTooLarge, "oauth_problem=parameter_rejected"
	case errors.Is(err, ErrNonceStoreUnavailable), errors.Is(err, ErrNonceStoreFull):
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "5") // seconds; a store outage or a burst is transient
	}
	w.Header().Set("Content-Type", formType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write([]byte(body))
}
