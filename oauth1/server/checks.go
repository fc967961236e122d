package server

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// Verify and its phases, in the order it runs them, each a method over
// what the earlier ones found; the Verifier and its settings are in
// verify.go.

// Verify checks the OAuth signature of r and returns what it found. A
// refused request is a [*ProblemError]; other errors come from the
// CredentialStore or the NonceStore, or are [oauth1.ErrBodyTooLarge].
//
// Verify reads a form-encoded body (and, for oauth_body_hash, any body) and
// replaces r.Body with an in-memory copy, so that the handler can still
// read it. The nonce is recorded only once everything else checks out: a
// refused request never uses up its nonce.
func (v *Verifier) Verify(r *http.Request) (*Verification, error) {
	if v.Store == nil {
		return nil, errors.New("oauth1: Verifier.Store is nil")
	}
	if r == nil || r.URL == nil {
		return nil, errors.New("oauth1: Verify: nil request or URL")
	}
	s := getState()
	defer putState(s)
	q := &found{s: s, r: r, limit: v.maxBodyBytes()}
	if err := q.collect(); err != nil {
		return nil, err
	}
	// A form body is read only for a consumer the store knows, when the
	// header or the query names it: else only a body can name it.
	if q.form && q.hasBody && q.sent&sentConsumerKey != 0 {
		if err := v.lookupConsumer(q); err != nil {
			return nil, err
		}
	}
	if err := q.collectBody(); err != nil {
		return nil, err
	}
	// Cheap checks first, then the lookups, the signature and the nonce.
	if err := v.checkRequired(q); err != nil {
		return nil, err
	}
	if err := v.checkTime(q); err != nil {
		return nil, err
	}
	if err := v.lookup(q); err != nil {
		return nil, err
	}
	if err := v.checkSigned(q); err != nil {
		return nil, err
	}
	if err := v.useNonce(q); err != nil {
		return nil, err
	}
	return q.verification(), nil
}

// found is what one verification has found so far in a request.
type found struct {
	s     *state
	r     *http.Request
	limit int64 // of the body read

	// s.proto holds the protocol parameters from all three places, with
	// realm; s.header the Authorization header's other parameters.

	form, hasBody bool

	// oauth_consumer_key, oauth_token, oauth_signature_method,
	// oauth_nonce, oauth_timestamp, oauth_version and oauth_body_hash, or
	// "" when absent; sent says which were sent.
	consumerKey, token, method, nonce string
	timestamp, version, bodyHash      string
	sig                               []byte // oauth_signature, decoded; pooled, in s
	sent                              uint8

	scheme string    // of the base string URI
	now    time.Time // the Verifier's clock, read once
	ts     int64     // oauth_timestamp, if hasTS
	hasTS  bool

	consumer        Registration
	foundConsumer   bool // consumer was looked up
	tokenSecret     string
	user            string // of the token, as its record says
	scope           string // of the token, as its record says
	base            []byte // the verified base string; pooled, in s
	builtToDiagnose bool   // base was built for DiagnoseKeys alone
	baseStr         string // a copy of base, once made
}

// The bits of found.sent: the protocol parameters the phases check for.
const (
	sentConsumerKey uint8 = 1 << iota
	sentMethod
	sentSignature
	sentTimestamp
	sentNonce
	sentVersion
	sentBodyHash
)

// state is the scratch space of one verification, pooled.
type state struct {
	wire.State
	proto      []oauth1.Param // the protocol parameters, with realm
	fromHeader int            // how many of proto the Authorization header sent
	header     []oauth1.Param // the Authorization header's other parameters
	dec        []byte         // what the header had to decode, and the signature
	large      bool           // it held a base string over maxPooledBase: not pooled
}

// maxPooledBase is the longest base string whose state is pooled, as
// wire.State.Reset bounds the buffers it sees.
const maxPooledBase = 2 << 20

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	// The parameters point into the request: not to be pinned in the pool.
	clear(s.header)
	clear(s.proto)
	// A form body grows the parameters as much as the base string would,
	// and a hostile header its parameters.
	if s.large || len(s.Form) > maxPooledBase || cap(s.header)+cap(s.proto) > 4*maxProtocolParams || cap(s.dec) > maxPooledDec || !s.Reset() {
		return
	}
	s.header, s.proto, s.dec = s.header[:0], s.proto[:0], s.dec[:0]
	statePool.Put(s)
}

// maxPooledDec bounds the decoded header values a pooled state keeps.
const maxPooledDec = 4 << 10

