package oauth1

import (
	"crypto"
	"hash"
	"sync"
)

// A macCache keeps keyed crypto/hmac states for a Transport, whose secrets
// do not change between requests. After its first Reset, crypto/hmac
// restores the keyed state without hashing the key again, which saves the
// two key blocks every fresh hmac.New pays. The states hold nothing that the
// Transport's Config does not hold already.
type macCache struct {
	pool sync.Pool // of *keyedMAC
}

type keyedMAC struct {
	hash   crypto.Hash
	cs, ts string // the secrets the state is keyed with
	mac    hash.Hash
}

// appendSign appends s.Sign(base, cs, ts) to dst, with a cached keyed
// state; key and sum are scratch space for the signing key and the MAC.
func (m *macCache) appendSign(dst, key, sum []byte, s HMAC, base []byte, cs, ts string) ([]byte, error) {
	k, _ := m.pool.Get().(*keyedMAC)
	if k == nil || k.hash != s.Hash || k.cs != cs || k.ts != ts {
		key = appendKey(key[:0], cs, ts)
		mac, err := s.new(key)
		clear(key)
		if err != nil {
			return dst, err
		}
		k = &keyedMAC{hash: s.Hash, cs: cs, ts: ts, mac: mac}
	} else {
		k.mac.Reset() // back to the keyed state, without hashing the key
	}
	dst = appendHMAC(dst, sum, k.mac, base)
	m.pool.Put(k)
	return dst, nil
}
