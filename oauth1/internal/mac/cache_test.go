package mac

import (
	"crypto"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"strconv"
	"sync"
	"testing"
)

// Signers sharing keys at once, and more keys than the cache holds: every
// signature is the one crypto/hmac computes from the secrets, so a state is
// never used with another key and never by two signers at a time.
func TestAppendSignConcurrent(t *testing.T) {
	hashes := map[crypto.Hash]func() hash.Hash{crypto.SHA1: sha1.New, crypto.SHA256: sha256.New}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var key []byte
			var sum [64]byte
			for i := range 3000 {
				k := (i * (g + 1)) % (maxKeys + 200) // some keys shared, some evicted
				h := crypto.SHA1
				if k%2 == 1 {
					h = crypto.SHA256
				}
				cs, ts := "c&s"+strconv.Itoa(k), "t s"+strconv.Itoa(k%7)
				base := []byte("GET&x&" + strconv.Itoa(i))
				got, err := AppendSign(nil, key, sum[:], h, base, cs, ts)
				if err != nil {
					t.Error(err)
					return
				}
				m := hmac.New(hashes[h], []byte("c%26s"+strconv.Itoa(k)+"&t%20s"+strconv.Itoa(k%7)))
				m.Write(base)
				if want := base64.StdEncoding.EncodeToString(m.Sum(nil)); string(got) != want {
					t.Errorf("key %d: AppendSign = %s, want %s", k, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A secret leaves the cache once maxKeys other keys have come in after it,
// however often it is used meanwhile, and not before.
func TestCacheDropsKeysInOrder(t *testing.T) {
	cache.mu.Lock()
	cache.m, cache.ring, cache.next = nil, nil, 0
	cache.mu.Unlock()
	cache.last.Store(nil)

	held := func(k cacheKey) bool {
		cache.mu.Lock()
		defer cache.mu.Unlock()
		return cache.m[k] != nil
	}
	old := cacheKey{crypto.SHA1, "old consumer secret", "old token secret"}
	var sum [64]byte
	for i := range 3 * maxKeys {
		if i%maxKeys == 0 {
			old.ts = "old token secret " + strconv.Itoa(i)
		}
		if _, err := AppendSign(nil, nil, sum[:], old.hash, []byte("base"), old.cs, old.ts); err != nil {
			t.Fatal(err)
		}
		lookup(cacheKey{crypto.SHA256, "cs", strconv.Itoa(i)})
		if got, want := held(old), i%maxKeys < maxKeys-1; got != want {
			t.Fatalf("after %d other keys: key held = %v, want %v", i%maxKeys+1, got, want)
		}
	}
	cache.mu.Lock()
	n := len(cache.m)
	cache.mu.Unlock()
	if n > maxKeys {
		t.Fatalf("cache holds %d keys, more than %d", n, maxKeys)
	}
}
