package mac

import "sync/atomic"

// Diagnosed counts the HMACs basestring's diagnoses (KeyMistake, Reproduce)
// have computed in the program, for the tests that check that a refusal
// computes as many whatever the form of its secrets.
var Diagnosed atomic.Int64

// MaxKeyTries bounds the HMACs basestring.KeyMistake computes over the base
// string in one call: the right key, 22 mistaken keys and 2 keys with two
// mistakes each. It lives here, unexported from the module, so that the
// list of mistakes can grow in a minor release (it did, from 23 to 25, for
// a base64 secret's bytes put in the key unencoded); oauth1/server charges
// a diagnosis by it.
const MaxKeyTries = 25

// The work of one basestring.Reproduce, in bytes hashed (the unit of
// oauth1/server's diagnosis budget, which charges it): building variants of
// the base string, most of it, and their HMACs. The search stops before
// it would do more; the weights that count a variant's work as bytes
// hashed are basestring's (work.go).
const (
	reproduceWorkFixed   = 768 << 10
	reproduceWorkPerByte = 1 << 10
	MaxReproduceWork     = 3 << 19 // 1.5 MiB
)

// ReproduceWork is the most work basestring.Reproduce does on a refusal
// whose base string has baseLen bytes and whose query and form body have
// sentLen: enough for the whole search on the requests real clients send,
// and at most MaxReproduceWork on the largest it takes.
func ReproduceWork(baseLen, sentLen int) int64 {
	return min(MaxReproduceWork, reproduceWorkFixed+reproduceWorkPerByte*int64(baseLen+sentLen))
}
