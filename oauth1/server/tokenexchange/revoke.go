package tokenexchange

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/countersign/countersign/oauth1/server"
)

// Revocation after an exchange.
const (
	keepRevoked = time.Minute      // the record of an exchange, past its token's revocation
	sweepEvery  = time.Second      // a Handler looks for revocations due at most this often
	dueBatch    = 64               // grants revoked per call of Store.Due
	sweepBatch  = 16               // grants a request revokes at most, before it is served
	revokeTime  = 10 * time.Second // for one sweep's revocations
)

// RevokeDue revokes ([server.TokenStore].Revoke) the 1.0a tokens whose
// revocation after their exchange is due by the Handler's clock, whichever
// instance sharing the Store exchanged them, and records each in the Store
// once it is revoked: one the Store still lists is revoked again, which
// is harmless. It returns how many it revoked, and the failures joined.
//
// The Handler revokes up to 16 due before it serves a request, at most
// once a second; a provider whose endpoint may see no request for a while
// (after its last exchanges, say) calls RevokeDue from a ticker too.
func (h *Handler) RevokeDue(ctx context.Context) (int, error) { return h.revokeDue(ctx, dueBatch, -1) }

// revokeDue is RevokeDue for at most batches calls of Store.Due of batch
// grants, or all when batches is negative.
func (h *Handler) revokeDue(ctx context.Context, batch, batches int) (int, error) {
	if h.Tokens == nil {
		return 0, errors.New("tokenexchange: Handler.Tokens is nil")
	}
	st := h.store()
	n := 0
	var errs []error
	for ; batches != 0 && ctx.Err() == nil; batches-- {
		now := h.now()
		due, err := st.Due(ctx, now, batch)
		if err != nil {
			err = fmt.Errorf("tokenexchange: listing the revocations due: %w", err)
			h.observe(nil, Grant{}, err)
			return n, errors.Join(append(errs, err)...)
		}
		failed := false
		for _, g := range due {
			if err := h.revoke(ctx, st, g); err != nil {
				h.observe(nil, g, err)
				errs = append(errs, err)
				failed = true
				continue
			}
			n++
		}
		if failed || len(due) < batch {
			break // the failures would be listed again
		}
	}
	return n, errors.Join(errs...)
}

// sweep revokes what is due, at most once per sweepEvery of the Handler's
// clock (or when the clock went back), whatever the request's outcome.
func (h *Handler) sweep(ctx context.Context) {
	now := h.now().UnixNano()
	last := h.swept.Load()
	if last != 0 && now >= last && now-last < int64(sweepEvery) {
		return
	}
	if !h.swept.CompareAndSwap(last, now) {
		return // another request sweeps
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), revokeTime)
	defer cancel()
	h.revokeDue(ctx, sweepBatch, 1) // failures were observed; a request waits for one small batch only
}

// revoke revokes the 1.0a token of g, exchanged, and records it revoked in
// st. One revoked already is no failure.
func (h *Handler) revoke(ctx context.Context, st Store, g Grant) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), revokeTime)
	defer cancel()
	err := h.Tokens.Revoke(ctx, g.Token, h.now())
	if err != nil && !errors.Is(err, server.ErrNotFound) {
		return fmt.Errorf("tokenexchange: revoking the 1.0a token %s after its exchange: %w", tokenID(g.Token), err)
	}
	if err := st.Revoked(ctx, g.Token, keepRevoked, h.now()); err != nil {
		return fmt.Errorf("tokenexchange: recording the revocation of the 1.0a token %s: %w", tokenID(g.Token), err)
	}
	return nil
}
