// Command provider is a small OAuth 1.0a provider whose state survives a
// restart: temporary credentials, approvals, token credentials and the
// nonces of the last minutes live in a database, SQLite on one file by
// default or PostgreSQL, through module
// github.com/countersign/countersign/sqlstore. Kill it with kill -9 and
// start it again: every token works, every nonce already used is still
// refused, and an approval not yet exchanged can still be.
//
//	go run . -db provider.db -addr 127.0.0.1:8080 -consumer KEY:SECRET -user alice:PASSWORD
//
// Its endpoints are those of RFC 5849 §2 and one protected resource:
//
//	POST /oauth/request_token   temporary credentials (§2.1)
//	GET  /oauth/authorize       the consent page (§2.2), for users signed in with HTTP Basic auth
//	POST /oauth/access_token    token credentials (§2.3)
//	GET  /api/me                the name of the user who approved the token, as JSON
//
// -consumer KEY:SECRET registers a client in the database (repeatable);
// -user NAME:PASSWORD a user who may sign in to the consent page
// (repeatable, kept in memory: a real provider plugs in its own sign-in).
// -auto-approve USER approves every authorization as USER and sends the
// client's user straight back to its callback, for tests and demos; it is
// refused unless -addr is a loopback address. -db postgres://… keeps the
// state in PostgreSQL instead.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/countersign/countersign/oauth1/server"
	"github.com/countersign/countersign/sqlstore"
)

// pairs is a repeatable flag of NAME:VALUE pairs.
type pairs map[string]string

func (p pairs) String() string { return fmt.Sprint(len(p), " entries") } // never the values: they are secrets

func (p pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, ":")
	if !ok || k == "" || v == "" {
		return errors.New("want NAME:VALUE, both not empty")
	}
	p[k] = v
	return nil
}

func main() {
	consumers, users := pairs{}, pairs{}
	dsn := flag.String("db", "provider.db", "the database: a SQLite file, or a postgres:// URL")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Var(consumers, "consumer", "register the client `KEY:SECRET` in the database (repeatable)")
	flag.Var(users, "user", "a user `NAME:PASSWORD` who may sign in to the consent page (repeatable)")
	autoApprove := flag.String("auto-approve", "", "approve every authorization as `USER` (tests and demos; loopback -addr only)")
	sealKey := flag.String("seal-key", "", "a `FILE` holding 64 hex digits: the AES-256 key that seals consumer secrets in the database")
	expireEvery := flag.Duration("expire-every", time.Minute, "how often expired rows are dropped")
	flag.Parse()
	log.SetFlags(log.LstdFlags | log.LUTC)
	if *autoApprove != "" && !loopback(*addr) {
		log.Fatalf("-auto-approve approves anyone's authorization: it is refused unless -addr is a loopback IP address, such as 127.0.0.1:8080 (got %q)", *addr)
	}
	var key []byte
	if *sealKey != "" {
		var err error
		if key, err = readKey(*sealKey); err != nil {
			log.Fatal(err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	db, err := openDB(ctx, *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	p, err := newProvider(ctx, db, key, consumers)
	if err != nil {
		log.Fatal(err)
	}
	if len(users) == 0 && *autoApprove == "" {
		log.Print("warning: no -user and no -auto-approve: nobody can approve an authorization")
	}
	h := newHandler(p, users, *autoApprove)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := newServer(h)
	expired := make(chan struct{})
	go func() { expireLoop(ctx, db, *expireEvery); close(expired) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Printf("listening on http://%s", ln.Addr())

	select {
	case err := <-served:
		log.Fatal(err)
	case <-ctx.Done():
	}
	// SIGINT or SIGTERM: stop taking connections, finish the requests in
	// flight (10 s at most), then close the database.
	stop()
	log.Print("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Printf("shutdown: %v", err)
	}
	<-expired
	log.Print("stopped")
}

// maxConns bounds the provider's connections to its database.
const maxConns = 16

// openDB opens dsn and brings its schema to the version sqlstore needs.
func openDB(ctx context.Context, dsn string) (*sql.DB, error) {
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	db, err := sqlstore.Open(openCtx, dsn)
	if err != nil {
		return nil, err
	}
	// A bounded pool: a flood of requests waits for a connection rather
	// than open one each, past PostgreSQL's max_connections (shared with
	// every other client of the server) or the open files' limit.
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	applied, err := sqlstore.Migrate(openCtx, db, false)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrating the database: %w", err)
	}
	for _, m := range applied {
		log.Printf("schema: applied migration %d (%s)", m.Version, m.Name)
	}
	return db, nil
}

// newProvider returns the Provider whose stores all live in db, with the
// clients of consumers registered there (their secrets sealed with key,
// if not nil).
func newProvider(ctx context.Context, db *sql.DB, key []byte, consumers map[string]string) (*server.Provider, error) {
	cs, err := sqlstore.NewConsumerStore(db, "", key)
	if err != nil {
		return nil, err
	}
	for k, secret := range consumers {
		if err := cs.PutConsumer(ctx, k, server.Registration{Secret: secret}); err != nil {
			return nil, fmt.Errorf("registering consumer %q: %w", k, err)
		}
	}
	return &server.Provider{
		Consumers: cs,
		Temporary: sqlstore.NewTemporaryStore(db, ""),
		Tokens:    sqlstore.NewTokenStore(db, ""),
		// The nonces too: in memory, a restart would forget them, and every
		// request of the last five minutes could be replayed.
		Settings: server.Settings{Nonces: sqlstore.NewNonceStore(db, ""), RequireToken: true},
		Observe: func(r *http.Request, v *server.Verification, err error) {
			if err != nil {
				log.Printf("%s %s refused: %v", r.Method, r.URL.Path, err)
			}
		},
	}, nil
}

// expireLoop drops expired rows every interval until ctx is done, apart
// from requests, so that no request pays for the size of a table.
func expireLoop(ctx context.Context, db *sql.DB, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		expireCtx, cancel := context.WithTimeout(ctx, every)
		if err := sqlstore.Expire(expireCtx, db, time.Now()); err != nil && ctx.Err() == nil {
			log.Printf("expire: %v", err) // tried again at the next tick; nothing is refused meanwhile
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// newServer returns the provider's server, with timeouts: without them, a
// client that sends headers, or a body, a byte at a time (or never) holds
// a connection, and the memory behind it, for as long as it likes.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second, // the headers and the body
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// loopback reports whether addr (host:port) listens on loopback only: its
// host is a loopback IP literal. A name, "localhost" included, is refused:
// what it resolves to is not this program's to check (RFC 8252 §8.3).
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readKey reads a 32-byte key written as 64 hex digits in file.
func readKey(file string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("-seal-key %s: want 64 hex digits (make one with: head -c 32 /dev/urandom | xxd -p -c 32)", file)
	}
	return key, nil
}

// randomKey returns 32 random bytes.
func randomKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}
