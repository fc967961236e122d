//go:build unix

// Package pgtest starts a PostgreSQL server for tests: Debian's
// postgresql binaries (initdb, postgres) on a temporary directory and a
// free loopback port, as an unprivileged user when the tests run as
// root, killed with the test process. Tests that need PostgreSQL call
// [DSN], which skips the test when the binaries are missing, unless
// COUNTERSIGN_REQUIRE_POSTGRES=1 makes that a failure.
//
// One server is started per test binary, on first use, and each DSN names
// a database of its own. Call [Stop] from TestMain once the tests ran.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
)

// Require is the environment variable that turns a missing PostgreSQL
// into a test failure.
const Require = "COUNTERSIGN_REQUIRE_POSTGRES"

// A Server is a running PostgreSQL.
type Server struct {
	Port int
	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
	log  *os.File
}

var (
	once     sync.Once
	shared   *Server
	startErr error
)

// DSN returns the URL of a new, empty database on the shared server
// (started on first use), which the test may change as it likes. It skips
// the test, or fails it when COUNTERSIGN_REQUIRE_POSTGRES=1, when
// PostgreSQL cannot be started.
func DSN(t testing.TB) string {
	t.Helper()
	s := Shared(t)
	name := "t_" + strings.ToLower(rand.Text()[:12])
	admin, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatalf("pgtest: creating a database: %v", err)
	}
	return s.URL(name)
}

// Shared returns the shared server, started on first use; it skips or
// fails t as DSN does when it cannot be started.
func Shared(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, startErr = Start() })
	if startErr != nil {
		if os.Getenv(Require) == "1" {
			t.Fatalf("pgtest: %v (%s=1)", startErr, Require)
		}
		t.Skipf("pgtest: %v (set %s=1 to fail instead)", startErr, Require)
	}
	return shared
}

// Stop stops the shared server, if it was started.
func Stop() {
	if shared != nil {
		shared.Stop()
	}
}

// URL returns the URL of the database name on s, as the superuser
// postgres, who needs no password.
func (s *Server) URL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, name)
}

// binDir returns the directory of initdb and postgres: that of initdb on
// PATH, or the newest /usr/lib/postgresql/*/bin.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("PostgreSQL's initdb and postgres are not installed (Debian: apt-get install postgresql)")
}

// Start starts a PostgreSQL server of its own on a temporary directory
// and a free loopback port, as the user postgres (or nobody) when run as
// root. fsync is off: the server's data lives as long as the tests.
func Start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	cred, err := credential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	for range 5 {
		s, err := run(bin, dir, data, cred)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, errPortTaken) {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	os.RemoveAll(dir)
	return nil, errors.New("no free port for PostgreSQL")
}

var errPortTaken = errors.New("port taken")

// run starts postgres on data, on a free port, and waits until it answers.
func run(bin, dir, data string, cred *syscall.Credential) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("postgres-%d.log", port)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=300",
		"-c", "shared_buffers=32MB")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	setDeathSignal(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	s := &Server{Port: port, dir: dir, cmd: cmd, exit: make(chan struct{}), log: logf}
	go func() { cmd.Wait(); close(s.exit) }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exit:
			logf.Close()
			out, _ := os.ReadFile(logf.Name())
			if strings.Contains(string(out), "Address already in use") {
				return nil, errPortTaken
			}
			return nil, fmt.Errorf("postgres exited: %s", out)
		case <-time.After(100 * time.Millisecond):
		}
		if s.ping() == nil {
			return s, nil
		}
	}
	s.kill()
	return nil, errors.New("postgres did not answer within 60 s")
}

func (s *Server) ping() error {
	db, err := sql.Open("pgx", s.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

func (s *Server) kill() {
	s.cmd.Process.Signal(syscall.SIGQUIT) // immediate shutdown; the data is the tests'
	select {
	case <-s.exit:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exit
	}
	s.log.Close()
}

// Stop stops s and removes its directory.
func (s *Server) Stop() {
	s.kill()
	os.RemoveAll(s.dir)
}

// credential returns whom to run PostgreSQL as: nil (the current user)
// unless running as root, which PostgreSQL refuses; then the user
// postgres, or nobody, who is given dir.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	var u *user.User
	var err error
	for _, name := range []string{"postgres", "nobody"} {
		if u, err = user.Lookup(name); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("running as root, and no user postgres or nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
