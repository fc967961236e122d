package percent

import "unsafe"

// unsafeString returns a string that shares b's memory, the way
// strings.Builder.String does. Callers must never modify b afterwards; every
// call site passes a buffer it allocated itself and then drops.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
