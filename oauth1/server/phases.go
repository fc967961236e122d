package server

import (
	"errors"
	"fmt"
	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/wire"
	"net/http"
	"slices"
	"sync"
	"time"
)

// The phases of Verify, each a method over what the earlier ones found.

// found is what one verification has found so far in a request.
type found struct {
	s     *state
	r     *http.Request
	limit int64 // of the body read

	header []oauth1.Param // those of the Authorization header
	proto  []oauth1.Param // protocol parameters from all three places, with realm

	form, hasBody bool

	// oauth_consumer_key, oauth_token, oauth_signature_method,
	// oauth_signature and oauth_nonce, or "" when absent.
	consumerKey, token, method, signature, nonce string

	scheme string    // of the base string URI
	now    time.Time // the Verifier's clock, read once
	ts     int64     // oauth_timestamp, if hasTS
	hasTS  bool

	consumer    Registration
	tokenSecret string
	base        []byte // the verified base string; pooled, in s
	baseStr     string // a copy of base, once made
}

// get returns the protocol parameter name, and whether it was sent.
func (q *found) get(name string) (string, bool) {
	for _, p := range q.proto {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// collect reads the protocol parameters of the request.
func (q *found) collect() error {
	var err error
	q.header, q.proto, q.form, q.hasBody, err = collectProtocol(q.s, q.r, q.limit)
	for _, p := range q.proto { // the values every phase reads, found once
		switch p.Name {
		case "oauth_consumer_key":
			q.consumerKey = p.Value
		case "oauth_token":
			q.token = p.Value
		case "oauth_signature_method":
			q.method = p.Value
		case "oauth_signature":
			q.signature = p.Value
		case "oauth_nonce":
			q.nonce = p.Value
		}
	}
	return err
}

// checkRequired checks oauth_version, that the parameters required are
// present, and that the signature method is accepted.
func (v *Verifier) checkRequired(q *found) error {
	if ver, ok := q.get("oauth_version"); ok && ver != "1.0" {
		return problem(oauth1.ProblemVersionRejected, fmt.Errorf("oauth_version %q", ver))
	}
	method := q.method
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
		if val, ok := q.get(name); !ok || val == "" && name == "oauth_token" {
			absent = append(absent, name)
		}
	}
	_, hasBodyHash := q.get("oauth_body_hash")
	if hasBodyHash && q.form {
		return problem(oauth1.ProblemParameterRejected, errors.New("oauth_body_hash on a form-encoded body"), "oauth_body_hash")
	}
	if v.BodyHash != 0 && !q.form && !hasBodyHash {
		absent = append(absent, "oauth_body_hash")
	}
	if len(absent) > 0 {
		return problem(oauth1.ProblemParameterAbsent, nil, absent...)
	}
	methods := v.Methods
	if methods == nil {
		methods = defaultMethods
	}
	if !slices.Contains(methods, method) {
		return problem(oauth1.ProblemSignatureMethodRejected, fmt.Errorf("method %q is not accepted", method))
	}
	q.scheme = v.scheme(q.r)
	if plain && !v.AllowInsecurePlaintext && q.scheme != "https" {
		return problem(oauth1.ProblemSignatureMethodRejected, errors.New("PLAINTEXT needs https (RFC 5849 §3.4.4)"))
	}
	return nil
}

// checkTime checks that oauth_timestamp, if sent, is within the window,
// and that a request with one has a nonce.
func (v *Verifier) checkTime(q *found) error {
	q.now = v.now()
	tsText, hasTS := q.get("oauth_timestamp")
	if hasTS {
		ts, err := parseTimestamp(tsText)
		if err != nil {
			return problem(oauth1.ProblemParameterRejected, err, "oauth_timestamp")
		}
		w := v.window()
		lo, hi := q.now.Add(-w).Unix(), q.now.Add(w).Unix()
		if ts < lo || ts > hi {
			pe := problem(oauth1.ProblemTimestampRefused, nil)
			pe.MinTimestamp, pe.MaxTimestamp = lo, hi
			return pe
		}
		q.ts, q.hasTS = ts, true
	}
	if hasTS && q.nonce == "" {
		return problem(oauth1.ProblemParameterRejected, errors.New("empty nonce"), "oauth_nonce")
	}
	return nil
}

// lookup finds the consumer's registration and the token's secret.
func (v *Verifier) lookup(q *found) error {
	ctx := q.r.Context()
	consumerKey := q.consumerKey
	var err error
	q.consumer, err = v.Store.Consumer(ctx, consumerKey)
	if errors.Is(err, ErrNotFound) {
		return problem(oauth1.ProblemConsumerKeyUnknown, nil)
	} else if err != nil {
		return fmt.Errorf("oauth1: looking up the consumer key: %w", err)
	}
	if token := q.token; token != "" {
		q.tokenSecret, err = v.Store.TokenSecret(ctx, consumerKey, token)
		if errors.Is(err, ErrNotFound) {
			return problem(oauth1.ProblemTokenRejected, nil)
		} else if err != nil {
			return fmt.Errorf("oauth1: looking up the token: %w", err)
		}
	}
	return nil
}

// checkSigned rebuilds the base string and checks the signature, and the
// body hash where there is one or the Verifier requires one.
func (v *Verifier) checkSigned(q *found) error {
	s, r := q.s, q.r
	malformed := malformedSignature(q.method, q.signature, q.consumer)
	if malformed != nil && !v.DiagnoseKeys {
		return malformed
	}
	var err error
	if s.URI, err = v.baseURI(s.URI[:0], r, q.scheme); err != nil {
		return problem(oauth1.ProblemParameterRejected, err, "Host")
	}
	if err := s.receivedBase(r, q.header, q.limit); err != nil {
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
	if err := s.checkSignature(q.method, q.base, q.signature, q.consumer, q.tokenSecret); err != nil {
		err.BaseString = q.refusedBaseString()
		v.diagnose(q, err)
		return err
	}
	bodyHash, hasBodyHash := q.get("oauth_body_hash")
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

// diagnose names, if the Verifier's DiagnoseKeys asks for it, the mistake
// in the key of a request refused with signature_invalid. It runs only
// once the base string is kept (not past maxRefusedBase), which bounds
// what the HMACs cost.
func (v *Verifier) diagnose(q *found, pe *ProblemError) {
	if !v.DiagnoseKeys || pe.Problem != oauth1.ProblemSignatureInvalid || pe.BaseString == "" {
		return
	}
	m, wrong := basestring.KeyMistake(pe.BaseString, q.signature, q.method, basestring.Key{
		ConsumerKey: q.consumerKey, ConsumerSecret: q.consumer.Secret,
		Token: q.token, TokenSecret: q.tokenSecret,
		PublicKey: q.consumer.PublicKey,
	})
	if wrong {
		pe.KeyMistake = m
	}
}

// useNonce records the nonce of a request with a timestamp, and refuses
// one already recorded.
func (v *Verifier) useNonce(q *found) error {
	if !q.hasTS {
		return nil
	}
	n := Nonce{ConsumerKey: q.consumerKey, Token: q.token, Value: q.nonce, Timestamp: q.ts}
	fresh, err := v.nonceStore().Use(q.r.Context(), n, q.now, time.Unix(q.ts, 0).Add(v.window()+time.Second))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNonceStoreUnavailable, err)
	}
	if !fresh {
		pe := problem(oauth1.ProblemNonceUsed, nil)
		pe.BaseString = q.baseString()
		return pe
	}
	return nil
}

// maxRefusedBase is the longest base string a refusal keeps: a copy costs
// as much memory again, and refusals are what hostile requests get.
const maxRefusedBase = 1 << 20

// refusedBaseString is baseString for a refused request: empty past
// maxRefusedBase.
func (q *found) refusedBaseString() string {
	if len(q.base) > maxRefusedBase {
		q.s.large = true
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

// verification is what Verify returns for an accepted request.
func (q *found) verification() *Verification {
	out := &Verification{
		ConsumerKey: q.consumerKey, Token: q.token,
		SignatureMethod: q.method, BaseString: q.baseString(),
	}
	out.Params = q.proto[:0] // proto is this call's own, not pooled: filtered in place
	for _, p := range q.proto {
		if p.Name != "oauth_signature" && p.Name != "realm" {
			out.Params = append(out.Params, p)
		}
	}
	return out
}

// state is the scratch space of one verification, pooled.
type state struct {
	wire.State
	large bool // it held a base string over maxPooledBase: not pooled
}

// maxPooledBase is the longest base string whose state is pooled, as
// wire.State.Reset bounds the buffers it sees.
const maxPooledBase = 2 << 20

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	// A form body grows the parameters as much as the base string would.
	if !s.large && len(s.Form) <= maxPooledBase && s.Reset() {
		statePool.Put(s)
	}
}
