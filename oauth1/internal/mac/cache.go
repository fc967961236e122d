package mac

import (
	"crypto"
	"hash"
	"sync"
	"sync/atomic"
)

// The cache keeps keyed crypto/hmac states, one per hash and pair of
// secrets, shared by every signer and verifier in the program: after its
// first Reset, crypto/hmac restores the keyed state without hashing the key
// again, and allocates nothing. A state is only ever used with the hash and
// secrets it was keyed with, which are its key. A state is held by one
// signer at a time: a concurrent signer with the same key keys one of its
// own, which is dropped unless the entry is empty when it is done. (A
// sync.Pool per key lost every state at each garbage collection, so that
// signing for many tokens keyed afresh most of the time.)
//
// The cache holds at most maxKeys keys and drops them in the order they
// came, so a secret, and the state keyed with it, leaves the cache once
// maxKeys other keys have come in after it, however often it was used: a
// rotated secret does not linger for a random time. A key still in use
// comes back at the cost of keying one state.
var cache struct {
	last atomic.Pointer[entry] // the entry used last: one client signing again
	mu   sync.Mutex
	m    map[cacheKey]*entry
	ring []*entry // the entries in the order they came, oldest at next
	next int
}

type cacheKey struct {
	hash   crypto.Hash
	cs, ts string
}

type entry struct {
	key   cacheKey
	state atomic.Pointer[keyed] // nil while a signer holds it
}

type keyed struct{ hash.Hash }

// maxKeys bounds the cache: many tenants, tokens or clients each keep their
// states up to it.
const maxKeys = 1024

func lookup(k cacheKey) *entry {
	if e := cache.last.Load(); e != nil && e.key == k {
		return e
	}
	cache.mu.Lock()
	e := cache.m[k]
	if e == nil {
		if cache.m == nil {
			cache.m = make(map[cacheKey]*entry)
		}
		e = &entry{key: k}
		cache.m[k] = e
		if len(cache.ring) < maxKeys {
			cache.ring = append(cache.ring, e)
		} else {
			delete(cache.m, cache.ring[cache.next].key)
			cache.ring[cache.next] = e
			cache.next = (cache.next + 1) % maxKeys
		}
	}
	cache.mu.Unlock()
	cache.last.Store(e)
	return e
}

// AppendSign appends the base64 HMAC of base with hash h, keyed with the
// secrets cs and ts (§3.4.2), reusing a keyed state when one is cached. key
// and sum are scratch space for the signing key and the MAC.
func AppendSign(dst, key, sum []byte, h crypto.Hash, base []byte, cs, ts string) ([]byte, error) {
	return appendMAC(dst, key, sum, h, base, cs, ts, true)
}

// AppendSum is AppendSign for the HMAC itself, not its base64: a verifier
// compares it with the signature decoded.
func AppendSum(dst, key []byte, h crypto.Hash, base []byte, cs, ts string) ([]byte, error) {
	return appendMAC(dst, key, nil, h, base, cs, ts, false)
}

func appendMAC(dst, key, sum []byte, h crypto.Hash, base []byte, cs, ts string, encode bool) ([]byte, error) {
	if h == 0 {
		h = crypto.SHA1
	}
	e := lookup(cacheKey{h, cs, ts})
	k := e.state.Swap(nil)
	if k == nil {
		key = AppendKey(key[:0], cs, ts)
		m, err := New(h, key)
		clear(key)
		if err != nil {
			return dst, err
		}
		k = &keyed{m}
	} else {
		k.Reset() // back to the keyed state, without hashing the key
	}
	if encode {
		dst = AppendHMAC(dst, sum, k, base)
	} else {
		k.Write(base)
		dst = k.Sum(dst)
	}
	e.state.CompareAndSwap(nil, k)
	return dst, nil
}
