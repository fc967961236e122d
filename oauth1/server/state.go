package server

import (
	"sync"

	"github.com/countersign/countersign/oauth1"
	"github.com/countersign/countersign/oauth1/internal/wire"
)

// state is the scratch space of one verification, pooled.
type state struct {
	wire.State
	proto      []oauth1.Param // the protocol parameters, with realm
	fromHeader int            // how many of proto the Authorization header sent
	header     []oauth1.Param // the Authorization header's other parameters
	dec        []byte         // what the header had to decode, and the signature
	large      bool           // it held a base string over maxPooledBase: not pooled
}

// maxPooledBase is the longest base string whose state is pooled, as
// wire.State.Reset bounds the buffers it sees.
const maxPooledBase = 2 << 20

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(s *state) {
	// The parameters point into the request: not to be pinned in the pool.
	clear(s.header)
	clear(s.proto)
	// A form body grows the parameters as much as the base string would,
	// and a hostile header its parameters.
	if s.large || len(s.Form) > maxPooledBase || cap(s.header)+cap(s.proto) > 4*maxProtocolParams || cap(s.dec) > maxPooledDec || !s.Reset() {
		return
	}
	s.header, s.proto, s.dec = s.header[:0], s.proto[:0], s.dec[:0]
	statePool.Put(s)
}

// maxPooledDec bounds the decoded header values a pooled state keeps.
const maxPooledDec = 4 << 10
