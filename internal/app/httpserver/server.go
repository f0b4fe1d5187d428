// Package httpserver is a lean HTTP/1.1 server over raw TCP for the benchmark apps: one read
// buffer per connection, every request already buffered (pipelined) answered in one write, no
// allocation per request on the hot path, and optional dispatch of the work to a worker pool.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crankshaft/crankshaft/internal/app/dispatch"
)

// Handler answers one request by calling w.Write once. With a dispatch pool it runs on a worker
// goroutine, and pipelined requests of one connection may run concurrently on several workers;
// their responses are still written in request order.
type Handler interface {
	ServeRaw(w *Response, r *Request)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(w *Response, r *Request)

// ServeRaw calls f.
func (f HandlerFunc) ServeRaw(w *Response, r *Request) { f(w, r) }

// Observer is told about served requests and failures (the metrics package implements it).
type Observer interface {
	AddRequests(n int)
	Exception(kind string)
}

// Exception kinds reported by the server.
const (
	KindPanic      = "panic"
	KindBadRequest = "bad_request"
)

// Config configures a Server. Only NewHandler is required.
type Config struct {
	// Name is the Server header value (default "crankshaft").
	Name string
	// NewHandler returns a handler for one request slot of a connection (a connection has up to
	// 32 slots for pipelined requests). A handler value is never used by two goroutines at once,
	// so it may keep scratch buffers.
	NewHandler func() Handler
	// Pool runs the request processing; nil processes on the connection's goroutine.
	Pool     dispatch.Pool
	Observer Observer
	Logger   *slog.Logger
	// ReadBufferSize bounds a request head (default 8 KiB).
	ReadBufferSize int
	// EventLoops says the handlers never block (no I/O, no waiting): without a Pool, on Linux, TCP
	// connections are then served by GOMAXPROCS epoll event loops (loop_linux.go) rather than a
	// goroutine each. A handler that blocks would stall every connection of its loop.
	EventLoops bool
	// IO is the event loops' I/O: IOEpoll (the default), IOUring (io_uring rings: ring_linux.go),
	// or IOAuto (io_uring where the kernel allows it, else epoll, saying why). Only the inline
	// event loops (EventLoops, no Pool, Linux) take io_uring: New refuses IOUring elsewhere.
	IO string

	probe func() error // tests: stands for the kernel's answer to io_uring
}

// Server serves HTTP/1.1 on listeners.
type Server struct {
	name     string
	cfg      Config
	date     *dateClock
	log      *slog.Logger
	observer Observer
	nextID   atomic.Uint64
	// io is the event loops' I/O (IOEpoll or IOUring), ioFallback why auto took epoll: set by
	// New, and changed once by Serve when auto's rings do not start after all.
	ioMu           sync.Mutex
	io, ioFallback string
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.NewHandler == nil {
		return nil, errors.New("httpserver: Config.NewHandler is nil")
	}
	if cfg.Name == "" {
		cfg.Name = "crankshaft"
	}
	if cfg.ReadBufferSize <= 0 {
		cfg.ReadBufferSize = 8 << 10
	}
	s := &Server{name: cfg.Name, cfg: cfg, date: newDateClock(), log: cfg.Logger, observer: cfg.Observer}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.observer == nil {
		s.observer = nopObserver{}
	}
	if err := s.chooseIO(); err != nil {
		return nil, err
	}
	return s, nil
}

type nopObserver struct{}

func (nopObserver) AddRequests(int)  {}
func (nopObserver) Exception(string) {}

// Serve accepts connections on ln until ctx ends, then closes ln and every open connection and
// waits for their goroutines. It returns nil after a cancellation.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	var wg sync.WaitGroup
	defer wg.Wait() // runs after cancel: the clock and the connections see ctx end
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Go(func() { s.date.run(ctx) })
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var ls handoffer
	if s.cfg.EventLoops && s.cfg.Pool == nil && loopsApply {
		var err error
		if ls, err = s.startEventLoops(ctx, &wg); err != nil {
			return err
		}
	}
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond) // transient accept failure: back off briefly
				continue
			}
			return fmt.Errorf("httpserver: accept on %s: %w", ln.Addr(), err)
		}
		if ls != nil && ls.handoff(nc) {
			continue
		}
		c := s.newConn(nc)
		wg.Go(func() { c.serve(ctx) })
	}
}
