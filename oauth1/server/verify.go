package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/mac"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// Verification is what a [Verifier] found in a request it accepted.
type Verification struct {
	ConsumerKey     string // oauth_consumer_key
	Token           string // oauth_token; empty for two-legged and temporary credential requests
	SignatureMethod string // oauth_signature_method, such as "HMAC-SHA1"

	// User is the resource owner the token credentials belong to, as the
	// CredentialStore's record of the token says (for a [Provider], who
	// approved them); empty for requests without a token.
	User string

	// Scope is what the grant of the token credentials is for, as the
	// CredentialStore's record of the token says (for a [Provider], as
	// the resource owner approved it); empty for requests without a token.
	Scope string

	// Params holds every protocol parameter of the request except
	// oauth_signature, decoded, wherever it was sent, in the order
	// received: oauth_callback and oauth_verifier, for the endpoints of
	// §2, are read from here.
	Params []oauth1.Param

	BaseString string // the signature base string that was verified
}

// param returns the value of the parameter name in ps, or "".
func param(ps []oauth1.Param, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// defaultWindow is the timestamp window of a Verifier whose Window is zero.
const defaultWindow = 5 * time.Minute

// defaultMethods are the signature methods a Verifier accepts when its
// SignatureMethods field is nil; PLAINTEXT is not among them. Unexported, so that no
// package can change what every other Verifier accepts.
var defaultMethods = []string{"HMAC-SHA1", "HMAC-SHA256", "HMAC-SHA512", "RSA-SHA1", "RSA-SHA256", "RSA-SHA512"}

// A Verifier checks OAuth 1.0a signed requests on the provider side: the
// protocol parameters, the signature (recomputing the base string with the
// code that signs requests, and comparing in constant time), the timestamp
// window and, through a [NonceStore], that the request is not a replay.
//
// Only Store is required. A Verifier is safe for concurrent use and must
// not be modified after first use; it holds no lock or cache of its own, so
// copying one, to derive a Verifier with other settings, is fine: a copy
// refuses the replays of what the original accepted (see Nonces).
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
	// Store looks up consumer secrets, public keys and token secrets.
	Store CredentialStore

	// Settings are how requests are verified: the clock, timestamp
	// window, signature methods, nonce store, scheme, host and the rest;
	// the zero value means the defaults. They are embedded, so that
	// v.Window reads as a field of the Verifier.
	Settings

	// Observe, if set, is called by Middleware for every request, before
	// the answer is written: v is what Verify found, nil if it refused
	// the request; err is why, if it did. Refusals are answered with as
	// little detail as the protocol allows, and errors that are not the
	// client's (a store down, a Verifier without Store) with none: log
	// them here. A [*ProblemError]'s BaseString and KeyMistake, never
	// sent to the client (the BaseString is, with SendBaseString), are
	// worth logging too. Verify itself does not call it.
	Observe func(r *http.Request, v *Verification, err error)
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
	return defaultWindow
}

func (v *Verifier) nonceStore() NonceStore {
	if v.Nonces != nil {
		return v.Nonces
	}
	return &defaultNonces
}

func (v *Verifier) maxBodyBytes() int64 { return wire.BodyLimit(v.MaxBodyBytes) }

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

// tenantOf returns the fingerprint, under seed, of the tenant a Verifier
// with store serves: of the store itself, its address if it is a pointer
// or a map, its value if that is comparable, so that the Verifiers built
// on one store (copies, one per request, a Provider's three) charge the
// registrations of a consumer key to one share. A store of any other kind
// (a func, a value holding a slice) has no identity to take, and tenant
// returns zero: each registration is then a tenant of its own, as before
// clients were charged by key.
func tenantOf(seed maphash.Seed, store CredentialStore) uint64 {
	var v reflect.Value
	if t, ok := store.(interface{ tenant() any }); ok {
		v = reflect.ValueOf(t.tenant())
	} else {
		v = reflect.ValueOf(store)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		// The address alone: no other store lives there meanwhile.
		return uint64(v.Pointer()) | 1
	case reflect.Invalid:
		return 0
	}
	var h maphash.Hash
	h.SetSeed(seed)
	if !writeIdentity(&h, v, 0) {
		return 0
	}
	return h.Sum64() | 1
}

// writeIdentity writes what makes v the value it is to h, its type and
// its comparable contents, without allocating (as maphash.Comparable does
// for an interface). It reports false for a value that has no identity to
// take, or more than a few levels or fields.
func writeIdentity(h *maphash.Hash, v reflect.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	var buf [8]byte
	w := uint64(0)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.UnsafePointer:
		w = uint64(v.Pointer())
	case reflect.Bool:
		if v.Bool() {
			w = 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w = uint64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w = v.Uint()
	case reflect.String:
		h.WriteString(v.String())
		w = uint64(v.Len())
	case reflect.Struct, reflect.Interface:
		if v.Kind() == reflect.Interface {
			if v.IsNil() {
				break
			}
			v = v.Elem()
		}
		// The type's descriptor, by address: two types alike in shape
		// and value are still two stores.
		binary.LittleEndian.PutUint64(buf[:], uint64(reflect.ValueOf(v.Type()).Pointer()))
		h.Write(buf[:])
		if v.Kind() != reflect.Struct {
			return writeIdentity(h, v, depth+1)
		}
		if v.NumField() > 16 {
			return false
		}
		for i := range v.NumField() {
			if !writeIdentity(h, v.Field(i), depth+1) {
				return false
			}
		}
		return true
	case reflect.Array:
		if v.Len() > 16 {
			return false
		}
		for i := range v.Len() {
			if !writeIdentity(h, v.Index(i), depth+1) {
				return false
			}
		}
		return true
	default: // a func, a slice, a float: no identity to take
		return false
	}
	binary.LittleEndian.PutUint64(buf[:], w)
	h.Write(buf[:])
	return true
}

// registration returns the fingerprint, under seed, of what a request
// signed with method was verified with: the consumer secret for HMAC and
// PLAINTEXT, the public key for RSA. It is never zero, which is
// MemoryNonceStore.Use's, and never leaves the process.
//
// A keyed 64-bit hash suffices: the secrets are the store's, not the
// client's to choose, and a collision would only let two registrations of
// one consumer key share their nonces, as every registration did before;
// no replay is accepted for it.
func registration(seed maphash.Seed, method string, r Registration) uint64 {
	_, isRSA, _ := mac.MethodHash(method)
	if !isRSA || r.PublicKey == nil || r.PublicKey.N == nil {
		return maphash.String(seed, r.Secret) | 1
	}
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteByte('k')
	var buf [64]byte
	b := buf[:0]
	for _, w := range r.PublicKey.N.Bits() {
		if len(b) == len(buf) {
			h.Write(b)
			b = b[:0]
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(w))
	}
	h.Write(b)
	h.Write(strconv.AppendInt(buf[:0], int64(r.PublicKey.E), 10))
	return h.Sum64() | 1
}
