package server

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/basestring"
	"github.com/countersign/countersign/oauth1/internal/mac"
)

// The documented bounds of DiagnoseKeys (Verifier.DiagnoseKeys), written
// out here as the documentation gives them, not taken from the code.
const (
	docMaxDiagnosedBase = 64 << 10  // bytes of base string
	docConsumerBurst    = 32 << 20  // bytes hashed at once, per consumer key
	docConsumerRate     = 512 << 10 // bytes hashed a second, per consumer key
	docAllBurst         = 64 << 20  // bytes hashed at once, all consumer keys
	docHMACBlocks       = 256       // what one HMAC hashes besides its message
)

// fakeClock is a clock that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// withDiagBudget gives the test a fresh budget of diagnoses on a fake
// clock. The test must not run in parallel.
func withDiagBudget(t *testing.T) *fakeClock {
	c := &fakeClock{t: time.Unix(1800000000, 0)}
	old := diagnoses
	diagnoses = newDiagBudget(c.now)
	t.Cleanup(func() { diagnoses = old })
	return c
}

// hmacGET is a GET of https://api.example/r?pad=xxx... (4,000 x's) by
// consumerKey, without a token, signed with HMAC-SHA1 under key (which
// the test makes wrong), and the base string it signed, built here by
// hand (RFC 5849 §3.4.1).
func hmacGET(consumerKey, key, nonce string, ts int64) (*http.Request, string) {
	e := kmEncode
	params := "oauth_consumer_key=" + e(consumerKey) + "&oauth_nonce=" + e(nonce) +
		"&oauth_signature_method=HMAC-SHA1&oauth_timestamp=" + itoa(ts) + "&oauth_version=1.0"
	base := "GET&" + e("https://api.example/r") + "&" + e(params) + padEncoded // encoding is bytewise
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(base))
	sig := base64.StdEncoding.EncodeToString(m.Sum(nil))
	r := httptest.NewRequest("GET", "https://api.example/r?pad="+getPad, nil)
	r.Header.Set("Authorization", `OAuth oauth_consumer_key="`+e(consumerKey)+`", oauth_nonce="`+e(nonce)+
		`", oauth_signature="`+e(sig)+`", oauth_signature_method="HMAC-SHA1", oauth_timestamp="`+itoa(ts)+`", oauth_version="1.0"`)
	return r, base
}

// getPad is the query parameter of hmacGET, padEncoded its part of the
// base string.
var (
	getPad     = strings.Repeat("x", 4000)
	padEncoded = kmEncode("&pad=" + getPad)
)

// refusal verifies r, which must be refused with signature_invalid.
func refusal(t *testing.T, v *Verifier, r *http.Request) *ProblemError {
	t.Helper()
	_, err := v.Verify(r)
	var pe *ProblemError
	if !errors.As(err, &pe) || pe.Problem != oauth1.ProblemSignatureInvalid {
		t.Fatalf("Verify = %v; want signature_invalid", err)
	}
	return pe
}

// skippedForCost reports whether a refusal's diagnosis was skipped for its
// cost, as the refusal must then say.
func skippedForCost(pe *ProblemError) bool {
	return pe.KeyMistake.Kind == basestring.KeyUnchecked && strings.Contains(pe.KeyMistake.Cause, "for its cost")
}

