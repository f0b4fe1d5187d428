package loadgen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// run runs o. A window in which nothing at all happened (no request sent, no error: the
// connections were still being made, as TLS handshakes under -race beside three builds were in a
// gate run, "requests 0 ... errors 0") shows nothing of what a test checks: it is run again with a
// window four times as long, at most twice. A count in o bounds a run, not its time.
func run(t *testing.T, o Options) *Report {
	t.Helper()
	for try := 0; ; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second+o.Duration)
		rep, err := Run(ctx, o)
		cancel()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if rep.Sent > 0 || rep.Requests > 0 || rep.Errors.Total() > 0 || rep.ConnectError != "" || o.Rate > 0 || try == 2 {
			return rep
		}
		t.Logf("nothing happened in %v (connections still being made): again with %v", o.Duration, 4*o.Duration)
		o.Duration *= 4
	}
}

func TestCountsAgreeWithServer(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		for _, c := range []struct {
			depth int
			split bool
		}{{1, false}, {16, false}, {16, true}} {
			depth := c.depth
			t.Run(fmt.Sprintf("pipeline %d split %v", c.depth, c.split), func(t *testing.T) {
				t.Parallel()
				s := newServer(t, okReply)
				s.split = c.split
				s.start()
				d := 300 * time.Millisecond
				rep := run(t, Options{IO: io, URL: s.url(), Connections: 8, Pipeline: depth, Duration: d})
				// Sending stops at the end and every request in flight is drained: exact agreement.
				if served := s.requests.Load(); rep.Requests != served || rep.Sent != served {
					t.Errorf("requests %d, sent %d; server answered %d", rep.Requests, rep.Sent, served)
				}
				if rep.Requests < 100 || rep.Errors.Total() != 0 || rep.Status["2xx"] != rep.Requests {
					t.Errorf("requests %d, errors %+v, status %v; want >= 100 all 2xx without errors", rep.Requests, rep.Errors, rep.Status)
				}
				if rep.Elapsed < d || rep.Elapsed > d+time.Second {
					t.Errorf("elapsed %s, want the %s window plus a short drain", rep.Elapsed, d)
				}
				// RPS as wrk counts it: responses completed within the duration, over the duration.
				if want := float64(rep.InWindow) / d.Seconds(); rep.RPS != want || rep.InWindow > rep.Requests || rep.InWindow < rep.Requests/2 {
					t.Errorf("rps %v, want %v (%d of %d responses in the window)", rep.RPS, want, rep.InWindow, rep.Requests)
				}
				if got := rep.Bytes; got != rep.Requests*int64(len(hello)) {
					t.Errorf("bytes %d, want %d", got, rep.Requests*int64(len(hello)))
				}
				if l := rep.Latency; l.P50 <= 0 || l.P50 > l.P99 || l.P99 > l.Max || l.Mean <= 0 {
					t.Errorf("latency summary %+v is not ordered and positive", l)
				}
			})
		}
	})
}

func TestPipelineDepthHonoured(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		s := startServer(t, okReply)
		run(t, Options{IO: io, URL: s.url(), Connections: 4, Pipeline: 16, Duration: 200 * time.Millisecond})
		if got := s.maxBatch.Load(); got != 16 {
			t.Errorf("most requests in one server read = %d, want 16", got)
		}
	})
}

// TestWarmupIsNotRecorded: a run with 300 ms of warm-up records only the responses after it, and
// its window starts at the warm-up's end: after it, and before a second warm-up would have ended
// (a start that ignored the warm-up, or waited it twice, fails; a timer waking late beside a busy
// core, 74 ms seen on CI under -race, does not). Within 100 ms of it is
// TestWarmupWindowStartsOnTime (make measure).
func TestWarmupIsNotRecorded(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		if off := warmupRun(t, io); off > 2*warmupTime {
			t.Errorf("window starts %s after Run, want the %s warm-up", off, warmupTime)
		}
	})
}