// collect reads the protocol parameters of the request's Authorization
// header and query; collectBody, those of a form body.
func (q *found) collect() error {
	var err error
	q.sig, q.form, q.hasBody, err = collectProtocol(q.s, q.r)
	if err != nil {
		return err
	}
	q.note(q.s.proto)
	return nil
}

// collectBody reads the protocol parameters of a form body, if the request
// has one.
func (q *found) collectBody() error {
	if !q.form || !q.hasBody {
		return nil
	}
	before, err := collectBody(q.s, q.r, q.limit)
	if err != nil {
		return err
	}
	q.note(q.s.proto[before:])
	return nil
}

// note records the values of ps, protocol parameters just collected, that
// every phase reads.
func (q *found) note(ps []oauth1.Param) {
	s := q.s
	for _, p := range ps {
		switch p.Name {
		case "oauth_consumer_key":
			q.consumerKey, q.sent = p.Value, q.sent|sentConsumerKey
		case "oauth_token":
			q.token = p.Value
		case "oauth_signature_method":
			q.method, q.sent = p.Value, q.sent|sentMethod
		case "oauth_signature":
			q.sent |= sentSignature
			if q.sig == nil { // not decoded from the header: copied into s.dec
				n := len(s.dec)
				s.dec = append(s.dec, p.Value...)
				q.sig = s.dec[n:len(s.dec):len(s.dec)]
			}
		case "oauth_timestamp":
			q.timestamp, q.sent = p.Value, q.sent|sentTimestamp
		case "oauth_nonce":
			q.nonce, q.sent = p.Value, q.sent|sentNonce
		case "oauth_version":
			q.version, q.sent = p.Value, q.sent|sentVersion
		case "oauth_body_hash":
			q.bodyHash, q.sent = p.Value, q.sent|sentBodyHash
		}
	}
}

// checkRequired checks oauth_version, that the parameters required are
// present, and that the signature method is accepted.
func (v *Verifier) checkRequired(q *found) error {
	if q.sent&sentVersion != 0 && q.version != "1.0" {
		return problem(oauth1.ProblemVersionRejected, fmt.Errorf("oauth_version %q", q.version))
	}
	method := q.method
	plain := method == "PLAINTEXT"
	var absent []string
	required := requiredParams[:]
	if plain {
		required = required[:3] // §3.1: PLAINTEXT may omit the timestamp and nonce
	}
	for _, p := range required {
		if q.sent&p.bit == 0 {
			absent = append(absent, p.name)
		}
	}
	if v.RequireToken && q.token == "" {
		absent = append(absent, "oauth_token")
	}
	hasBodyHash := q.sent&sentBodyHash != 0
	if hasBodyHash && q.form {
		return problem(oauth1.ProblemParameterRejected, errors.New("oauth_body_hash on a form-encoded body"), "oauth_body_hash")
	}
	if v.BodyHash != 0 && !q.form && !hasBodyHash {
		absent = append(absent, "oauth_body_hash")
	}
	if len(absent) > 0 {
		return problem(oauth1.ProblemParameterAbsent, nil, absent...)
	}
	methods := v.SignatureMethods
	if methods == nil {
		methods = defaultMethods
	}
	if !slices.Contains(methods, method) {
		return problem(oauth1.ProblemSignatureMethodRejected, fmt.Errorf("method %q is not accepted", method))
	}
	q.scheme = v.scheme(q.r)
	if plain && !v.AllowInsecurePlaintext && q.scheme != "https" {
		return problem(oauth1.ProblemSignatureMethodRejected, errors.New("PLAINTEXT needs https (RFC 5849 §3.4.4)")).advise("PLAINTEXT is accepted over https only.")
	}
	return nil
}

// requiredParams are the protocol parameters every request sends, in the
// order a refusal names the absent ones.
var requiredParams = [...]struct {
	name string
	bit  uint8
}{
	{"oauth_consumer_key", sentConsumerKey},
	{"oauth_signature_method", sentMethod},
	{"oauth_signature", sentSignature},
	{"oauth_timestamp", sentTimestamp},
	{"oauth_nonce", sentNonce},
}

