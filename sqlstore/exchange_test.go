package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/oauth1/server/tokenexchange"
	"github.com/countersign/countersign/sqlstore"
)

// TestExchangeStore runs the contract of a tokenexchange.Store, as
// redisstore's TestExchangeStore does, on the clock the calls are passed.
func TestExchangeStore(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := sqlstore.NewExchangeStore(db, "t")
		t0 := time.UnixMilli(1_800_000_000_123)
		claim := func(g, owner string, lease time.Duration, at time.Time) tokenexchange.Claim {
			t.Helper()
			c, err := s.Claim(ctx, g, owner, lease, at)
			require.NoError(t, err)
			return c
		}
		require.Equal(t, tokenexchange.Claimed, claim("g", "o1", time.Minute, t0).State)
		require.Equal(t, tokenexchange.Busy, claim("g", "o2", time.Minute, t0).State)
		require.NoError(t, s.Release(ctx, "g", "o2", t0)) // not o2's: nothing
		require.Equal(t, tokenexchange.Busy, claim("g", "o2", time.Minute, t0).State)
		require.NoError(t, s.Release(ctx, "g", "o1", t0))
		require.Equal(t, tokenexchange.Claimed, claim("g", "o2", 50*time.Millisecond, t0).State, "released: claimed again")

		// An expired lease: claimed by another; the first cannot complete.
		t1 := t0.Add(120 * time.Millisecond)
		require.Equal(t, tokenexchange.Claimed, claim("g", "o3", time.Minute, t1).State)
		g := tokenexchange.Grant{Token: "g", ConsumerKey: "ck", User: "alice"}
		require.Error(t, s.Complete(ctx, g, "o2", []byte("a2"), time.Minute, t0.Add(time.Hour), t1))

		require.NoError(t, s.Complete(ctx, g, "o3", []byte("a3\x00\xff"), 300*time.Millisecond, t0.Add(time.Hour), t1))
		require.Error(t, s.Complete(ctx, g, "o3", []byte("a4"), time.Minute, t0.Add(time.Hour), t1), "completed twice")
		require.Equal(t, tokenexchange.Claim{State: tokenexchange.Answered, Answer: []byte("a3\x00\xff"), Exchanged: t1}, claim("g", "o4", time.Minute, t1))
		require.NoError(t, s.Release(ctx, "g", "o3", t1), "releasing an exchange does nothing")
		require.Equal(t, tokenexchange.Answered, claim("g", "o4", time.Minute, t1).State)

		// The answer is gone once its window ends, and from the table
		// after Expire; the record is kept until its token is revoked.
		t2 := t1.Add(300 * time.Millisecond)
		require.Equal(t, tokenexchange.Claim{State: tokenexchange.Spent, Exchanged: t1}, claim("g", "o5", time.Minute, t2))
		require.NoError(t, sqlstore.Expire(ctx, db, t0.Add(30*24*time.Hour)))
		var answers, records int
		require.NoError(t, db.QueryRow(`SELECT count(answer), count(*) FROM oauth1_exchanges`).Scan(&answers, &records))
		require.Equal(t, [2]int{0, 1}, [2]int{answers, records}, "answers and records after Expire")
		require.Equal(t, tokenexchange.Spent, claim("g", "o5", time.Minute, t0.Add(30*24*time.Hour)).State, "kept until revoked")

		// Due on the Handler's clock, and until Revoked; then kept for keep.
		due, err := s.Due(ctx, t0.Add(59*time.Minute), 10)
		require.NoError(t, err)
		require.Empty(t, due)
		for range 2 {
			due, err = s.Due(ctx, t0.Add(time.Hour), 10)
			require.NoError(t, err)
			require.Equal(t, []tokenexchange.Grant{g}, due)
		}
		require.NoError(t, s.Revoked(ctx, "g", time.Minute, t0.Add(time.Hour)))
		due, err = s.Due(ctx, t0.Add(time.Hour), 10)
		require.NoError(t, err)
		require.Empty(t, due)
		require.Equal(t, tokenexchange.Spent, claim("g", "o6", time.Minute, t0.Add(time.Hour+59*time.Second)).State, "kept for keep after its revocation")
		require.Equal(t, tokenexchange.Claimed, claim("g", "o6", time.Minute, t0.Add(time.Hour+time.Minute)).State, "after keep")
		require.NoError(t, s.Revoked(ctx, "unknown", time.Minute, t0), "an unknown token is no error")

		// Other grants and tenants are apart.
		require.Equal(t, tokenexchange.Claimed, claim("g2", "o1", time.Minute, t0).State)
		other, err := sqlstore.NewExchangeStore(db, "u").Claim(ctx, "g2", "o1", time.Minute, t0)
		require.NoError(t, err)
		require.Equal(t, tokenexchange.Claimed, other.State, "another tenant's grant")
	})
}

