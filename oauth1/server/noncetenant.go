package server

import (
	"encoding/binary"
	"hash/maphash"
	"reflect"
	"strconv"

	"github.com/countersign/countersign/oauth1/internal/mac"
)

// How the in-memory nonce store tells tenants and registrations apart:
// fingerprints under a per-process seed, never the secrets themselves.

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