// checkTime checks that oauth_timestamp, if sent, is within the window,
// and that a request with one has a nonce.
func (v *Verifier) checkTime(q *found) error {
	q.now = v.now()
	tsText, hasTS := q.timestamp, q.sent&sentTimestamp != 0
	if hasTS {
		ts, err := parseTimestamp(tsText)
		if err != nil {
			return problem(oauth1.ProblemParameterRejected, err, "oauth_timestamp")
		}
		w := v.window()
		lo, hi := q.now.Add(-w).Unix(), q.now.Add(w).Unix()
		if ts < lo || ts > hi {
			pe := problem(oauth1.ProblemTimestampRefused, nil).advise("oauth_timestamp is outside the acceptable range: check the client's clock.")
			pe.MinTimestamp, pe.MaxTimestamp = lo, hi
			return pe
		}
		q.ts, q.hasTS = ts, true
	}
	if hasTS && q.nonce == "" {
		return problem(oauth1.ProblemParameterRejected, errors.New("empty nonce"), "oauth_nonce")
	}
	// The NonceStore gets the nonce: none over SQL should see these.
	if hasTS && (len(q.nonce) > maxNonceLen || !lookupable(q.nonce)) {
		return problem(oauth1.ProblemParameterRejected, fmt.Errorf("a nonce longer than %d bytes, with a control character or not UTF-8", maxNonceLen), "oauth_nonce")
	}
	return nil
}

// lookup finds the consumer's registration, unless lookupConsumer found it
// already, and the token's secret.
func (v *Verifier) lookup(q *found) error {
	ctx := q.r.Context()
	consumerKey := q.consumerKey
	if !q.foundConsumer {
		if err := v.lookupConsumer(q); err != nil {
			return err
		}
	}
	// As for the consumer key in lookupConsumer.
	if !lookupable(q.token) {
		return problem(oauth1.ProblemTokenRejected, errors.New("the token holds a control character or is not UTF-8"))
	}
	if token := q.token; token != "" {
		t, err := v.Store.TokenCredentials(ctx, consumerKey, token, q.now) // on the clock read once
		if errors.Is(err, ErrTokenRevoked) {
			return problem(oauth1.ProblemTokenRevoked, err)
		} else if errors.Is(err, ErrNotFound) {
			return problem(oauth1.ProblemTokenRejected, err)
		} else if err != nil {
			return fmt.Errorf("oauth1: looking up the token: %w", err)
		}
		if t.ConsumerKey != consumerKey {
			return problem(oauth1.ProblemTokenRejected, errors.New("a token issued to another client"))
		}
		// An HMAC or PLAINTEXT key with an empty token secret is one that
		// whoever holds the consumer secret can make: a record that lost its
		// secret (to a json:"-" field, say) must not sign for its user.
		if _, isRSA, _ := mac.MethodHash(q.method); t.Secret == "" && !isRSA {
			return problem(oauth1.ProblemTokenRejected, errors.New("the store returned token credentials without a secret"))
		}
		q.tokenSecret, q.user, q.scope = t.Secret, t.User, t.Scope
	}
	return nil
}

// lookupConsumer finds the consumer's registration. Verify calls it before
// reading a form body when the Authorization header or the query sent
// oauth_consumer_key, so that a client nobody registered cannot make the
// provider read and hold a body.
func (v *Verifier) lookupConsumer(q *found) error {
	// No store has such a key, and a database may fail on one (a NUL in a
	// PostgreSQL text parameter): refused here, as unknown.
	if !lookupable(q.consumerKey) {
		return problem(oauth1.ProblemConsumerKeyUnknown, errors.New("the consumer key holds a control character or is not UTF-8"))
	}
	var err error
	q.consumer, err = v.Store.Consumer(q.r.Context(), q.consumerKey, q.now)
	if errors.Is(err, ErrNotFound) {
		return problem(oauth1.ProblemConsumerKeyUnknown, nil)
	} else if err != nil {
		return fmt.Errorf("oauth1: looking up the consumer key: %w", err)
	}
	q.foundConsumer = true
	return nil
}

