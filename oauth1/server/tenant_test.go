package server

import (
	"context"
	"crypto"
	"crypto/rsa"
	"errors"
	"fmt"
	"hash/maphash"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
)

// tenantNonce returns a nonce no other test of the process uses, since the
// tests below record theirs in the process-wide default store.
func tenantNonce(t *testing.T, s string) string {
	return fmt.Sprintf("%s/%s/%d", t.Name(), s, time.Now().UnixNano())
}

// tenantRequest signs a two-legged request to https://api.example.com/r for
// the consumer key "acme" with signer and secret, at xTimestamp.
func tenantRequest(t *testing.T, signer oauth1.Signer, secret, nonce string) *http.Request {
	t.Helper()
	r, err := http.NewRequest("GET", "https://api.example.com/r", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &oauth1.Config{ConsumerKey: "acme", ConsumerSecret: secret, Signer: signer}
	if err := c.SignAt(r, nil, time.Unix(xTimestamp, 0), nonce); err != nil {
		t.Fatal(err)
	}
	return received(t, r)
}

// tenantVerifier is one tenant's Verifier: its own registrations, the
// default nonce store.
func tenantVerifier(consumers Consumers) *Verifier {
	return &Verifier{Store: consumers, Settings: Settings{
		Now:              func() time.Time { return time.Unix(xTimestamp+10, 0) },
		SignatureMethods: []string{"HMAC-SHA1", "HMAC-SHA256", "RSA-SHA1", "RSA-SHA256", "PLAINTEXT"},
	}}
}

// TestTenantsShareNoNonces has two tenants of one process, each with a
// Verifier whose Nonces is nil, whose clients both registered the consumer
// key "acme", with other secrets or keys: a nonce that one tenant's acme
// used is fresh at the other's, and each still refuses its own replays.
// Tenants whose acme holds the same credentials are one client: a request
// accepted at one is a replay at the other. (Before the default store kept
// nonces by registration, the second tenant refused the nonce as a replay.)
func TestTenantsShareNoNonces(t *testing.T) {
	rsaA, rsaB := testRSAKey, otherRSAKey(t)
	tests := []struct {
		name             string
		signerA, signerB oauth1.Signer
		regA, regB       Registration
		secretA, secretB string
		sameClient       bool
	}{
		{"HMAC-SHA1", oauth1.HMAC{}, oauth1.HMAC{}, Registration{Secret: "tenant A secret"}, Registration{Secret: "tenant B secret"}, "tenant A secret", "tenant B secret", false},
		{"HMAC-SHA256", oauth1.HMAC{Hash: crypto.SHA256}, oauth1.HMAC{Hash: crypto.SHA256}, Registration{Secret: "a"}, Registration{Secret: "b"}, "a", "b", false},
		{"PLAINTEXT", oauth1.Plaintext{}, oauth1.Plaintext{}, Registration{Secret: "pa"}, Registration{Secret: "pb"}, "pa", "pb", false},
		{"RSA-SHA1", oauth1.RSA{Key: rsaA}, oauth1.RSA{Key: rsaB}, Registration{PublicKey: &rsaA.PublicKey}, Registration{PublicKey: &rsaB.PublicKey}, "", "", false},
		// The same secret, and a public key at one tenant only: an HMAC
		// request is valid at both, so its nonce is one.
		{"same HMAC credentials", oauth1.HMAC{}, oauth1.HMAC{}, Registration{Secret: "shared", PublicKey: &rsaA.PublicKey}, Registration{Secret: "shared"}, "shared", "shared", true},
		// The same key, parsed anew for each lookup, at both tenants.
		{"same RSA key", oauth1.RSA{Key: rsaA}, oauth1.RSA{Key: rsaA}, Registration{PublicKey: &rsaA.PublicKey}, Registration{Secret: "other", PublicKey: copyKey(&rsaA.PublicKey)}, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tenantVerifier(Consumers{"acme": tt.regA})
			b := tenantVerifier(Consumers{"acme": tt.regB})
			nonce := tenantNonce(t, "n")
			if _, err := a.Verify(tenantRequest(t, tt.signerA, tt.secretA, nonce)); err != nil {
				t.Fatalf("tenant A: %v", err)
			}
			_, err := b.Verify(tenantRequest(t, tt.signerB, tt.secretB, nonce))
			if tt.sameClient {
				var pe *ProblemError
				if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
					t.Errorf("the same client's request at tenant B, after A accepted it: %v; want nonce_used", err)
				}
				return
			}
			if err != nil {
				t.Errorf("tenant B's acme, with the nonce tenant A's acme used: %v; want accepted", err)
			}
			// Each tenant still refuses a replay, and so does a copy of it.
			for name, v := range map[string]*Verifier{"A": a, "B": b} {
				signer, secret := tt.signerA, tt.secretA
				if name == "B" {
					signer, secret = tt.signerB, tt.secretB
				}
				copied := *v
				var pe *ProblemError
				if _, err := copied.Verify(tenantRequest(t, signer, secret, nonce)); !errors.As(err, &pe) || pe.Problem != oauth1.ProblemNonceUsed {
					t.Errorf("a replay at tenant %s: %v; want nonce_used", name, err)
				}
			}
		})
	}
}

