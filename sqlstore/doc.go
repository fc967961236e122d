// Package sqlstore keeps the provider-side state of package server in a
// SQL database, so that it survives restarts and, on PostgreSQL, is
// shared by several instances of a service: every store that package
// server and module redisstore have, over [database/sql].
//
//   - [NonceStore]: the nonces of verified requests, so that a replay is
//     refused (a Verifier's or Provider's Settings.Nonces).
//   - [TemporaryStore] and [TokenStore]: the credentials of the
//     three-legged flow (RFC 5849 §2), a Provider's Temporary and Tokens.
//   - [ConsumerStore]: the client registrations, a Provider's Consumers,
//     with the consumer secrets sealed at rest under a key the operator
//     holds, if given one.
//   - [ExchangeStore]: the records of package tokenexchange, so that a
//     grant is exchanged for an OAuth 2.0 token once.
//   - [Usage]: the counts of package sunset, summed over instances.
//
// # Which database
//
// SQLite, a file on the machine, for a provider that runs as one process
// (or several on one machine): nothing to run beside it, a restart keeps
// every token and every nonce of the window. PostgreSQL for several
// machines: the instances share the database, and a replay refused by one
// is refused by all. Memory stores (package server's, the default) keep
// nothing across a restart; Redis (module redisstore) is shared and fast,
// and as durable as its persistence is configured.
//
// SQLite is reached through modernc.org/sqlite (v1.62.0, SQLite 3.54),
// SQLite translated to Go, so that a program using this package builds
// with CGO_ENABLED=0 and cross-compiles. Beside
// github.com/ncruces/go-sqlite3 (v0.37.0, the same SQLite), measured on
// the nonce statement in WAL with synchronous=NORMAL, it took 46–52 µs of
// CPU a check where ncruces took 48–58, and made a program 9.9 MB where
// ncruces made it 13.3: alike, and modernc is the older and more used of
// the two, with a plain database/sql driver. PostgreSQL is reached
// through github.com/jackc/pgx/v5, its database/sql driver (stdlib): a
// nonce check is one statement either way, and database/sql keeps every
// store's code one for both databases.
//
// # Opening
//
// [Open] opens either, by its DSN: a file's path for SQLite (created if
// missing), a postgres:// URL for PostgreSQL. [Migrate] brings the schema
// to this package's version (or, with dryRun, returns the SQL for a DBA to
// run); the stores take the *sql.DB and a tenant:
//
//	db, err := sqlstore.Open(ctx, "provider.db") // or "postgres://user@host/db"
//	if err != nil { … }
//	if _, err := sqlstore.Migrate(ctx, db, false); err != nil { … }
//	consumers, err := sqlstore.NewConsumerStore(db, "", key) // key: 32 bytes, or nil
//	p := &server.Provider{
//		Consumers: consumers,
//		Temporary: sqlstore.NewTemporaryStore(db, ""),
//		Tokens:    sqlstore.NewTokenStore(db, ""),
//		Settings:  server.Settings{Nonces: sqlstore.NewNonceStore(db, "")},
//	}
//	go func() { // expiry, apart from requests
//		for now := range time.Tick(time.Minute) {
//			if err := sqlstore.Expire(ctx, db, now); err != nil { log.Print(err) }
//		}
//	}()
//
// database/sql opens as many connections as there are calls at once: on
// PostgreSQL, bound them (db.SetMaxOpenConns) so that all the instances
// together stay under the server's max_connections (100 by default); a
// call past the server's limit is refused, and answered 503. SQLite runs
// one write at a time whatever the pool: a writer waits up to the busy
// timeout for the others.
//
// Every table has a tenant column, part of every key: tenants whose
// clients may choose the same consumer key (as LTI tools let each customer
// do) share one database, each with a tenant name of its own given to
// every store it uses. One tenant, "" for instance, is enough otherwise.
//
// # Exactly once
//
// Every check and every use of a one-time credential is one statement,
// decided by the database's unique key or row lock: a nonce is one INSERT
// … ON CONFLICT … DO UPDATE … WHERE expired RETURNING; an approval, an
// exchange of temporary credentials and a revocation are one UPDATE …
// WHERE state … (RETURNING); a token exchange's claim is one INSERT … ON
// CONFLICT. Of any number of concurrent attempts, from any number of
// processes, exactly one succeeds, and the others get the clean refusal
// (a replay, [server.ErrTokenUsed]) and never a database error: no SELECT
// before an INSERT, no duplicate-key error. TestNonceRace checks it with
// 4 connection pools × 64 goroutines on one nonce, round after round, on
// both databases.
//
// # Expiry
//
// No request pays for the size of a table: the stores never sweep, and
// each statement on the request path touches a bounded number of rows by
// their key. [Expire] drops what expired, apart from requests: call it
// from a ticker, once a minute or so. On PostgreSQL the nonces are
// partitioned by oauth_timestamp, an hour a partition, and Expire drops a
// partition whole once its nonces expired (DROP TABLE returns the space
// at once, where DELETE leaves it to VACUUM), and makes the partitions of
// the next 24 hours. Without Expire nothing is refused, but the tables
// grow. A SQLite file keeps the largest size it reached: the pages Expire
// frees are used again, not returned to the file system (VACUUM, run
// apart, returns them); PostgreSQL's autovacuum reclaims the rows deleted
// from the other tables.
//
// # Failure
//
// An error of the database (unreachable, timed out, locked past the busy
// timeout, the schema missing) is returned wrapping
// [server.ErrStoreUnavailable], never taken for an answer: the Verifier
// and the Provider refuse the request with 503 Service Unavailable and
// Retry-After, and a nonce is never reported fresh. Every call honours
// its context's deadline, as database/sql and its drivers do.
//
// # Durability: what a crash can lose
//
// Open sets SQLite to write-ahead logging with synchronous=NORMAL: a
// commit is written to the log before the call returns, but the log is
// flushed to disk (fsync) only at checkpoints. A process that crashes or
// is killed (kill -9) loses nothing: what it committed is in the
// operating system's cache. A power cut or an operating-system crash may
// lose the transactions of the last moments (since the last checkpoint),
// never the database's consistency. With synchronous=FULL
// ("file:provider.db?_pragma=synchronous(FULL)"), every commit waits for
// an fsync of the log, and survives a power cut too, at the cost of a
// disk flush per request.
//
// PostgreSQL with its defaults (synchronous_commit=on, fsync=on) loses no
// committed transaction to a crash of the server or the machine. Setting
// synchronous_commit=off (for the database or the role the provider uses)
// trades up to about 0.6 s of the last commits on a server crash for
// commits that do not wait for the disk.
//
// What losing recent commits means: lost nonces let a request of the
// last moments be replayed once more within its timestamp window; lost
// token credentials or approvals send their users through authorization
// again; a lost revocation re-enables the token, for good (token
// credentials do not expire). After restoring a backup or failing over to
// a replica that may lag, revoke again every token revoked since the point
// restored to, from a record kept outside this database (the audit log of
// the user's "disconnect").
//
// # Schema
//
// The schema is versioned SQL embedded in the package, one file a
// version for each database, applied by [Migrate] in order, each in a
// transaction with its row in the table oauth1_schema_migrations. Tables are
// named oauth1_*; times are Unix milliseconds on the clock the stores are
// passed; text is compared byte for byte.
//
// It is a module of its own, so that only a provider that uses SQL
// depends on the drivers; it is at v0 and joins the v1 promise of the
// main module once proven:
//
//	go get github.com/countersign/countersign/sqlstore@latest
package sqlstore