// warmupTime is warmupRun's warm-up.
const warmupTime = 300 * time.Millisecond

// warmupRun runs 300 ms after warmupTime of warm-up, checks the window starts no earlier than the
// warm-up's end, the run takes its duration plus a short drain, and only the responses after the
// warm-up are recorded; it returns how long after Run the window started.
func warmupRun(t *testing.T, io string) time.Duration {
	t.Helper()
	var mu sync.Mutex
	var answered []time.Time
	s := startServer(t, func(n int64) reply {
		mu.Lock()
		answered = append(answered, time.Now())
		mu.Unlock()
		return okReply(n)
	})
	warm, d, conns := warmupTime, 300*time.Millisecond, 4
	start := time.Now()
	rep := run(t, Options{IO: io, URL: s.url(), Connections: conns, Duration: d, Warmup: warm})
	off := rep.Start.Sub(start)
	if off < warm {
		t.Errorf("window starts %s after Run, before the end of the %s warm-up", off, warm)
	}
	if rep.Elapsed < d || rep.Elapsed > d+time.Second {
		t.Errorf("elapsed %s, want %s plus a short drain", rep.Elapsed, d)
	}
	mu.Lock()
	defer mu.Unlock()
	after := 0
	for _, at := range answered {
		if !at.Before(rep.Start) {
			after++
		}
	}
	// Responses written just before the switch arrive just after it: at most one per connection.
	if diff := rep.Requests - int64(after); after == len(answered) || diff < 0 || diff > int64(conns) {
		t.Errorf("recorded %d responses; the server answered %d of %d after the warm-up", rep.Requests, after, len(answered))
	}
	return off
}

func TestBadStatusCounted(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		var bad atomic.Int64
		s := startServer(t, func(n int64) reply {
			if n%3 == 0 {
				bad.Add(1)
				return reply{data: []byte("HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy")}
			}
			if n%7 == 0 {
				return reply{data: []byte("HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n")}
			}
			return okReply(n)
		})
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 4, Pipeline: 4, Duration: 200 * time.Millisecond})
		if rep.BadResponses != bad.Load() || rep.Status["5xx"] != bad.Load() || rep.Status["3xx"] == 0 {
			t.Errorf("bad responses %d, status %v; server sent %d 503s and some 302s", rep.BadResponses, rep.Status, bad.Load())
		}
		if rep.Requests != s.requests.Load() || rep.Errors.Total() != 0 {
			t.Errorf("requests %d (server %d), errors %+v", rep.Requests, s.requests.Load(), rep.Errors)
		}
	})
}

func TestMalformedResponsesDetected(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		cases := []struct {
			name    string
			data    string
			close   bool
			counted bool // the bad reply still parses as one response before the fault shows
		}{
			{"garbage", "garbage\r\n\r\n", false, false},
			{"truncated", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\nHello", true, false},
			{"body longer than Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHello, World!", false, true},
			{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello, World!\r\n0\r\n\r\n", false, false},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				var bad atomic.Int64
				s := startServer(t, func(n int64) reply {
					if n%10 == 5 {
						bad.Add(1)
						return reply{data: []byte(c.data), close: c.close}
					}
					return okReply(n)
				})
				rep := run(t, Options{IO: io, URL: s.url(), Connections: 2, Duration: 200 * time.Millisecond})
				good := s.requests.Load() - bad.Load()
				if c.counted {
					good = s.requests.Load()
				}
				if rep.Errors.Malformed != bad.Load() || rep.Requests != good || bad.Load() < 2 {
					t.Errorf("malformed %d, requests %d; server sent %d bad and %d good", rep.Errors.Malformed, rep.Requests, bad.Load(), good)
				}
				if other := rep.Errors.Total() - rep.Errors.Malformed; other != 0 {
					t.Errorf("other errors %+v, want none", rep.Errors)
				}
			})
		}
	})
}

