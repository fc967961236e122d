package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// nonceGrace is how long Expire keeps a nonce past its expiry: a Verifier
// reads its clock, then its Use may wait seconds for a lock while Expire
// runs on a later clock (the same host's, or another instance's a little
// ahead); a nonce dropped before the Verifier's now had its expiry would
// be fresh again. The Verifier's own margin is a second.
const nonceGrace = 30 * time.Second

// expireBatch is the most rows one DELETE of Expire drops: each batch is
// a transaction of its own, short, so that requests are not held behind
// the sweep.
const expireBatch = 5000

// Expire drops from db what has expired by now, for every tenant: nonces
// whose expiry has passed, temporary credentials past their Expires,
// revocations older than 24 hours, the token exchange's answers past
// their window and its records past their lease or keep. now must be the
// clock the stores are passed (the Verifiers', the Providers' and the
// token exchange Handlers', time.Now in production): a nonce dropped
// before its expiry on a Verifier's clock could be replayed. Nonces are
// kept 30 s past their expiry, for a Use that waited for a lock while
// Expire ran, and for instances whose clocks are a little apart.
//
// The stores never sweep on the request path, so that no request pays for
// the size of a table: call Expire apart from requests, once a minute or
// so, from one instance or from every one (each call does the work that is
// left). Nothing is refused while Expire is not called; the tables only
// grow.
//
//	go func() {
//		for now := range time.Tick(time.Minute) {
//			if err := sqlstore.Expire(ctx, db, now); err != nil {
//				log.Print(err)
//			}
//		}
//	}()
//
// On SQLite, Expire deletes in batches of 5,000 rows, each its own
// transaction. On PostgreSQL, the nonce table is partitioned by
// oauth_timestamp, an hour a partition: Expire also makes the partitions
// of the next 24 hours, and drops (DROP TABLE, which returns the space at
// once) the partitions whose hour has passed and whose nonces have all
// expired; nonces whose timestamp no partition holds are kept in a default
// partition and deleted in batches. Making and dropping a partition takes
// a lock on the nonce table for a moment; Expire waits at most a second
// for it (lock_timeout), and tries again on its next call.
func Expire(ctx context.Context, db *sql.DB, now time.Time) error {
	d := dialectOf(db)
	t := ms(now)
	for _, del := range []struct {
		what, table, key, where string
		before                  int64
	}{
		{"expired nonces", nonceTable(d), "tenant, id, ts", "expires <= $1", t - nonceGrace.Milliseconds()},
		{"expired temporary credentials", "oauth1_temporary", "tenant, token", "expires <= $1", t},
		{"old revocations", "oauth1_tokens", "seq", "revoked IS NOT NULL AND revoked <= $1", t - revokedTTL.Milliseconds()},
		{"old exchanges", "oauth1_exchanges", "seq", "drop_at <= $1", t},
	} {
		if err := deleteBatches(ctx, db, d, del.table, del.key, del.where, del.before); err != nil {
			return storeError(ctx, "dropping "+del.what, err)
		}
	}
	// Partitions last: making one scans the default partition, which the
	// DELETE above has just emptied of expired nonces.
	if d == postgres {
		if err := nonceParts(ctx, db, now); err != nil {
			return err
		}
	}
	// The answers of exchanges whose window passed.
	if _, err := db.ExecContext(ctx, `UPDATE oauth1_exchanges SET answer = NULL WHERE answer IS NOT NULL AND answer_until <= $1`, t); err != nil {
		return storeError(ctx, "dropping old exchange answers", err)
	}
	return nil
}

// nonceTable is where Expire deletes nonces: on PostgreSQL, the default
// partition; the others are dropped whole.
func nonceTable(d dialect) string {
	if d == postgres {
		return "oauth1_nonces_default"
	}
	return "oauth1_nonces"
}

