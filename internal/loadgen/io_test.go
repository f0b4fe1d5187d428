package loadgen

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// forEachIO runs f as a subtest in each I/O mode: epoll, and uring where this kernel allows it
// (the machines this project runs on do; elsewhere the log says why not).
func forEachIO(t *testing.T, f func(t *testing.T, io string)) {
	t.Helper()
	modes := []string{IOEpoll}
	if err := probeRing(); err != nil {
		t.Logf("io_uring refused here, epoll only: %v", err)
	} else {
		modes = append(modes, IOUring)
	}
	for _, io := range modes {
		t.Run(io, func(t *testing.T) { f(t, io) })
	}
}

// refused is a probe that fails as a kernel forbidding io_uring does.
func refused() error { return errors.New("io_uring is forbidden here: operation not permitted") }

// TestIOFallback forces the probe to fail: auto runs on epoll, says so, and the counts still
// agree with the server; --io uring is refused with the reason.
func TestIOFallback(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	o := Options{URL: s.url(), Connections: 4, Pipeline: 4, Duration: 200 * time.Millisecond, probeIO: refused} // the default: auto
	rep := run(t, o)
	if rep.IO != IOEpoll || !strings.Contains(rep.IOFallback, "operation not permitted") {
		t.Errorf("io %q, fallback %q; want epoll and the probe's reason", rep.IO, rep.IOFallback)
	}
	if served := s.requests.Load(); rep.Requests != served || rep.Requests < 20 || rep.Errors.Total() != 0 {
		t.Errorf("requests %d (server %d), errors %+v", rep.Requests, served, rep.Errors)
	}
	var out strings.Builder
	writeSummary(&out, rep)
	if !strings.Contains(out.String(), "I/O: epoll") || !strings.Contains(out.String(), "io_uring refused, epoll instead: io_uring is forbidden") {
		t.Errorf("summary does not say epoll and why:\n%s", out.String())
	}
	o.IO = IOUring
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "--io uring: io_uring is forbidden here") {
		t.Errorf("Run with --io uring refused = %v, want an error naming why", err)
	}
}

// TestIOChoice: auto, the default, takes uring for cleartext HTTP/1.1 where the kernel allows it, and epoll is
// what was asked when asked; the report says which.
func TestIOChoice(t *testing.T) {
	t.Parallel()
	s := startServer(t, okReply)
	want := IOUring
	if probeRing() != nil {
		want = IOEpoll
	}
	for io, want := range map[string]string{IOAuto: want, IOEpoll: IOEpoll, "": want} { // auto by default
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 2, Duration: 100 * time.Millisecond})
		if rep.IO != want || rep.IOFallback != "" && want == IOUring {
			t.Errorf("--io %s: report io %q (fallback %q), want %s", io, rep.IO, rep.IOFallback, want)
		}
	}
}

// TestIOUringOnlyForCleartextHTTP1: h2, grpc and https with --io uring are option errors.
func TestIOUringOnlyForCleartextHTTP1(t *testing.T) {
	for _, o := range []Options{
		{URL: "http://x/", Protocol: ProtocolH2, IO: IOUring},
		{URL: "https://x/", IO: IOUring},
		{URL: "http://x/", IO: "kqueue"},
	} {
		err := o.withDefaults().Validate()
		if err == nil || !strings.Contains(err.Error(), "io ") {
			t.Errorf("%+v: Validate = %v, want an io error", o, err)
		}
	}
}