func TestChunkedAndLargeBodies(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		big := strings.Repeat("x", 100_000)
		replies := []string{
			"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n8\r\n, World!\r\n0\r\nTrailer: t\r\n\r\n",
			fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(big), big),
			fmt.Sprintf("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", len(big), big, 3, "end"),
		}
		t.Parallel()
		s := startServer(t, func(n int64) reply { return reply{data: []byte(replies[n%3])} })
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 4, Pipeline: 8, Duration: 200 * time.Millisecond})
		if rep.Requests != s.requests.Load() || rep.Requests < 30 || rep.Errors.Total() != 0 {
			t.Errorf("requests %d (server %d), errors %+v", rep.Requests, s.requests.Load(), rep.Errors)
		}
	})
}

func TestConnectionCloseReconnects(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		closing := "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
		s := startServer(t, func(n int64) reply {
			if n%5 == 4 {
				return reply{data: []byte(closing), close: true}
			}
			return okReply(n)
		})
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 4, Pipeline: 4, Duration: 200 * time.Millisecond})
		if rep.Requests != s.requests.Load() || rep.Requests < 50 || rep.Errors.Total() != 0 {
			t.Errorf("requests %d (server %d), errors %+v", rep.Requests, s.requests.Load(), rep.Errors)
		}
		if rep.Dropped == 0 || rep.Sent != rep.Requests+rep.Dropped {
			t.Errorf("sent %d, requests %d, dropped %d: want the requests behind each close dropped", rep.Sent, rep.Requests, rep.Dropped)
		}
	})
}

func TestTimeoutCounted(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		s := startServer(t, func(n int64) reply {
			if n == 3 {
				return reply{} // never answered
			}
			return okReply(n)
		})
		rep := run(t, Options{IO: io, URL: s.url(), Connections: 2, Duration: 400 * time.Millisecond, Timeout: 100 * time.Millisecond})
		// Request 3 is never answered. On a loaded machine another answer may come too late as well:
		// every request the server took is either a response or a timeout.
		if rep.Errors.Timeout < 1 || rep.Errors.Total() != rep.Errors.Timeout || rep.Requests+rep.Errors.Timeout != s.requests.Load() {
			t.Errorf("errors %s, requests %d (server %d); want the unanswered request timed out", rep.Errors, rep.Requests, s.requests.Load())
		}
	})
}

func TestConnectErrors(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		rep := run(t, Options{IO: io, URL: "http://" + closedPort(t) + "/", Connections: 2, Duration: 200 * time.Millisecond})
		if rep.Requests != 0 || rep.Errors.Connect < 2 || rep.Errors.Total() != rep.Errors.Connect {
			t.Errorf("requests %d, errors %+v; want only connect errors", rep.Requests, rep.Errors)
		}
	})
}

func TestCancelStopsAtOnce(t *testing.T) {
	forEachIO(t, func(t *testing.T, io string) {
		t.Parallel()
		s := startServer(t, okReply)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		rep, err := Run(ctx, Options{IO: io, URL: s.url(), Connections: 4, Duration: time.Minute})
		if !errors.Is(err, context.DeadlineExceeded) || rep == nil || rep.Requests == 0 {
			t.Fatalf("Run = %v, %v; want a partial report and the context's error", rep, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("Run took %s after cancel at 100ms", took)
		}
		if rep.Elapsed > time.Second {
			t.Errorf("elapsed %s, want the time actually run", rep.Elapsed)
		}
	})
}

func TestThreadsSetAndRestoreGOMAXPROCS(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	s := startServer(t, okReply)
	run(t, Options{URL: s.url(), Connections: 1, Threads: before + 1, Duration: 50 * time.Millisecond})
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS after the run = %d, want %d restored", after, before)
	}
}

func TestInvalidOptions(t *testing.T) {
	_, err := Run(context.Background(), Options{URL: "ftp://x/", Connections: -1, Pipeline: 5000, Rate: -1, Headers: []string{"bad"}})
	for _, want := range []string{"scheme must be http or https", "connections", "pipeline", "rate", `header "bad"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
}
