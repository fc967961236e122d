package percent

import "unsafe"

// unsafeString returns a string that shares b's memory, the way
// strings.Builder.String does. Callers must never modify b afterwards; every
// call site passes a buffer it allocated itself and then drops.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

const (
	encodeBlock = 16
	// Byte k of a block (k < encodeBlock) is written at an offset of at most
	// 3k, since no byte encodes to more than three, and its four-byte store
	// ends at most at 3k+4 <= 3*(encodeBlock-1)+4.
	encodeBlockRoom = 3*(encodeBlock-1) + 4
)

// encodeBlockTo writes the encoding of block, which is encodeBlock bytes
// long, to out, and returns how many bytes of out the encoding takes. It
// stores all four bytes of enc[c] for every byte c, unconditionally, and then
// advances by the count in the top byte, so that later stores overwrite the
// spare ones. The stores skip bounds checks, which cost about two fifths of
// the time in a measured safe version; the bound that makes them safe is
// encodeBlockRoom, which holds whatever the tables say as long as no count
// exceeds 3, and which the length check below enforces.
func encodeBlockTo(out []byte, block string) int {
	if len(out) < encodeBlockRoom || len(block) != encodeBlock {
		panic("percent: encodeBlockTo: short buffer or wrong block length")
	}
	p := unsafe.Pointer(unsafe.SliceData(out))
	t := &enc
	// Unrolled by hand: the compiler does not unroll loops, and the loop
	// counter and branch cost as much as the work on each byte.
	e := t[block[0]]
	*(*uint32)(p) = e
	j := int(e >> 24)
	e = t[block[1]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[2]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[3]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[4]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[5]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[6]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[7]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[8]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[9]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[10]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[11]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[12]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[13]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[14]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	e = t[block[15]]
	*(*uint32)(unsafe.Add(p, j)) = e
	j += int(e >> 24)
	return j
}
