// Command oauth1-store manages the database of module
// github.com/countersign/countersign/sqlstore. The oauth1 command runs it
// for "oauth1 store …", so that oauth1 itself links no SQL driver.
//
//	go install github.com/countersign/countersign/sqlstore/cmd/oauth1-store@latest
//
//	oauth1-store migrate --db DSN [--dry-run]
//
// migrate applies the schema's migrations that the database lacks, each in
// a transaction of its own, as sqlstore.Migrate does, and prints those it
// applied. With --dry-run it changes nothing and prints the SQL instead, a
// script for a DBA to review and run (psql -v ON_ERROR_STOP=1 -f, or
// sqlite3), which records each migration as Migrate does. DSN is a SQLite
// file or a postgres:// URL, as for sqlstore.Open; without --db it is read
// from $OAUTH1_STORE_DB, which keeps a password out of the process list.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/countersign/countersign/sqlstore"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const usage = `usage: oauth1-store migrate --db DSN [--dry-run]

Commands:
  migrate    apply the schema migrations the database lacks (--dry-run: print their SQL)

DSN is a SQLite file or a postgres:// URL; without --db, $OAUTH1_STORE_DB.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "migrate":
		return migrate(ctx, args[1:], stdout, stderr, getenv)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "oauth1-store: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dsn := fs.String("db", "", "the database: a SQLite file or a postgres:// URL (default $OAUTH1_STORE_DB)")
	dryRun := fs.Bool("dry-run", false, "change nothing; print the SQL of the migrations to apply")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: oauth1-store migrate --db DSN [--dry-run]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "oauth1-store migrate: extra argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *dsn == "" {
		*dsn = getenv("OAUTH1_STORE_DB")
	}
	if *dsn == "" {
		fmt.Fprintln(stderr, "oauth1-store migrate: give --db DSN or set OAUTH1_STORE_DB")
		return exitUsage
	}
	postgres := strings.HasPrefix(*dsn, "postgres://") || strings.HasPrefix(*dsn, "postgresql://")
	open := *dsn
	if *dryRun && !postgres && !strings.HasPrefix(open, "file:") {
		if _, err := os.Stat(open); errors.Is(err, os.ErrNotExist) {
			// Open would create the file: read the migrations off an
			// empty database in memory instead.
			open = "file:oauth1-store-dry-run?mode=memory"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	db, err := sqlstore.Open(ctx, open)
	if err != nil {
		fmt.Fprintf(stderr, "oauth1-store migrate: %v\n", err) // sqlstore's errors do not repeat the DSN, which may hold a password
		return exitFailure
	}
	defer db.Close()
	ms, err := sqlstore.Migrate(ctx, db, *dryRun)
	if *dryRun && err == nil {
		printScript(stdout, ms, postgres)
		return exitOK
	}
	for _, m := range ms {
		fmt.Fprintf(stdout, "applied migration %d (%s)\n", m.Version, m.Name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "oauth1-store migrate: %v\n", err)
		return exitFailure
	}
	if len(ms) == 0 {
		fmt.Fprintln(stdout, "the schema is up to date")
	}
	return exitOK
}

// schemaTable is sqlstore's record of the migrations applied (the test
// checks that a database the script made is one Migrate finds up to date).
const schemaTable = `CREATE TABLE IF NOT EXISTS oauth1_schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT    NOT NULL,
	applied_at TEXT    NOT NULL
);`

// printScript writes ms as one script: each migration in a transaction of
// its own with its row in oauth1_schema_migrations, as Migrate applies it.
func printScript(w io.Writer, ms []sqlstore.Migration, postgres bool) {
	if len(ms) == 0 {
		fmt.Fprintln(w, "-- the schema is up to date: nothing to apply")
		return
	}
	now := `strftime('%Y-%m-%dT%H:%M:%SZ', 'now')`
	if postgres {
		now = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`
	}
	fmt.Fprintf(w, "-- oauth1-store migrate --dry-run: %d migrations, versions %d to %d.\n", len(ms), ms[0].Version, ms[len(ms)-1].Version)
	fmt.Fprintln(w, "-- Each runs in a transaction of its own, recorded in oauth1_schema_migrations.")
	fmt.Fprintln(w, schemaTable)
	for _, m := range ms {
		fmt.Fprintf(w, "\n-- version %d: %s\nBEGIN;\n%s\n", m.Version, m.Name, strings.TrimSpace(m.SQL))
		fmt.Fprintf(w, "INSERT INTO oauth1_schema_migrations (version, name, applied_at) VALUES (%d, '%s', %s);\nCOMMIT;\n",
			m.Version, strings.ReplaceAll(m.Name, "'", "''"), now)
	}
}
