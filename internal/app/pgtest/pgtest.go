// Package pgtest starts a throwaway PostgreSQL server for tests: initdb into a temporary folder,
// postgres on a free loopback port with its unix socket in that folder, stopped (and checked
// gone) when the test ends. PostgreSQL refuses to run as root, so when the test runs as root
// the server runs as the "postgres" user through runuser.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"
	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"
)

// Server is a running PostgreSQL. The superuser is "postgres" with trust authentication.
type Server struct {
	Port    int
	DataDir string
	Dir     string // holds data/, sock/ and the server log
	owner   *user.User
	pgCtl   string
}

// Start runs initdb and postgres, or skips the test when initdb is not installed. Each setting
// ("name=value", e.g. "shared_preload_libraries=pg_stat_statements") is passed to postgres as -c.
func Start(t testing.TB, settings ...string) *Server {
	t.Helper()
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		testutil.Missing(t, "pgtest: initdb not on PATH (the PostgreSQL server: make test-deps installs it)")
	}
	s := &Server{}
	if os.Geteuid() == 0 {
		if s.owner, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("pgtest: running as root needs a postgres user: %v", err)
		}
	}
	if s.Dir, err = os.MkdirTemp("", "pgtest-"); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(s.Dir) })
	s.DataDir = filepath.Join(s.Dir, "data")
	if err := os.Mkdir(filepath.Join(s.Dir, "sock"), 0o700); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	s.chown(t)
	s.run(t, initdb, "-D", s.DataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
	s.Port = freePort(t)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
		s.Port, filepath.Join(s.Dir, "sock"))
	for _, kv := range settings {
		opts += " -c " + kv
	}
	s.pgCtl = pgCtl(initdb)
	t.Cleanup(func() { s.stop(t) })
	s.run(t, s.pgCtl, "-D", s.DataDir, "-l", filepath.Join(s.Dir, "server.log"), "-o", opts, "-w", "-t", "30", "start")
	return s
}

// URL returns a connection URL for database db as the superuser.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// CreateDatabase creates database name, runs the SQL script schema in it (if not empty), and
// returns its URL.
func (s *Server) CreateDatabase(t testing.TB, name, schema string) string {
	t.Helper()
	s.Exec(t, s.URL("postgres"), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" ENCODING 'UTF8'")
	url := s.URL(name)
	if schema != "" {
		s.Exec(t, url, schema)
	}
	return url
}

// Exec runs sql (one or more statements, simple protocol) on url.
func (s *Server) Exec(t testing.TB, url, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", url, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("pgtest: exec on %s: %v", url, err)
	}
}

// Log returns the server log (for failure messages).
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "server.log"))
	return string(b)
}

func pgCtl(initdb string) string {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return p
	}
	return filepath.Join(filepath.Dir(initdb), "pg_ctl")
}

// run executes a PostgreSQL tool, as the postgres user when the test runs as root.
func (s *Server) run(t testing.TB, name string, args ...string) {
	t.Helper()
	if err := s.command(name, args...); err != nil {
		t.Fatalf("pgtest: %v\n%s", err, s.Log())
	}
}

func (s *Server) command(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	if s.owner != nil {
		cmd = exec.Command("runuser", append([]string{"-u", s.owner.Username, "--", name}, args...)...)
	}
	cmd.Dir = s.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

func (s *Server) chown(t testing.TB) {
	if s.owner == nil {
		return
	}
	uid, _ := strconv.Atoi(s.owner.Uid)
	gid, _ := strconv.Atoi(s.owner.Gid)
	for _, p := range []string{s.Dir, filepath.Join(s.Dir, "sock")} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatalf("pgtest: chown %s: %v", p, err)
		}
	}
}

// stop shuts the server down and fails the test if any process still runs in its data folder.
func (s *Server) stop(t testing.TB) {
	if err := s.command(s.pgCtl, "-D", s.DataDir, "-m", "fast", "-w", "-t", "30", "stop"); err != nil {
		t.Errorf("pgtest: stop: %v", err)
	}
	// pg_ctl returns when the postmaster has removed its pid file, which it does on its way out:
	// on a busy machine the process can still be there a moment later. Wait for each to end.
	if pids := processesIn(s.DataDir); len(pids) > 0 {
		if left := waitEnded(pids, 10*time.Second); len(left) > 0 {
			t.Errorf("pgtest: processes still running in %s 10s after stop: %v", s.DataDir, left)
		}
	}
}

// waitEnded waits, at most limit in all, for each process to end (a pidfd turns readable when its
// process exits), and returns those still running.
func waitEnded(pids []int, limit time.Duration) []int {
	deadline := time.Now().Add(limit)
	var left []int
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil { // ESRCH: already gone
			continue
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(max(time.Until(deadline), 0).Milliseconds()))
		for err == unix.EINTR {
			n, err = unix.Poll(fds, int(max(time.Until(deadline), 0).Milliseconds()))
		}
		unix.Close(fd)
		if n == 0 || err != nil {
			left = append(left, pid)
		}
	}
	return left
}

// processesIn lists the processes whose working folder is dir (PostgreSQL's postmaster and every
// backend chdir into the data folder).
func processesIn(dir string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			pids = append(pids, pid)
		}
	}
	return pids
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
