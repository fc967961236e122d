package wire

import (
	"io"
	"net/http"
)

// FormBodyHeld is FormBody for a verifier. A body read from r.Body (no
// GetBody) is read into s.Body, pooled, and copied once into memory that
// also holds the reader that replaces r.Body: one allocation rather than
// two for a body of up to 984 bytes. r is left as SetBody leaves it.
func (s *State) FormBodyHeld(r *http.Request, limit int64) ([]byte, error) {
	if s.Form != nil || r.GetBody != nil || r.ContentLength > min(maxHeld, limit) {
		return s.FormBody(r, limit)
	}
	b, err := ReadLimited(s.Body[:0], r.Body, r.ContentLength, limit)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(b) > maxHeld {
		// Not copied: the request keeps the buffer, and s another.
		s.Body = nil
		SetBody(r, b)
		s.Form = b
		return b, nil
	}
	s.Body = b[:0] // pooled; the request keeps the copy below
	held := holdBody(r, b)
	if held == nil {
		held = []byte{}
	}
	s.Form = held
	return held, nil
}

// maxHeld is the longest body holdBody copies, the last size class.
const maxHeld = 984

// holdBody makes a copy of b, at most maxHeld bytes, r's body, as
// SetBody does, and returns it.
func holdBody(r *http.Request, b []byte) []byte {
	var rd *bodyReader
	var c []byte
	// The reader and the body in one allocation, sized to a size class.
	switch n := len(b); {
	case n == 0:
		SetBody(r, nil)
		return nil
	case n <= 88:
		h := new(struct {
			bodyReader
			d [88]byte
		})
		rd, c = &h.bodyReader, h.d[:n:n]
	case n <= 216:
		h := new(struct {
			bodyReader
			d [216]byte
		})
		rd, c = &h.bodyReader, h.d[:n:n]
	case n <= 472:
		h := new(struct {
			bodyReader
			d [472]byte
		})
		rd, c = &h.bodyReader, h.d[:n:n]
	default:
		h := new(struct {
			bodyReader
			d [maxHeld]byte
		})
		rd, c = &h.bodyReader, h.d[:n:n]
	}
	copy(c, b)
	rd.Reset(c)
	r.ContentLength = int64(len(c))
	r.Body = rd
	r.GetBody = func() (io.ReadCloser, error) { return newBodyReader(c), nil }
	return c
}