// TestTenantFloodDoesNotRefuseOtherTenant has tenant A's acme flood the
// default nonce store (its share lowered for the test) until it is answered
// 503, while tenant B's acme, another client with the same consumer key,
// is served. (Before, B's acme shared A's share, and got 503 too.)
func TestTenantFloodDoesNotRefuseOtherTenant(t *testing.T) {
	defaultNonces.MaxNoncesPerConsumer = 16
	t.Cleanup(func() { defaultNonces.MaxNoncesPerConsumer = 0 })
	serve := func(v *Verifier, r *http.Request) int {
		w := httptest.NewRecorder()
		v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
		return w.Code
	}
	a := tenantVerifier(Consumers{"acme": {Secret: "flooding tenant's secret " + t.Name()}})
	b := tenantVerifier(Consumers{"acme": {Secret: "honest tenant's secret " + t.Name()}})
	codes := map[int]int{}
	for i := range 24 {
		codes[serve(a, tenantRequest(t, oauth1.HMAC{}, "flooding tenant's secret "+t.Name(), tenantNonce(t, strconv.Itoa(i))))]++
	}
	if codes[http.StatusOK] > 16 || codes[http.StatusServiceUnavailable] < 8 {
		t.Fatalf("tenant A's flood of 24 with a share of 16: %v; want at most 16 × 200, then 503", codes)
	}
	codes = map[int]int{}
	for i := range 8 {
		codes[serve(b, tenantRequest(t, oauth1.HMAC{}, "honest tenant's secret "+t.Name(), tenantNonce(t, strconv.Itoa(i))))]++
	}
	if codes[http.StatusOK] != 8 {
		t.Errorf("tenant B's acme during tenant A's flood: %v; want 8 × 200", codes)
	}
}

// copyKey returns a copy of k, as a store that parses a key per lookup
// returns.
func copyKey(k *rsa.PublicKey) *rsa.PublicKey {
	c := *k
	c.N = new(big.Int).Set(k.N)
	return &c
}

// floodUntilRefused records fresh nonces of consumer in m until one is
// refused (at most limit), and returns how many it accepted. It may run on
// a goroutine of its own.
func floodUntilRefused(t *testing.T, m *MemoryNonceStore, consumer string, now time.Time, limit int) int {
	t.Helper()
	for i := range limit {
		ok, err := m.Use(context.Background(), Nonce{ConsumerKey: consumer, Value: strconv.Itoa(i), Timestamp: now.Unix()}, now, now.Add(5*time.Minute))
		if err != nil {
			if !errors.Is(err, errNonceStoreFull) {
				t.Errorf("flood from %s: %v", consumer, err)
			}
			return i
		}
		if !ok {
			t.Errorf("flood from %s: nonce %d refused as a replay", consumer, i)
			return i
		}
	}
	return limit
}

// TestFloodersDoNotRefuseALightClient has 8, 16 and 64 clients flood a
// store of 65,536 nonces, one after the other, each until refused, and
// then a client that sends a few requests: it is served. (Before fair
// refusal, eight clients at their share, an eighth each, filled the store,
// and the ninth was refused from its first nonce.)
func TestFloodersDoNotRefuseALightClient(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, flooders := range []int{8, 16, 64} {
		m := &MemoryNonceStore{MaxNonces: 1 << 16}
		held := 0
		for i := range flooders {
			held += floodUntilRefused(t, m, fmt.Sprint("flooder", i), now, 1<<16)
		}
		light := floodUntilRefused(t, m, "light", now, 50)
		t.Logf("%d flooders hold %d of %d nonces; the light client stored %d of 50", flooders, held, 1<<16, light)
		if light != 50 {
			t.Errorf("%d flooders: the light client stored %d of its 50 nonces, want all", flooders, light)
		}
		// A flooder is still refused, and its replays are replays.
		if ok, err := m.Use(context.Background(), Nonce{ConsumerKey: "flooder0", Value: "more", Timestamp: now.Unix()}, now, now.Add(5*time.Minute)); ok || !errors.Is(err, errNonceStoreFull) {
			t.Errorf("%d flooders: flooder0 again = %v, %v; want ErrStoreFull", flooders, ok, err)
		}
		if ok, err := m.Use(context.Background(), Nonce{ConsumerKey: "flooder0", Value: "0", Timestamp: now.Unix()}, now, now.Add(5*time.Minute)); ok || err != nil {
			t.Errorf("%d flooders: flooder0's first nonce again = %v, %v; want a replay", flooders, ok, err)
		}
	}
}

