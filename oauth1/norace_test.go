//go:build !race

package oauth1_test

const raceEnabled = false