// deleteBatches deletes the rows of table that match where (with $1 = t),
// expireBatch at a time; key is table's primary key, for SQLite.
func deleteBatches(ctx context.Context, db *sql.DB, d dialect, table, key, where string, t int64) error {
	stmt := fmt.Sprintf(`DELETE FROM %s WHERE (%s) IN (SELECT %s FROM %s WHERE %s LIMIT %d)`,
		table, key, key, table, where, expireBatch)
	if d == postgres {
		stmt = fmt.Sprintf(`DELETE FROM %s WHERE ctid = ANY (ARRAY(SELECT ctid FROM %s WHERE %s LIMIT %d))`,
			table, table, where, expireBatch)
	}
	for {
		res, err := db.ExecContext(ctx, stmt, t)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n < expireBatch {
			return nil
		}
	}
}

// partHours is how many hourly nonce partitions Expire keeps made ahead.
const partHours = 24

// nonceParts makes the nonce partitions of the hours from the last to 24
// ahead of now, and drops those of hours passed whose nonces all expired.
func nonceParts(ctx context.Context, db *sql.DB, now time.Time) error {
	have, err := partitions(ctx, db)
	if err != nil {
		return storeError(ctx, "listing nonce partitions", err)
	}
	hour := now.Unix() / 3600 * 3600
	for h := hour - 3600; h <= hour+partHours*3600; h += 3600 {
		if have[h] {
			continue
		}
		err := ddl(ctx, db, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS oauth1_nonces_p%d PARTITION OF oauth1_nonces FOR VALUES FROM (%d) TO (%d)`, h, h, h+3600))
		if err != nil && ctx.Err() != nil {
			return storeError(ctx, "making nonce partitions", err)
		}
		// Otherwise the default partition holds nonces of that hour
		// (Expire was not called for a while), or the lock was busy:
		// they stay in the default partition, swept by DELETE.
	}
	now = now.Add(-nonceGrace) // the partitions are dropped as Expire drops nonces
	for h := range have {
		if h+3600 > now.Unix() {
			continue
		}
		name := fmt.Sprintf("oauth1_nonces_p%d", h)
		var live bool
		if err := db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+name+` WHERE expires > $1)`, ms(now)).Scan(&live); err != nil {
			return storeError(ctx, "reading a nonce partition", err)
		}
		if live {
			continue
		}
		if err := ddl(ctx, db, dropIfExpired(name, now)); err != nil && ctx.Err() != nil {
			return storeError(ctx, "dropping a nonce partition", err)
		}
	}
	return nil
}

// dropIfExpired returns the statement that drops the nonce partition name
// if none of its nonces is live at now. It looks again under the nonce
// table's lock, taken first (as an INSERT takes it, so that neither waits
// for the other in a cycle): a nonce used since the look before, stamped
// late in the partition's hour and still in its window, is kept, or its
// replay would be fresh.
func dropIfExpired(name string, now time.Time) string {
	return fmt.Sprintf(`DO $$ BEGIN
	LOCK TABLE ONLY oauth1_nonces IN ACCESS EXCLUSIVE MODE;
	IF NOT EXISTS (SELECT 1 FROM %s WHERE expires > %d) THEN DROP TABLE IF EXISTS %[1]s; END IF;
END $$`, name, ms(now))
}

// partitions returns the hours of the nonce partitions db has, by the
// Unix time they start.
func partitions(ctx context.Context, db *sql.DB) (map[int64]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'oauth1_nonces'::regclass`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[int64]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		if h, err := strconv.ParseInt(strings.TrimPrefix(name, "oauth1_nonces_p"), 10, 64); err == nil {
			have[h] = true
		}
	}
	return have, rows.Err()
}

// ddl runs stmt in a transaction that waits at most a second for its
// locks, so that a long transaction elsewhere does not queue every
// request behind it, and runs at most 10 s (making a partition scans the
// default partition under its lock).
func ddl(ctx context.Context, db *sql.DB, stmt string) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = '1s'; SET LOCAL statement_timeout = '10s'`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return err
	}
	return tx.Commit()
}
