package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/countersign/countersign/oauth1/server"
)

// honoursDeadlines reports whether client bounds its calls by their
// context's deadline: go-redis does only with ContextTimeoutEnabled, and
// otherwise waits out its own timeouts and retries (a read timeout of 3 s
// and 3 retries by default) whatever the context says. A client of an
// unknown type is assumed not to.
func honoursDeadlines(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// bounded returns f(ctx), or ctx's error as soon as ctx is done, whichever
// comes first. When the client honours deadlines, or ctx can never be done,
// f runs on the caller's goroutine; otherwise on one of its own, which the
// client's own timeouts end, and whose late result is dropped: a write
// that Redis carries out after the caller gave up is reported as failed
// (a nonce then stays recorded, and the request was refused: the store
// fails closed).
func bounded[T any](ctx context.Context, honours bool, f func(context.Context) (T, error)) (T, error) {
	if honours || ctx.Done() == nil {
		return f(ctx)
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-ch: // both ready: the answer is worth more
			return r.v, r.err
		default:
		}
		var zero T
		return zero, ctx.Err()
	}
}

// storeError wraps err, from a call to Redis, in what the store was doing:
// with [server.ErrStoreUnavailable] too when Redis could not be reached,
// did not answer in time, or refused the command (an error reply, such as
// OOM from a full Redis, LOADING, READONLY or CLUSTERDOWN), so that the
// Verifier answers 503 with Retry-After. A reply of the wrong shape is not
// an outage: it is wrapped in what the store was doing only.
func storeError(doing string, err error) error {
	if unavailable(err) {
		return fmt.Errorf("redisstore: %s: %w: %w", doing, server.ErrStoreUnavailable, err)
	}
	return fmt.Errorf("redisstore: %s: %w", doing, err)
}

// unavailable reports whether err says that Redis could not answer.
func unavailable(err error) bool {
	var ne net.Error
	var re redis.Error
	return errors.As(err, &ne) || errors.As(err, &re) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted)
}