// TestDiagnoseKeysLargeRefusal: the refusal the issue timed at 47-133 ms, a
// 200 KB form with a 64-byte signature, hashes no more than a valid
// verification of the same request (one HMAC over the base string), with
// the signature of the method's length or of another; the refusal says
// that the diagnosis was skipped for its cost.
func TestDiagnoseKeysLargeRefusal(t *testing.T) {
	withDiagBudget(t)
	v := &Verifier{Store: xCredentials(), Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return time.Unix(1700000000, 0) }, DiagnoseKeys: true}}
	body := strings.Repeat("a&", 100000) // 200 KB, about 700 KB of base string
	sig64 := kmEncode(base64.StdEncoding.EncodeToString(make([]byte, 64)))
	hashed := func() int64 { diagnoses.mu.Lock(); defer diagnoses.mu.Unlock(); return diagnoses.spent }

	// HMAC-SHA512, whose signatures have 64 bytes: the base string is
	// built, as for a valid request, and checked once.
	r := hostileForm(body, sig64)
	r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), "HMAC-SHA1", "HMAC-SHA512", 1))
	pe := refusal(t, v, r)
	// A refusal keeps no base string over 64 KiB; the cause says how long
	// it was.
	if pe.BaseString != "" || !strings.Contains(pe.KeyMistake.Cause, "the base string is ") {
		t.Fatalf("BaseString of %d bytes, KeyMistake %v; the test needs a base string over %d, which a refusal does not keep", len(pe.BaseString), pe.KeyMistake, docMaxDiagnosedBase)
	}
	if !skippedForCost(pe) || hashed() != 0 {
		t.Errorf("KeyMistake %v, %d bytes hashed by the diagnosis; want unchecked, for its cost, and none (a valid verification hashes the base string once)", pe.KeyMistake, hashed())
	}

	// HMAC-SHA1, whose signatures have 20 bytes: refused before the base
	// string is built, as without DiagnoseKeys.
	pe = refusal(t, v, hostileForm(body, sig64))
	if pe.BaseString != "" || !skippedForCost(pe) || hashed() != 0 {
		t.Errorf("a signature of the wrong length: BaseString of %d bytes, KeyMistake %v, %d bytes hashed; want no base string built, unchecked for its cost", len(pe.BaseString), pe.KeyMistake, hashed())
	}
	// A body of undeclared length is not read for a diagnosis either.
	r = hostileForm(body, sig64)
	r.ContentLength = -1
	if pe = refusal(t, v, r); pe.BaseString != "" || !skippedForCost(pe) {
		t.Errorf("a body of undeclared length: BaseString of %d bytes, KeyMistake %v; want none built, unchecked for its cost", len(pe.BaseString), pe.KeyMistake)
	}

	// A small request is still diagnosed, signature of the wrong length
	// or not.
	if pe = refusal(t, v, hostileForm("a=b", sig64)); pe.KeyMistake.Kind != basestring.KeyUnknown {
		t.Errorf("a small request: KeyMistake %v; want it diagnosed (unknown)", pe.KeyMistake)
	}
}

// TestDiagnoseKeysBudgetPerConsumer floods a Verifier with badly signed
// requests of one consumer key on a clock that stands still: the
// diagnoses hash at most the consumer's documented share, so that the
// flood's refusals cost on average at most three valid verifications of
// the same request; the others are refused as unchecked, for their cost.
// Another consumer key is still diagnosed; the share refills at its rate.
func TestDiagnoseKeysBudgetPerConsumer(t *testing.T) {
	clock := withDiagBudget(t)
	now := time.Unix(1700000000, 0)
	consumers := map[string]Registration{}
	// More keys than spend the budget of all of them at once, with "flood".
	many := []string{"flood"}
	for i := 1; i <= docAllBurst/docConsumerBurst; i++ {
		many = append(many, "c"+itoa(int64(i)))
	}
	for _, k := range append(many, "other", "fresh") {
		consumers[k] = Registration{Secret: k + " secret"}
	}
	v := &Verifier{Store: &memCredentials{consumers: consumers}, Settings: Settings{Nonces: new(MemoryNonceStore), Now: func() time.Time { return now }, DiagnoseKeys: true}}
	wrongKey := kmEncode("flood secret") // consumer-secret-only

	// flood sends n refusals by consumer and returns how many were
	// diagnosed, the bytes their diagnoses hashed at most (MaxKeyTries
	// HMACs over the base string) and the bytes the n refusals hashed to
	// check the signature once, as many as n valid verifications.
	flood := func(consumer string, n int) (diagnosed int, diagBytes, checkBytes int64) {
		t.Helper()
		for i := range n {
			r, base := hmacGET(consumer, wrongKey, "n"+itoa(int64(i)), now.Unix())
			one := int64(len(base) + docHMACBlocks)
			checkBytes += one
			pe := refusal(t, v, r)
			switch {
			case pe.KeyMistake.Kind == basestring.KeyUnknown || pe.KeyMistake.Kind == basestring.ConsumerSecretOnly:
				diagnosed++
				diagBytes += mac.MaxKeyTries * one
			case !skippedForCost(pe):
				t.Fatalf("refusal %d: KeyMistake %v; want a diagnosis, or unchecked for its cost", i, pe.KeyMistake)
			}
		}
		return diagnosed, diagBytes, checkBytes
	}

	const n = 5000 // enough that the share, spent at once, is a part of the flood
	diagnosed, diagBytes, valid := flood("flood", n)
	if diagnosed == 0 || diagBytes > docConsumerBurst {
		t.Errorf("%d of %d refusals diagnosed, %d bytes hashed; want some, and at most %d", diagnosed, n, diagBytes, docConsumerBurst)
	}
	if total := valid + diagBytes; total > 3*valid {
		t.Errorf("the flood hashed %d bytes, %.1f times what %d valid verifications hash", total, float64(total)/float64(valid), n)
	}

	// Another consumer key has its own share.
	if d, _, _ := flood("other", 1); d != 1 {
		t.Errorf("another consumer key was not diagnosed while the first's share was spent")
	}
	// One second refills the documented rate, no more (and what was left,
	// less than one more diagnosis).
	clock.add(time.Second)
	_, longest := hmacGET("flood", wrongKey, "n99999", now.Unix())
	most := int64(docConsumerRate + mac.MaxKeyTries*(len(longest)+docHMACBlocks))
	if d, b, _ := flood("flood", 50); d == 0 || b > most {
		t.Errorf("after a second, %d diagnoses (%d bytes); want at least one, and at most %d bytes", d, b, most)
	}
	// All consumer keys together have a share too: the keys that spend
	// theirs leave nothing for one more.
	clock.add(time.Minute)
	spentAll := int64(0)
	for _, c := range append(many, "other") {
		_, b, _ := flood(c, 50)
		spentAll += b
	}
	if spentAll > docAllBurst {
		t.Errorf("%d consumer keys hashed %d bytes at once; want at most %d", len(many)+1, spentAll, docAllBurst)
	}
	r, _ := hmacGET("fresh", wrongKey, "last", now.Unix())
	if pe := refusal(t, v, r); !skippedForCost(pe) || !strings.Contains(pe.KeyMistake.Cause, "all consumer keys") {
		t.Errorf("KeyMistake %v; want unchecked, as the budget of all consumer keys is spent", pe.KeyMistake)
	}
}

