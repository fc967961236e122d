//go:build unix

// Command pgserve runs the tests' PostgreSQL (package pgtest) for tests
// outside this module, which cannot import it: it starts the server,
// makes an empty database, prints its URL on a line of its own and serves
// until its standard input closes, then stops the server and removes its
// directory. examples/provider's restart test runs it with go run. It
// exits 3 when PostgreSQL cannot be started, saying why.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/countersign/countersign/sqlstore/internal/pgtest"
)

func main() {
	s, err := pgtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgserve:", err)
		os.Exit(3)
	}
	defer s.Stop()
	if err := createDB(s, "provider"); err != nil {
		fmt.Fprintln(os.Stderr, "pgserve:", err)
		s.Stop()
		os.Exit(1)
	}
	fmt.Println(s.URL("provider"))
	io.Copy(io.Discard, os.Stdin)
}

func createDB(s *pgtest.Server, name string) error {
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0")
	return err
}
