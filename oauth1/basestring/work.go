package basestring

import "math/bits"

// This file counts the work of Reproduce's searches, so that it is bounded
// and a provider can charge it, in bytes hashed: the unit of the
// diagnosis budget of oauth1/server, each step of a search counted as the
// bytes HMAC-SHA512 hashes in the time it takes. Building the variants,
// not their HMACs, is most of a search: a variant costs about 4 KiB
// hashed whatever its size, 5 a byte built, and 80 a parameter plus 40
// for each level of its sort (a request of a thousand parameters costs
// about half a megabyte a variant). The weights come from the CPU time of
// the searches of BenchmarkReproduceCrafted's requests and of the shared
// corpus, measured against HMAC-SHA512 in the same run, and round up.
const (
	workBuild    = 4096 // a variant, whatever its size
	workOutByte  = 5    // a byte of a variant: its parameters encoded, joined and encoded again
	workPiece    = 80   // a parameter of a variant: encoding it
	workSortStep = 40   // a parameter of a variant, for each level of the sort (log2 of their number)
	workReadByte = 2    // a byte of the query or form body read with a set of bugs
	workReadPair = 160  // a pair read from them, or joined with the other's
	workHMAC     = 256  // an HMAC besides its message: the keyed pads and the inner digest
)

// maxWideWork bounds the work of ReproduceWide: about 100 ms of CPU where
// HMAC-SHA512 hashes 500 MB a second.
const maxWideWork = 48 << 20

// buildWork is the work of building a variant of n parameters and size
// bytes.
func buildWork(n, size int) int64 {
	return workBuild + workPiece*int64(n) + workSortStep*int64(n)*int64(bits.Len(uint(n))) + workOutByte*int64(size)
}
