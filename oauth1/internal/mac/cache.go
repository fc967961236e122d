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
// secrets it was keyed with, which are its key. The states are worth no
// more than the secrets their callers hold already; past maxKeys an entry
// is evicted for each new one. A state is held by one signer at a time: a
// concurrent signer with the same key keys one of its own, which is
// dropped unless the entry is empty when it is done. (A sync.Pool per key
// lost every state at each garbage collection, so that signing for many
// tokens keyed afresh most of the time.)
var cache struct {
	last atomic.Pointer[entry] // the entry used last: one client signing again
	mu   sync.Mutex
	m    map[cacheKey]*entry
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
		if len(cache.m) >= maxKeys {
			for old := range cache.m {
				delete(cache.m, old)
				break
			}
		}
		e = &entry{key: k}
		cache.m[k] = e
	}
	cache.mu.Unlock()
	cache.last.Store(e)
	return e
}

// AppendSign appends the base64 HMAC of base with hash h, keyed with the
// secrets cs and ts (§3.4.2), reusing a keyed state when one is cached. key
// and sum are scratch space for the signing key and the MAC.
func AppendSign(dst, key, sum []byte, h crypto.Hash, base []byte, cs, ts string) ([]byte, error) {
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
	dst = AppendHMAC(dst, sum, k, base)
	e.state.CompareAndSwap(nil, k)
	return dst, nil
}
