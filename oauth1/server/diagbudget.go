package server

import (
	"crypto/rsa"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A diagnosis of a refused request (DiagnoseKeys: up to
// mac.MaxKeyTries HMACs over the base string, and a check of the base
// string of up to mac.ReproduceWork) costs many times what
// the refusal does, and refusals are what hostile traffic gets. Every
// diagnosis therefore draws on one budget, counted in bytes hashed: each
// consumer key has its own share, refilled with time, and all of them
// together have one more; a base string over maxDiagnosedBase is never
// diagnosed. Past the budget a refusal costs what it costs without
// DiagnoseKeys.
//
// Another diagnosis of a refusal uses the same budget: it works out what it
// will hash with diagnosisCost, asks diagnoses.spend before it starts, and
// reports the reason spend gives when it is refused.

const (
	// maxDiagnosedBase is the longest base string a diagnosis hashes.
	maxDiagnosedBase = 64 << 10

	// The budget, in bytes hashed (other work, such as building the
	// variants of a base string, counted as the bytes HMAC-SHA512 hashes
	// in its time): a consumer key may spend diagConsumerBurst at once and
	// diagConsumerRate a second after that (a key diagnosis of a 64 KiB
	// base string costs about 1.5 MB, of a 300-byte one 14 KB; a check of
	// a 300-byte base string about 1.2 MB, of the largest 1.5 MB, so that
	// the burst pays for the checks of a person who debugs a client's
	// requests one after another); all consumers together diagAllBurst
	// and diagAllRate. At 300 MB/s (HMAC-SHA512 on a slow core) the rates
	// are under 2 ms and 14 ms of CPU a second, and diagAllBurst about 220
	// ms once.
	diagConsumerRate  = 512 << 10
	diagConsumerBurst = 32 << 20
	diagAllRate       = 4 << 20
	diagAllBurst      = 64 << 20

	// maxDiagConsumers bounds the consumer keys whose share is tracked:
	// a share refilled in full is forgotten, and a consumer that finds the
	// table full of others is not diagnosed.
	maxDiagConsumers = 4096

	// hmacBlockCost is what an HMAC hashes besides its message: the two
	// keyed pads and the inner digest, counted as two 128-byte blocks.
	hmacBlockCost = 256

	// rsaVerifyCost is what one RSA verification with a 2048-bit key is
	// counted as, in bytes hashed; a larger key counts with the square of
	// its size.
	rsaVerifyCost = 32 << 10
)

// diagnoses is the budget every Verifier of the program draws on: a
// Verifier is copied and built per request, and the CPU is the program's.
// It runs on the real clock (a Verifier's Now may stand still, or be a
// test's fake), so for tests it is shared by the whole test binary: a test
// that checks a diagnosis may find it spent by the tests that ran before
// it, and sees KeyUnchecked "not diagnosed, for its cost". Users get no
// call to refill it (DiagnoseKeys' doc says how their tests cope: a
// consumer key per test, small base strings, a retry after a second);
// this package's own tests get a fresh budget on a fake clock with
// withDiagBudget (diagcost_test.go) and must then not run in parallel.
var diagnoses = newDiagBudget(time.Now)

// A diagBudget is a token bucket of bytes hashed for each consumer key and
// one for all of them.
type diagBudget struct {
	now func() time.Time // monotonic: not a Verifier's clock, which may stand still

	mu  sync.Mutex
	all bucket
	per map[string]*bucket
	// spent is what was spent in all, for tests.
	spent int64
}

// A bucket is spent bytes short of full at time at.
type bucket struct {
	debt int64
	at   time.Time
}

func newDiagBudget(now func() time.Time) *diagBudget {
	return &diagBudget{now: now, per: make(map[string]*bucket)}
}

// refill brings b to time now, at rate bytes a second.
func (b *bucket) refill(now time.Time, rate, burst int64) {
	if b.debt == 0 {
		b.at = now
		return
	}
	d := now.Sub(b.at)
	if d <= 0 {
		return // a clock that went back refills nothing
	}
	if full := time.Duration(burst / rate * int64(time.Second)); d >= full+time.Second {
		b.debt = 0
	} else {
		b.debt = max(0, b.debt-int64(d)*rate/int64(time.Second)) // d < ~9 s: no overflow
	}
	b.at = now
}

// spend takes cost bytes from consumer's share and from the whole budget,
// or, when either cannot pay, takes nothing and says why.
func (b *diagBudget) spend(consumer string, cost int64) (ok bool, why string) {
	return b.take(consumer, cost, true)
}

// ready reports whether consumer's share and the whole budget have
// anything left, taking nothing, and if not, why.
func (b *diagBudget) ready(consumer string) (ok bool, why string) {
	return b.take(consumer, 1, false)
}

func (b *diagBudget) take(consumer string, cost int64, commit bool) (ok bool, why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.all.refill(now, diagAllRate, diagAllBurst)
	c := b.per[consumer]
	if c == nil {
		if len(b.per) >= maxDiagConsumers {
			for k, o := range b.per {
				if o.refill(now, diagConsumerRate, diagConsumerBurst); o.debt == 0 {
					delete(b.per, k)
				}
			}
		}
		if len(b.per) >= maxDiagConsumers {
			return false, "the budget of diagnoses is taken by " + strconv.Itoa(maxDiagConsumers) + " other consumer keys"
		}
		c = &bucket{at: now}
	}
	c.refill(now, diagConsumerRate, diagConsumerBurst)
	switch {
	case diagConsumerBurst-c.debt < cost:
		return false, "the consumer key's budget of diagnoses is spent (" + budgetText(diagConsumerRate, diagConsumerBurst) + "); it refills with time"
	case diagAllBurst-b.all.debt < cost:
		return false, "the budget of diagnoses of all consumer keys is spent (" + budgetText(diagAllRate, diagAllBurst) + "); it refills with time"
	}
	if !commit {
		return true, ""
	}
	c.debt += cost
	b.all.debt += cost
	b.spent += cost
	if _, ok := b.per[consumer]; !ok {
		// A copy: the key may be a substring of a header of up to 1 MiB.
		consumer = strings.Clone(consumer)
	}
	b.per[consumer] = c
	return true, ""
}

// budgetText describes a rate and a burst of bytes hashed.
func budgetText(rate, burst int64) string {
	return strconv.FormatInt(rate>>10, 10) + " KiB hashed a second, " + strconv.FormatInt(burst>>10, 10) + " KiB at once"
}

// diagnosisCost is what a diagnosis hashes: hmacs HMACs over a base string
// of baseLen bytes, rsas RSA verifications with pub, and extra bytes
// (a base string built for the diagnosis alone, say).
func diagnosisCost(baseLen, hmacs, rsas int, pub *rsa.PublicKey, extra int) int64 {
	cost := int64(hmacs)*int64(baseLen+hmacBlockCost) + int64(extra)
	if rsas > 0 {
		cost += int64(baseLen) // the digest, once
		f := int64(1)
		if pub != nil && pub.N != nil {
			f = max(1, int64(pub.N.BitLen()/2048))
		}
		cost += int64(rsas) * rsaVerifyCost * f * f
	}
	return cost
}