// TestExchangeStorePerGrant: past 16 unrevoked exchanges of one grant
// (consumer key and user), the oldest are due at once, other grants' are
// not; a revoked one no longer counts; a claim lost is not listed.
func TestExchangeStorePerGrant(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := sqlstore.NewExchangeStore(db, "")
		t0 := time.UnixMilli(1_800_000_000_123)
		exchange := func(g tokenexchange.Grant, at time.Time) {
			t.Helper()
			c, err := s.Claim(ctx, g.Token, "o", time.Minute, at)
			require.NoError(t, err)
			require.Equal(t, tokenexchange.Claimed, c.State)
			require.NoError(t, s.Complete(ctx, g, "o", []byte("sealed"), time.Minute, at.Add(24*time.Hour), at))
		}
		alice := func(i int) tokenexchange.Grant {
			return tokenexchange.Grant{ConsumerKey: "ck", User: "alice", Token: fmt.Sprintf("a%d", i)}
		}
		exchange(tokenexchange.Grant{ConsumerKey: "ck", User: "bob", Token: "b0"}, t0)
		exchange(tokenexchange.Grant{ConsumerKey: "ck-2", User: "alice", Token: "c0"}, t0)
		exchange(tokenexchange.Grant{ConsumerKey: "ck-", User: "2alice", Token: "d0"}, t0)
		for i := range 20 {
			exchange(alice(i), t0.Add(time.Duration(i)*time.Second))
		}
		now := t0.Add(time.Minute)
		due, err := s.Due(ctx, now, 100)
		require.NoError(t, err)
		require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3)}, due)
		due, err = s.Due(ctx, now, 2)
		require.NoError(t, err)
		require.Len(t, due, 2, "limit")

		require.NoError(t, s.Revoked(ctx, "a5", time.Minute, now))
		exchange(alice(20), now)
		due, _ = s.Due(ctx, now, 100)
		require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3)}, due)
		exchange(alice(21), now)
		due, _ = s.Due(ctx, now, 100)
		require.ElementsMatch(t, []tokenexchange.Grant{alice(0), alice(1), alice(2), alice(3), alice(4)}, due)
		for _, g := range due {
			require.NoError(t, s.Revoked(ctx, g.Token, time.Minute, now))
		}
		due, _ = s.Due(ctx, now, 100)
		require.Empty(t, due)
		due, _ = s.Due(ctx, t0.Add(25*time.Hour), 100)
		require.Len(t, due, 3+16, "the rest when their time comes")

		c, err := s.Claim(ctx, "lost", "o", 30*time.Millisecond, now)
		require.NoError(t, err)
		require.Equal(t, tokenexchange.Claimed, c.State)
		lost := tokenexchange.Grant{ConsumerKey: "ck", User: "carol", Token: "lost"}
		require.Error(t, s.Complete(ctx, lost, "o", []byte("sealed"), time.Minute, now, now.Add(60*time.Millisecond)))
		due, _ = s.Due(ctx, now.Add(time.Second), 100)
		require.NotContains(t, due, lost, "never exchanged: not to revoke")
	})
}

// TestExchangeClaimRace: 4 pools × 64 goroutines claim one grant at once:
// exactly one Claimed, the others Busy, no error.
func TestExchangeClaimRace(t *testing.T) {
	dialects(t, func(t *testing.T, db *sql.DB) {
		ctx := context.Background()
		s := sqlstore.NewExchangeStore(db, "")
		now := time.Now()
		for round := range 5 {
			token := fmt.Sprint("race-", round)
			var mu sync.Mutex
			states := map[tokenexchange.State]int{}
			var errs []error
			start := make(chan struct{})
			var wg sync.WaitGroup
			for range 256 {
				wg.Go(func() {
					<-start
					c, err := s.Claim(ctx, token, fmt.Sprint("o", round), time.Minute, now)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						errs = append(errs, err)
					}
					states[c.State]++
				})
			}
			close(start)
			wg.Wait()
			require.Empty(t, errs)
			require.Equal(t, map[tokenexchange.State]int{tokenexchange.Claimed: 1, tokenexchange.Busy: 255}, states, "round %d", round)
		}
	})
}

// TestExchangeStoreUnavailable: with the database gone, every call is
// server.ErrStoreUnavailable.
func TestExchangeStoreUnavailable(t *testing.T) {
	db := openSQLite(t, true)
	s := sqlstore.NewExchangeStore(db, "")
	db.Close()
	ctx, now := context.Background(), time.Now()
	_, err1 := s.Claim(ctx, "g", "o", time.Minute, now)
	err2 := s.Complete(ctx, tokenexchange.Grant{Token: "g"}, "o", nil, time.Minute, now, now)
	err3 := s.Release(ctx, "g", "o", now)
	_, err4 := s.Due(ctx, now, 1)
	err5 := s.Revoked(ctx, "g", time.Minute, now)
	for i, err := range []error{err1, err2, err3, err4, err5} {
		require.True(t, errors.Is(err, server.ErrStoreUnavailable), "call %d: %v", i+1, err)
	}
}
