package params

import (
	"bytes"

	"github.com/countersign/countersign/internal/ascii"
)

// A run is protocol parameters written as a Set stores them, without
// being added to one: "name%3Dvalue%26" each, encoded twice, in sorted
// order, every name beginning with "oauth_". A signer builds its own
// parameters as one run, most of it rendered once per consumer key and
// token, and AppendBaseStringRun writes it where those names sort, instead
// of adding each to the Set and sorting them with the request's. The plain
// way, Add and AppendBaseString, is the reference: FuzzRunMatchesAdd
// checks that the two agree.

// runPrefix begins every name in a run.
const runPrefix = "oauth_"

// AppendRunPair appends name=value to a run: name, which must be all
// unreserved bytes and begin with "oauth_", "%3D", value encoded twice and
// "%26". It reports whether value needs no escaping.
func AppendRunPair(run []byte, name, value string) ([]byte, bool) {
	run = append(run, name...)
	run = append(run, sepEq...)
	run, plain := AppendTwice(run, value)
	return append(run, sepAmp...), plain
}

// AppendRunName appends the start of a pair to a run, name and "%3D", for
// a value the caller appends with AppendTwice, followed by the "%26" of
// AppendRunSep.
func AppendRunName(run []byte, name string) []byte {
	return append(append(run, name...), sepEq...)
}

// AppendRunSep appends what ends a pair in a run: "%26".
func AppendRunSep(run []byte) []byte { return append(run, sepAmp...) }

// AppendTwice appends s percent-encoded twice, as a Set stores names and
// values, and reports whether s needed no escaping (and so was copied).
func AppendTwice(dst []byte, s string) ([]byte, bool) {
	if ascii.CountEscapes(s) == 0 {
		return append(dst, s...), true // keys, tokens, nonces, timestamps
	}
	return appendTwice(dst, s), false
}

// AppendBaseStringRun is AppendBaseString with the pairs of run, which is
// not added to s, merged in their place: run is copied whole before the
// first pair of s whose name sorts after its names. encURI is the base
// string URI already percent-encoded, as the base string holds it. When a
// name in s begins with "oauth_" too, the two would interleave: it returns
// dst as it was and false, and the caller adds the pairs to s instead.
func (s *Set) AppendBaseStringRun(dst []byte, method string, encURI, run []byte) ([]byte, bool) {
	s.Sort()
	at := s.search([]byte(runPrefix)) // the first name not below "oauth_"
	if at < len(s.pairs) && bytes.HasPrefix(s.name(s.pairs[at]), []byte(runPrefix)) {
		return dst, false
	}
	dst = appendMethod(dst, method, len(encURI)+len(s.buf)+len(run))
	dst = append(append(dst, encURI...), '&')
	dst = s.appendPairs(dst, s.pairs[:at])
	dst = append(dst, run...)
	dst = s.appendPairs(dst, s.pairs[at:])
	return trimAmp(dst, len(s.pairs)+len(run) > 0), true
}
