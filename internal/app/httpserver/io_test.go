package httpserver

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/app/dispatch"
	"github.com/crankshaft/crankshaft/internal/testutil"
)

func refused() error {
	return fmt.Errorf("io_uring is forbidden here (sysctl kernel.io_uring_disabled, or a seccomp filter): %w", unix.EPERM)
}

// TestIOFallback makes the kernel's answer a refusal: auto serves on epoll loops and says why,
// and uring is refused at New with the reason, before anything is served.
func TestIOFallback(t *testing.T) {
	obs := &countObserver{}
	cfg := Config{NewHandler: func() Handler { return HandlerFunc(echoPath) }, Observer: obs, EventLoops: true,
		IO: IOAuto, probe: refused}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if io, why := s.IO(); io != IOEpoll || !strings.Contains(why, "io_uring is forbidden here") {
		t.Fatalf("auto refused: I/O %q (%q), want epoll and the reason", io, why)
	}
	c := dial(t, testutil.ServeLoopback(t, s.Serve))
	for i := range 10 {
		c.send(get(fmt.Sprintf("/%d", i)))
		if _, body := c.read(); body != fmt.Sprintf("/%d", i) {
			t.Fatalf("response %d: %q", i, body)
		}
	}
	if n, _ := obs.snapshot(); n != 10 {
		t.Fatalf("observed %d requests, want 10", n)
	}
	cfg.IO = IOUring
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "--io uring: io_uring is forbidden here") {
		t.Fatalf("New with uring refused = %v, want an error naming why", err)
	}
}

// TestIOChoice: epoll by default and when asked; auto takes uring where the kernel allows it;
// uring outside the inline event loops, and an unknown I/O, are errors naming them.
func TestIOChoice(t *testing.T) {
	h := func() Handler { return HandlerFunc(echoPath) }
	auto := IOUring
	if why := probeRing(); why != nil {
		auto = IOEpoll
	}
	for in, want := range map[string]string{"": IOEpoll, IOEpoll: IOEpoll, IOAuto: auto} {
		s, err := New(Config{NewHandler: h, EventLoops: true, IO: in})
		if err != nil {
			t.Fatalf("IO %q: %v", in, err)
		}
		if io, why := s.IO(); io != want || want == IOUring && why != "" {
			t.Errorf("IO %q: %s (%q), want %s", in, io, why, want)
		}
	}
	pool, err := dispatch.New(dispatch.Options{Mode: dispatch.Shared, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{NewHandler: h, EventLoops: true, IO: IOUring, Pool: pool}, "--io uring: io_uring serves only the inline event loops"},
		{Config{NewHandler: h, IO: IOUring}, "--io uring: io_uring serves only the inline event loops"},
		{Config{NewHandler: h, EventLoops: true, IO: "kqueue"}, `I/O "kqueue": want epoll, uring or auto`},
	} {
		if _, err := New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(IO %q, pool %v, loops %v) = %v, want %q", tc.cfg.IO, tc.cfg.Pool != nil, tc.cfg.EventLoops, err, tc.want)
		}
	}
	s, err := New(Config{NewHandler: h, EventLoops: true, IO: IOAuto, Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if io, why := s.IO(); io != IOEpoll || !strings.Contains(why, "inline event loops") {
		t.Errorf("auto with a pool: %s (%q), want epoll and why", io, why)
	}
}