// TestDiagBudgetBounds checks the budget's own bounds: the consumer keys
// it tracks, a clock that goes back, and a long pause.
func TestDiagBudgetBounds(t *testing.T) {
	// The figures Verifier.DiagnoseKeys documents are the code's.
	for _, c := range [][2]int64{{docMaxDiagnosedBase, maxDiagnosedBase}, {docConsumerBurst, diagConsumerBurst}, {docConsumerRate, diagConsumerRate},
		{docAllBurst, diagAllBurst}, {4 << 20, diagAllRate}, {docHMACBlocks, hmacBlockCost}} {
		if c[0] != c[1] {
			t.Errorf("documented %d, the code has %d", c[0], c[1])
		}
	}
	clock := &fakeClock{t: time.Unix(1800000000, 0)}
	b := newDiagBudget(clock.now)
	for i := range maxDiagConsumers {
		if ok, why := b.spend("k"+itoa(int64(i)), 1); !ok {
			t.Fatalf("consumer %d: %s", i, why)
		}
	}
	if ok, why := b.spend("one more", 1); ok || !strings.Contains(why, "other consumer keys") {
		t.Errorf("a consumer key past the table: %v %q; want refused, the table full", ok, why)
	}
	clock.add(time.Second) // every share refilled: forgotten, and room again
	if ok, why := b.spend("one more", 1); !ok || len(b.per) != 1 {
		t.Errorf("after the shares refilled: %v %q, %d tracked; want one", ok, why, len(b.per))
	}
	// Spent, a clock that goes back refills nothing; an hour refills all.
	if ok, _ := b.spend("x", docConsumerBurst); !ok {
		t.Fatal("a full share refused")
	}
	clock.add(-time.Hour)
	if ok, _ := b.spend("x", 1); ok {
		t.Error("a clock that went back refilled the share")
	}
	clock.add(2 * time.Hour)
	if ok, _ := b.spend("x", docConsumerBurst); !ok {
		t.Error("an hour later, the share is not full")
	}
}

// TestDiagBudgetKeepsNoHeader: the budget remembers a consumer key for a
// few seconds; it must not keep alive the header, up to 1 MiB, that the
// key was read from.
func TestDiagBudgetKeepsNoHeader(t *testing.T) {
	b := newDiagBudget((&fakeClock{t: time.Unix(1800000000, 0)}).now)
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for i := range 32 {
		header := strings.Repeat("x", 1<<20) + "key" + itoa(int64(i))
		if ok, why := b.spend(header[1<<20:], 1); !ok {
			t.Fatal(why)
		}
	}
	if kept := int64(heap()) - int64(before); kept > 4<<20 {
		t.Errorf("32 consumer keys, each read from a 1 MiB header, keep %d bytes alive", kept)
	}
	runtime.KeepAlive(b)
}
