package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/countersign/countersign/oauth1/sunset"
)

// defaultMaxClients bounds a Usage whose MaxClients is zero, as
// sunset.Usage's zero MaxClients does.
const defaultMaxClients = 10000

// Usage keeps the counts of [sunset.Usage] in a database, summed over the
// instances of a service: each instance counts its requests in memory, at
// no cost to the database, and adds them here from time to time with
// [sunset.Usage.Flush]:
//
//	shared := sqlstore.NewUsage(db, "")
//	go func() {
//		for range time.Tick(time.Minute) {
//			if err := usage.Flush(ctx, shared.Add); err != nil {
//				log.Print(err) // the counts wait for the next Flush
//			}
//		}
//	}()
//	...
//	clients, err := shared.Clients(ctx) // who still uses OAuth 1.0a
//
// The counts are rows of oauth1_usage, one a consumer key, kept until
// deleted. Usage holds at most MaxClients consumer keys for its tenant. It
// is safe for concurrent use.
type Usage struct {
	// MaxClients is the most consumer keys kept; the counts of further
	// keys are dropped. Zero means 10,000, as [sunset.Usage].
	MaxClients int

	db     *sql.DB
	tenant string
}

// NewUsage returns a Usage that keeps its counts in db, a database opened
// with [Open] and migrated, apart from other tenants'.
func NewUsage(db *sql.DB, tenant string) *Usage {
	return &Usage{db: db, tenant: tenant}
}

// Add adds the requests and exchanges of cs to the counts, and moves each
// client's last seen time forward to its LastSeen, never back, in one
// transaction. It is the add of [sunset.Usage.Flush]. Clients with an
// empty key, no requests and no exchanges are skipped; those beyond
// MaxClients are dropped without an error.
func (u *Usage) Add(ctx context.Context, cs []sunset.Client) (err error) {
	limit := u.MaxClients
	if limit <= 0 {
		limit = defaultMaxClients
	}
	tx, err := u.db.BeginTx(ctx, nil)
	if err != nil {
		return storeError(ctx, "adding usage counts", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	// In key order, so that concurrent Adds lock rows in one order and
	// never deadlock; an INSERT that meets a row another Add inserted
	// meanwhile adds to it.
	cs = slices.Clone(cs)
	slices.SortFunc(cs, func(a, b sunset.Client) int { return strings.Compare(a.ConsumerKey, b.ConsumerKey) })
	var held int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM oauth1_usage WHERE tenant = $1`, u.tenant).Scan(&held); err != nil {
		return storeError(ctx, "adding usage counts", err)
	}
	for _, c := range cs {
		if c.ConsumerKey == "" || !storable(c.ConsumerKey) || (c.Requests <= 0 && c.Exchanges <= 0) {
			continue
		}
		args := []any{u.tenant, c.ConsumerKey, max(c.Requests, 0), max(c.Exchanges, 0), c.LastSeen.UnixMilli()}
		res, err := tx.ExecContext(ctx, `UPDATE oauth1_usage SET requests = requests + $3, exchanges = exchanges + $4,
last_seen = CASE WHEN last_seen < $5 THEN $5 ELSE last_seen END WHERE tenant = $1 AND consumer_key = $2`, args...)
		if err != nil {
			return storeError(ctx, "adding usage counts", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return storeError(ctx, "adding usage counts", err)
		} else if n > 0 || held >= limit {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO oauth1_usage (tenant, consumer_key, requests, exchanges, last_seen)
VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant, consumer_key) DO UPDATE SET
requests = oauth1_usage.requests + excluded.requests, exchanges = oauth1_usage.exchanges + excluded.exchanges,
last_seen = CASE WHEN oauth1_usage.last_seen < excluded.last_seen THEN excluded.last_seen ELSE oauth1_usage.last_seen END`,
			args...); err != nil {
			return storeError(ctx, "adding usage counts", err)
		}
		held++
	}
	if err := tx.Commit(); err != nil {
		return storeError(ctx, "adding usage counts", err)
	}
	return nil
}

// Clients returns the counts of every client, the clients with the most
// requests first, then by consumer key, as [sunset.Usage.Clients] does.
func (u *Usage) Clients(ctx context.Context) ([]sunset.Client, error) {
	rows, err := u.db.QueryContext(ctx, `SELECT consumer_key, requests, exchanges, last_seen FROM oauth1_usage
WHERE tenant = $1`, u.tenant)
	if err != nil {
		return nil, storeError(ctx, "reading usage counts", err)
	}
	defer rows.Close()
	var cs []sunset.Client
	for rows.Next() {
		var c sunset.Client
		var last int64
		if err := rows.Scan(&c.ConsumerKey, &c.Requests, &c.Exchanges, &last); err != nil {
			return nil, storeError(ctx, "reading usage counts", err)
		}
		c.LastSeen = time.UnixMilli(last).UTC()
		cs = append(cs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, storeError(ctx, "reading usage counts", err)
	}
	sortClients(cs)
	return cs, nil
}

// sortClients sorts cs by requests, most first, then by consumer key.
func sortClients(cs []sunset.Client) {
	slices.SortFunc(cs, func(a, b sunset.Client) int {
		if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
			return c
		}
		return strings.Compare(a.ConsumerKey, b.ConsumerKey)
	})
}
