package oauth1

import (
	"crypto"
	"hash"
	"sync"
	"sync/atomic"
	"weak"
)

// A macCache keeps keyed crypto/hmac states for a few signing keys, so that
// a Transport, a Config or a Verifier that signs with the same secrets again
// skips hmac.New: after its first Reset, crypto/hmac restores the keyed
// state without hashing the key again, and allocates nothing. A state is
// only ever used with the hash and secrets it was keyed with: they are its
// key in the cache. The states are worth no more than the secrets their
// owner holds already; sync.Pool drops them when unused.
type macCache struct {
	pools sync.Map // macKey → *sync.Pool of hash.Hash
	n     atomic.Int32
}

type macKey struct {
	hash   crypto.Hash
	cs, ts string
}

// macCacheKeys bounds the keys of one cache: a Verifier sees many clients,
// and a Config may sign for many tokens. Past it the cache starts again.
const macCacheKeys = 64

// appendSign appends s.Sign(base, cs, ts) to dst; key and sum are scratch
// space for the signing key and the MAC. A nil m signs with a fresh state.
func (m *macCache) appendSign(dst, key, sum []byte, s HMAC, base []byte, cs, ts string) ([]byte, error) {
	var pool *sync.Pool
	var mac hash.Hash
	if m != nil {
		pool = m.pool(macKey{s.Hash, cs, ts})
		mac, _ = pool.Get().(hash.Hash)
	}
	if mac == nil {
		key = appendKey(key[:0], cs, ts)
		var err error
		mac, err = s.new(key)
		clear(key)
		if err != nil {
			return dst, err
		}
	} else {
		mac.Reset() // back to the keyed state, without hashing the key
	}
	dst = appendHMAC(dst, sum, mac, base)
	if pool != nil {
		pool.Put(mac)
	}
	return dst, nil
}

func (m *macCache) pool(k macKey) *sync.Pool {
	if p, ok := m.pools.Load(k); ok {
		return p.(*sync.Pool)
	}
	if m.n.Add(1) > macCacheKeys {
		m.pools.Clear()
		m.n.Store(1)
	}
	p, _ := m.pools.LoadOrStore(k, new(sync.Pool))
	return p.(*sync.Pool)
}

// configMACs holds a macCache for each Config that signs with HMAC, keyed
// weakly: a Config can be copied and changed at will, and its states go
// with it. At most maxConfigMACs Configs have one: past that, the caches of
// Configs that are gone are dropped, or else an arbitrary one.
var configMACs struct {
	m  sync.Map   // weak.Pointer[Config] → *macCache
	mu sync.Mutex // held while adding
	n  int        // entries in m, under mu
}

const maxConfigMACs = 64

// macs returns c's cache.
func (c *Config) macs() *macCache {
	wp := weak.Make(c)
	if m, ok := configMACs.m.Load(wp); ok {
		return m.(*macCache)
	}
	configMACs.mu.Lock()
	defer configMACs.mu.Unlock()
	if m, ok := configMACs.m.Load(wp); ok {
		return m.(*macCache)
	}
	if configMACs.n >= maxConfigMACs {
		configMACs.m.Range(func(k, _ any) bool {
			if k.(weak.Pointer[Config]).Value() == nil { // a Config that is gone
				configMACs.m.Delete(k)
				configMACs.n--
			}
			return true
		})
		if configMACs.n >= maxConfigMACs { // all alive: make room
			configMACs.m.Range(func(k, _ any) bool {
				configMACs.m.Delete(k)
				configMACs.n--
				return false
			})
		}
	}
	m := new(macCache)
	configMACs.m.Store(wp, m)
	configMACs.n++
	return m
}
