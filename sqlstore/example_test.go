package sqlstore_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// A Provider whose state lives in one SQLite file, with the sweep apart
// from requests.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sqlstore-example")
	defer os.RemoveAll(dir)

	db, err := sqlstore.Open(ctx, filepath.Join(dir, "provider.db")) // or "postgres://…"
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlstore.Migrate(ctx, db, false); err != nil {
		log.Fatal(err)
	}
	consumers, err := sqlstore.NewConsumerStore(db, "", nil) // or a 32-byte key to seal secrets
	if err != nil {
		log.Fatal(err)
	}
	if err := consumers.PutConsumer(ctx, "app", server.Registration{Secret: "app-secret"}); err != nil {
		log.Fatal(err)
	}
	p := &server.Provider{
		Consumers: consumers,
		Temporary: sqlstore.NewTemporaryStore(db, ""),
		Tokens:    sqlstore.NewTokenStore(db, ""),
		Settings:  server.Settings{Nonces: sqlstore.NewNonceStore(db, "")},
	}
	mux := http.NewServeMux()
	mux.Handle("POST /oauth/request_token", p.RequestTokenHandler())
	mux.Handle("POST /oauth/access_token", p.AccessTokenHandler())
	mux.Handle("/api/", p.Middleware(http.NotFoundHandler()))

	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case now := <-tick.C:
				if err := sqlstore.Expire(ctx, db, now); err != nil {
					log.Print(err)
				}
			case <-stop:
				return
			}
		}
	}()
	fmt.Println("ready")
	// Output: ready
}

// A replay is refused, by any instance that shares the database.
func ExampleNonceStore() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sqlstore-example")
	defer os.RemoveAll(dir)
	db, err := sqlstore.Open(ctx, filepath.Join(dir, "nonces.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlstore.Migrate(ctx, db, false); err != nil {
		log.Fatal(err)
	}
	nonces := sqlstore.NewNonceStore(db, "")
	now := time.Now()
	n := server.Nonce{ConsumerKey: "app", Value: "c2a9f1", Timestamp: now.Unix()}
	for range 2 {
		fresh, err := nonces.Use(ctx, n, now, now.Add(5*time.Minute))
		fmt.Println(fresh, err)
	}
	// Output:
	// true <nil>
	// false <nil>
}

// What a DBA runs: the SQL of the migrations a database lacks, applied
// by nothing.
func ExampleMigrate_dryRun() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "sqlstore-example")
	defer os.RemoveAll(dir)
	db, err := sqlstore.Open(ctx, filepath.Join(dir, "empty.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	pending, err := sqlstore.Migrate(ctx, db, true)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range pending {
		fmt.Println(m.Version, m.Name)
	}
	// Output:
	// 1 0001_credentials.sql
	// 2 0002_consumers_usage.sql
	// 3 0003_exchanges.sql
}
