package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offerRecorder hands out its data a piece at a time and records the
// largest buffer a Read was offered beyond what it had handed out so far:
// the memory a reader takes on credit, before the bytes arrive.
type offerRecorder struct {
	data   []byte
	piece  int
	given  int
	credit int // the most len(p) - max(32 KiB, 3*given) seen
}

func (o *offerRecorder) Read(p []byte) (int, error) {
	o.credit = max(o.credit, len(p)-1-max(32<<10, 3*o.given)) // 1: room to see EOF
	if len(o.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), o.piece)], o.data)
	o.data, o.given = o.data[n:], o.given+n
	return n, nil
}

// TestReadLimitedGrowsWithArrival checks that a declared size, however
// large, buys no memory: a client that declares 4 MiB (or 64 MiB with a
// larger limit) and sends a few bytes, or none, makes ReadLimited offer
// buffers that grow with the bytes that arrived, never the declared size:
// at most 32 KiB (a first 4 KiB doubled, or a chunk), or three times
// what arrived once a quarter of the declared size has.
func TestReadLimitedGrowsWithArrival(t *testing.T) {
	for _, tt := range []struct {
		declared, limit int64
		sent            int
	}{
		{4 << 20, 4 << 20, 0},
		{4 << 20, 4 << 20, 100},
		{4 << 20, 4 << 20, 5000},
		{64 << 20, 64 << 20, 0},
		{64 << 20, 64 << 20, 300 << 10},
		{1 << 20, 4 << 20, 1 << 20},
		{1 << 20, 4 << 20, 300 << 10},
	} {
		o := &offerRecorder{data: bytes.Repeat([]byte("a&"), tt.sent/2), piece: 1000}
		got, err := ReadLimited(nil, o, tt.declared, tt.limit)
		require.NoError(t, err)
		assert.Len(t, got, tt.sent/2*2)
		// Before, the first read was offered the declared size.
		assert.LessOrEqual(t, o.credit, 0, "declared %d, sent %d: a read was offered %d bytes beyond those that had arrived", tt.declared, tt.sent, o.credit)
		assert.LessOrEqual(t, cap(got), max(4096, 4*len(got)), "declared %d, sent %d", tt.declared, tt.sent)
	}
}

// TestReadLimited checks what ReadLimited returns on both sides of its
// first buffer, of the switch to chunks and of a chunk's end, read whole,
// a byte at a time and half at a time, with the size declared, declared
// wrong or not at all, and that the limit holds to the byte.
func TestReadLimited(t *testing.T) {
	sizes := []int{0, 1, 511, 512, 513, 4095, 4096, 4097, 16 << 10, 32<<10 - 1, 32 << 10, 32<<10 + 1, 64 << 10, 64<<10 + 1, 96<<10 + 7, 300 << 10}
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r },
		"half":  iotest.HalfReader,
		"bytes": iotest.OneByteReader,
	}
	for _, n := range sizes {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(i * 7)
		}
		for name, wrap := range readers {
			if name == "bytes" && n > 64<<10 {
				continue // slow, and nothing new
			}
			for _, declared := range []int64{-1, int64(n), int64(n) / 2, int64(n) * 2} {
				prefix := []byte("kept")
				got, err := ReadLimited(prefix, wrap(bytes.NewReader(body)), declared, int64(n))
				require.NoError(t, err, "n=%d %s declared %d", n, name, declared)
				require.True(t, bytes.Equal(got, append([]byte("kept"), body...)), "n=%d %s declared %d", n, name, declared)
				if declared == int64(n) && n < 32<<10 {
					assert.Equal(t, n+4+1, cap(got), "n=%d %s: an honest declared size ends in a buffer of its size", n, name)
				}
				if n > 0 {
					_, err = ReadLimited(nil, wrap(bytes.NewReader(body)), declared, int64(n-1))
					assert.True(t, errors.Is(err, ErrBodyTooLarge), "n=%d %s declared %d, limit n-1: %v", n, name, declared, err)
				}
			}
		}
	}
	// A reading error is returned, wrapped, in either mode.
	for _, n := range []int{100, 100 << 10} {
		r := io.MultiReader(bytes.NewReader(make([]byte, n)), iotest.ErrReader(io.ErrUnexpectedEOF))
		_, err := ReadLimited(nil, r, -1, 1<<20)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "n=%d", n)
	}
}
