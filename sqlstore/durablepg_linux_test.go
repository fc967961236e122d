package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// durablePostgres starts a PostgreSQL of its own for the benchmark, as
// pgtest does but with its defaults for durability (fsync and
// full_page_writes on, which pgtest turns off on the command line, where
// no ALTER SYSTEM reaches them), and returns a database's URL; the server
// is stopped and its directory removed when b ends.
func durablePostgres(b testing.TB) string {
	b.Helper()
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(dirs) == 0 {
			b.Skip("no PostgreSQL (Debian: apt-get install postgresql)")
		}
		initdb = dirs[len(dirs)-1]
	}
	if p, err := filepath.EvalSymlinks(initdb); err == nil {
		initdb = p
	}
	bin := filepath.Dir(initdb)
	dir, err := os.MkdirTemp("", "sqlstore-bench-pg-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			u, err = user.Lookup("nobody")
		}
		if err != nil {
			b.Skip("running as root, and no user postgres or nobody to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			b.Fatal(err)
		}
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("initdb: %v: %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		b.Fatal(err)
	}
	srv := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	srv.Dir = dir
	srv.Stdout, srv.Stderr = logf, logf
	srv.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	b.Cleanup(func() {
		srv.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			srv.Process.Kill()
			<-exited
		}
		logf.Close()
	})
	url := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	db, err := sql.Open("pgx", url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			break
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(logf.Name())
			b.Fatalf("postgres exited: %s", out)
		default:
		}
		if time.Now().After(deadline) {
			b.Fatal(errors.Join(errors.New("postgres did not answer within 60 s"), err))
		}
	}
	return url
}
