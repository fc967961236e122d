//go:build race

package oauth1_test

// The race detector adds allocations of its own, so allocation guards
// skip themselves under it.
const raceEnabled = true