// TestVerifierFloodersDoNotRefuseAnother has eight registered clients
// flood a Verifier's store, with valid requests, until each is answered
// 503; a ninth client is then served.
func TestVerifierFloodersDoNotRefuseAnother(t *testing.T) {
	consumers := Consumers{"ninth": {Secret: "ninth secret"}}
	for i := range 8 {
		consumers[fmt.Sprint("flooder", i)] = Registration{Secret: fmt.Sprint("secret", i)}
	}
	v := tenantVerifier(consumers)
	v.Nonces = &MemoryNonceStore{MaxNonces: 1 << 13}
	h := v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	request := func(key, secret string, i int) *http.Request {
		r, err := http.NewRequest("GET", "https://api.example.com/r", nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret}
		if err := c.SignAt(r, nil, time.Unix(xTimestamp, 0), strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
		return received(t, r)
	}
	serve := func(r *http.Request) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	served := 0
	for f := range 8 {
		for i := 0; ; i++ {
			code := serve(request(fmt.Sprint("flooder", f), fmt.Sprint("secret", f), i))
			if code == http.StatusServiceUnavailable {
				break
			}
			if code != http.StatusOK || i > 1<<13 {
				t.Fatalf("flooder %d, request %d: %d", f, i, code)
			}
			served++
		}
	}
	codes := map[int]int{}
	for i := range 8 {
		codes[serve(request("ninth", "ninth secret", i))]++
	}
	t.Logf("eight flooders served %d requests of a store of %d nonces; the ninth client: %v", served, 1<<13, codes)
	if codes[http.StatusOK] != 8 {
		t.Errorf("the ninth client after eight flooders: %v; want 8 × 200", codes)
	}
}

// TestMemoryNonceStoreFairShare floods a store of 16,384 nonces from 20
// clients, one after another, and then from clients that stay under their
// floor until it is full, and compares what each got with a model of the
// rule MemoryNonceStore documents (Fair refusal): a floor of a 1024th of
// MaxNonces (16), three quarters of it (12,288) for clients at or over
// their floor, each taking no more than it leaves, a share of an eighth.
func TestMemoryNonceStoreFairShare(t *testing.T) {
	const limit = 1 << 14
	const floor, pool, share = limit / 1024, limit * 3 / 4, limit / 8
	now := time.Unix(1e9, 0)
	m := &MemoryNonceStore{MaxNonces: limit}
	total, clients := 0, 0
	model := func(under bool) int {
		clients++
		held := 0
		for held < share && (!under || held < floor) {
			room := limit
			if held >= floor && clients > 1 {
				room = pool - held
			}
			if total >= room {
				break
			}
			held++
			total++
		}
		return held
	}
	for f := range 20 {
		want := model(false)
		if got := floodUntilRefused(t, m, fmt.Sprint("flooder", f), now, limit); got != want {
			t.Errorf("flooder %d stored %d nonces, want %d", f, got, want)
		}
	}
	// Past the pool, each flooder took its floor at most, as a client under
	// its floor may.
	flooders := total
	if flooders > pool+20*floor {
		t.Errorf("the model's flooders hold %d, over the pool of %d and their floors", flooders, pool)
	}
	light := 0
	for total < limit {
		want := model(true)
		if got := floodUntilRefused(t, m, fmt.Sprint("light", light), now, floor); got != want {
			t.Fatalf("light client %d stored %d nonces, want %d", light, got, want)
		}
		light++
	}
	if light+20 < (limit-pool)/floor {
		t.Errorf("%d light clients and 20 flooders filled the last quarter, want at least %d clients", light, (limit-pool)/floor)
	}
	if ok, err := m.Use(context.Background(), Nonce{ConsumerKey: "late", Value: "x", Timestamp: now.Unix()}, now, now.Add(time.Minute)); ok || err != errNonceStoreFull {
		t.Errorf("a new client in the full store = %v, %v; want errNonceStoreFull", ok, err)
	}
	t.Logf("20 flooders hold %d nonces of %d; then %d light clients filled the store", flooders, limit, light)
}

// TestFloodersAtOnceDoNotRefuseALightClient has 16 clients flood a store
// of 16,384 nonces all at once, each from a goroutine of its own, while a
// light client records a nonce between each of their rounds: every one of
// the light client's nonces is stored, and the store stays within its
// bound.
func TestFloodersAtOnceDoNotRefuseALightClient(t *testing.T) {
	const limit = 1 << 14
	m := &MemoryNonceStore{MaxNonces: limit}
	now := time.Unix(1e9, 0)
	done := make(chan int)
	for f := range 16 {
		go func() { done <- floodUntilRefused(t, m, fmt.Sprint("flooder", f), now, limit) }()
	}
	light, flooders, held := 0, 16, 0
	for flooders > 0 || light < 16 {
		select {
		case n := <-done:
			held += n
			flooders--
		default:
			if light < 16 {
				if ok, err := m.Use(context.Background(), Nonce{ConsumerKey: "light", Value: strconv.Itoa(light), Timestamp: now.Unix()}, now, now.Add(time.Minute)); !ok || err != nil {
					t.Errorf("the light client's nonce %d during the flood: %v, %v", light, ok, err)
				}
				light++
			}
			time.Sleep(time.Millisecond)
		}
	}
	if n := m.size(); n > limit || held > limit*3/4+16*(limit/1024) {
		t.Errorf("the store holds %d nonces, the flooders %d; want at most %d, %d", n, held, limit, limit*3/4+16*(limit/1024))
	}
	t.Logf("16 flooders at once hold %d nonces of %d", held, limit)
}

// TestRotatingKeyDoesNotRefuseBusyClients has one client rotate its
// consumer secret, flooding the Verifier's store (8,192 nonces, a share of
// 1,024, a floor of 8) with each new secret until it is answered 503,
// while three busy clients hold 200 nonces each: after 12 rotations, and
// after 300, the busy clients and a new light client are still served,
// and the rotating key holds its one share. (Before, each registration of
// the key had a share and a floor of its own: 12 rotations took the pool
// that busy clients share, and 300 the last quarter, so that every client
// was refused.)
func TestRotatingKeyDoesNotRefuseBusyClients(t *testing.T) {
	const limit, share = 1 << 13, 1 << 10
	consumers := Consumers{}
	for i := range 3 {
		consumers[fmt.Sprint("busy", i)] = Registration{Secret: fmt.Sprint("busy secret ", i)}
	}
	v := tenantVerifier(consumers)
	m := &MemoryNonceStore{MaxNonces: limit}
	v.Nonces = m
	h := v.Middleware(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	nonce := 0
	serve := func(key, secret string) int {
		r, err := http.NewRequest("GET", "https://api.example.com/r", nil)
		if err != nil {
			t.Fatal(err)
		}
		nonce++
		c := &oauth1.Config{ConsumerKey: key, ConsumerSecret: secret}
		if err := c.SignAt(r, nil, time.Unix(xTimestamp, 0), strconv.Itoa(nonce)); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, received(t, r))
		return w.Code
	}
	busy := func(n int) map[int]int {
		codes := map[int]int{}
		for i := range 3 {
			for range n {
				codes[serve(fmt.Sprint("busy", i), fmt.Sprint("busy secret ", i))]++
			}
		}
		return codes
	}
	if codes := busy(200); codes[http.StatusOK] != 600 {
		t.Fatalf("three busy clients before the flood: %v; want 600 × 200", codes)
	}
	rotated, served := 0, 0
	rotate := func(to int) {
		for ; rotated < to; rotated++ {
			secret := fmt.Sprint("rotated secret ", rotated)
			consumers["rotator"] = Registration{Secret: secret}
			for i := 0; ; i++ {
				code := serve("rotator", secret)
				if code == http.StatusServiceUnavailable {
					break
				}
				if code != http.StatusOK || i > limit {
					t.Fatalf("rotation %d, request %d: %d", rotated, i, code)
				}
				served++
			}
		}
	}
	for _, rotations := range []int{12, 300} {
		rotate(rotations)
		codes := busy(20)
		consumers[fmt.Sprint("light", rotations)] = Registration{Secret: "light secret"}
		light := map[int]int{}
		for range 8 {
			light[serve(fmt.Sprint("light", rotations), "light secret")]++
		}
		t.Logf("%d rotations: the rotating key was served %d requests; then busy clients %v, a light client %v; the store holds %d of %d", rotations, served, codes, light, m.size(), limit)
		if codes[http.StatusOK] != 60 {
			t.Errorf("three busy clients after %d rotations: %v; want 60 × 200", rotations, codes)
		}
		if light[http.StatusOK] != 8 {
			t.Errorf("a light client after %d rotations: %v; want 8 × 200", rotations, light)
		}
		if served > share {
			t.Errorf("the rotating key was served %d requests, over its share of %d", served, share)
		}
	}
}

// TestMemoryNonceStoreRotatedShare charges the nonces of two registrations
// of one consumer key at one tenant to one share, not those of another
// tenant, and frees the share once the nonces of the secret rotated away
// expire, dropping its set.
func TestMemoryNonceStoreRotatedShare(t *testing.T) {
	m := &MemoryNonceStore{MaxNonces: 1 << 10, MaxNoncesPerConsumer: 16}
	m.once.Do(m.init)
	t0 := time.Unix(1e9, 0)
	tenants := map[int]CredentialStore{7: Consumers{}, 8: Consumers{}}
	use := func(reg uint64, tenant int, value string, now time.Time) error {
		ok, err := m.use(Nonce{ConsumerKey: "acme", Value: value, Timestamp: now.Unix()}, reg, tenants[tenant], now, now.Add(time.Minute))
		if err == nil && !ok {
			t.Fatalf("registration %d at tenant %d: nonce %s refused as a replay", reg, tenant, value)
		}
		return err
	}
	for i := range 16 {
		if err := use(1, 7, strconv.Itoa(i), t0); err != nil {
			t.Fatalf("the old secret's nonce %d: %v", i, err)
		}
	}
	if err := use(2, 7, "new", t0); !errors.Is(err, errNonceStoreFull) {
		t.Errorf("the new secret, the old one holding the share: %v; want ErrStoreFull", err)
	}
	if err := use(3, 8, "other tenant", t0); err != nil {
		t.Errorf("acme at another tenant: %v; want accepted", err)
	}
	later := t0.Add(2 * time.Minute)
	for i := range 16 {
		if err := use(2, 7, strconv.Itoa(i), later); err != nil {
			t.Fatalf("the new secret's nonce %d once the old ones expired: %v", i, err)
		}
	}
	if n := len(m.sets()); n != 2 {
		t.Errorf("the store keeps %d sets, want 2 (the new secret's, the other tenant's)", n)
	}
}

// valueStore and otherValueStore are CredentialStores held by value.
type valueStore struct {
	Consumers
	name string
}

type otherValueStore struct {
	Consumers
	name string
}

// sliceStore is a CredentialStore that cannot be compared.
type sliceStore struct {
	Consumers
	names []string
}

// TestTenant checks which Verifier Stores are one tenant, to whom a
// consumer key's nonces are charged: the same map or pointer, equal
// values of one type, and a Provider's three stores; and that a Store
// with no identity (one that cannot be compared) is none (zero).
func TestTenant(t *testing.T) {
	seed := maphash.MakeSeed()
	a, b := Consumers{"acme": {}}, Consumers{"acme": {}}
	p, q := new(Provider), new(Provider)
	mc := &memCredentials{}
	tests := []struct {
		name string
		x, y CredentialStore
		same bool
	}{
		{"the same map", a, a, true},
		{"two maps", a, b, false},
		{"the same pointer", mc, mc, true},
		{"two pointers", mc, &memCredentials{}, false},
		{"equal values", valueStore{a, "t"}, valueStore{a, "t"}, true},
		{"values that differ", valueStore{a, "t"}, valueStore{a, "u"}, false},
		{"values of two types", valueStore{a, "t"}, otherValueStore{a, "t"}, false},
		{"a Provider's stores", providerStore{p: p}, resourceStore{providerStore{p: p, temporary: true}, p}, true},
		{"two Providers", providerStore{p: p}, providerStore{p: q}, false},
	}
	for _, tt := range tests {
		x, y := tenantOf(seed, tt.x), tenantOf(seed, tt.y)
		if x == 0 || y == 0 {
			t.Errorf("%s: tenant = %#x, %#x; want nonzero", tt.name, x, y)
		}
		if (x == y) != tt.same {
			t.Errorf("%s: tenant = %#x, %#x; want the same: %v", tt.name, x, y, tt.same)
		}
	}
	if x := tenantOf(seed, sliceStore{a, nil}); x != 0 {
		t.Errorf("a store that cannot be compared: tenant = %#x, want 0", x)
	}
}