// checkSigned rebuilds the base string and checks the signature, and the
// body hash where there is one or the Verifier requires one.
func (v *Verifier) checkSigned(q *found) error {
	s, r := q.s, q.r
	malformed := malformedSignature(q.method, q.sig, q.consumer)
	if malformed != nil && !v.worthBuilding(q, malformed) {
		return malformed
	}
	var err error
	if s.URI, err = v.baseURI(s.URI[:0], r, q.scheme); err != nil {
		return problem(oauth1.ProblemParameterRejected, err, "Host")
	}
	if err := s.receivedBase(r, q.limit); err != nil {
		if errors.Is(err, oauth1.ErrBodyTooLarge) {
			return err
		}
		return problem(oauth1.ProblemParameterRejected, err)
	}
	q.base = s.Base // pooled: what outlives Verify is a copy
	if malformed != nil {
		// Only with DiagnoseKeys: a signature in hex or unpadded base64
		// is a mistake KeyMistake names.
		malformed.BaseString = q.refusedBaseString()
		v.diagnose(q, malformed)
		return malformed
	}
	if err := s.checkSignature(q.method, q.base, q.sig, q.consumer, q.tokenSecret); err != nil {
		err.BaseString = q.refusedBaseString()
		v.diagnose(q, err)
		return err
	}
	bodyHash, hasBodyHash := q.bodyHash, q.sent&sentBodyHash != 0
	if hasBodyHash || (v.BodyHash != 0 && !q.form) {
		if err := v.checkBodyHash(s, r, q.hasBody, bodyHash, q.limit); err != nil {
			if pe, ok := err.(*ProblemError); ok {
				pe.BaseString = q.refusedBaseString()
			}
			return err
		}
	}
	return nil
}

// useNonce records the nonce of a request with a timestamp, and refuses
// one already recorded. A MemoryNonceStore (the default) is told the
// registration the request was verified with, so that it keeps the nonces
// of two tenants' clients apart when their consumer keys are alike.
func (v *Verifier) useNonce(q *found) error {
	if !q.hasTS {
		return nil
	}
	n := Nonce{ConsumerKey: q.consumerKey, Token: q.token, Value: q.nonce, Timestamp: q.ts}
	expires := time.Unix(q.ts, 0).Add(v.window() + time.Second)
	var fresh bool
	var err error
	if m, ok := v.nonceStore().(*MemoryNonceStore); ok && m != nil {
		m.once.Do(m.init)
		fresh, err = m.use(n, registration(m.seed, q.method, q.consumer), v.Store, q.now, expires)
	} else {
		fresh, err = v.nonceStore().Use(q.r.Context(), n, q.now, expires)
	}
	if err != nil {
		return fmt.Errorf("oauth1: recording the nonce: %w", err)
	}
	if !fresh {
		pe := problem(oauth1.ProblemNonceUsed, nil)
		pe.BaseString = q.refusedBaseString() // a replay is as hostile as any refusal
		return pe
	}
	return nil
}

// verification is what Verify returns for an accepted request.
func (q *found) verification() *Verification {
	n := 0
	for _, p := range q.s.proto {
		if p.Name != "oauth_signature" && p.Name != "realm" {
			n++
		}
	}
	// One allocation for the Verification and its parameters, but for
	// requests with more than a request usually has.
	var out *Verification
	if n <= len(verified{}.params) {
		w := new(verified)
		w.v.Params = w.params[:0]
		out = &w.v
	} else {
		out = &Verification{Params: make([]oauth1.Param, 0, n)}
	}
	out.ConsumerKey, out.Token, out.User, out.Scope = q.consumerKey, q.token, q.user, q.scope
	out.SignatureMethod, out.BaseString = q.method, q.baseString()
	for _, p := range q.s.proto { // the values are the request's, not pooled
		if p.Name != "oauth_signature" && p.Name != "realm" {
			out.Params = append(out.Params, p)
		}
	}
	return out
}

// verified is a Verification with room for its parameters.
type verified struct {
	v      Verification
	params [8]oauth1.Param
}

// maxRefusedBase is the longest base string a refusal keeps. Refusals are
// what hostile requests get, and a program may keep them (in a log queue,
// say); the base string of a form takes up to five times its body ("+" is
// "%2520"), so a bound on the body is none on the refusal. 64 KiB holds the
// base string of any request but a large form's.
const maxRefusedBase = 64 << 10

// maxPooledRefused is the longest base string of a refused request whose
// state is pooled: its parameters hold as much memory again.
const maxPooledRefused = 1 << 20

// refusedBaseString is baseString for a refused request: empty past
// maxRefusedBase.
func (q *found) refusedBaseString() string {
	if len(q.base) > maxRefusedBase {
		q.s.large = q.s.large || len(q.base) > maxPooledRefused
		return ""
	}
	return q.baseString()
}

// baseString returns the verified base string, copied out of the pooled
// state once.
func (q *found) baseString() string {
	if q.baseStr == "" && len(q.base) > 0 {
		q.baseStr = string(q.base)
		// The parameters behind a base string this long hold as much
		// memory: not to be pinned in the pool.
		q.s.large = len(q.base) > maxPooledBase
	}
	return q.baseStr
}
