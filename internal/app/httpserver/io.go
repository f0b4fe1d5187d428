package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync"
)

// How event loops do their I/O (Config.IO).
const (
	IOEpoll = "epoll"
	IOUring = "uring"
	IOAuto  = "auto"
)

// handoffer takes accepted connections over from Serve; handoff returns false when it did not
// (Serve then serves the connection on a goroutine).
type handoffer interface {
	handoff(nc net.Conn) bool
}

// chooseIO settles which I/O the event loops use, from Config.IO and the kernel's answer: auto
// takes io_uring where the kernel allows it and epoll otherwise, keeping the reason; uring asked
// and refused is an error.
func (s *Server) chooseIO() error {
	s.io = IOEpoll
	switch s.cfg.IO {
	case "", IOEpoll:
		return nil
	case IOUring, IOAuto:
	default:
		return fmt.Errorf("httpserver: I/O %q: want epoll, uring or auto", s.cfg.IO)
	}
	if !s.cfg.EventLoops || s.cfg.Pool != nil || !loopsApply {
		why := "io_uring serves only the inline event loops (no dispatch pool, Linux)"
		if s.cfg.IO == IOUring {
			return errors.New("httpserver: --io uring: " + why)
		}
		s.ioFallback = why
		return nil
	}
	probe := s.cfg.probe
	if probe == nil {
		probe = probeRing
	}
	if err := probe(); err != nil {
		if s.cfg.IO == IOUring {
			return fmt.Errorf("httpserver: --io uring: %w", err)
		}
		s.ioFallback = err.Error()
		return nil
	}
	s.io = IOUring
	return nil
}

// IO says which I/O the server's event loops use (uring or epoll) and, when auto took epoll,
// why io_uring was not used.
func (s *Server) IO() (io, fallback string) {
	s.ioMu.Lock()
	defer s.ioMu.Unlock()
	return s.io, s.ioFallback
}

// fallBack records that auto's rings did not start and the loops run on epoll, and why.
func (s *Server) fallBack(why string) {
	s.ioMu.Lock()
	defer s.ioMu.Unlock()
	s.io, s.ioFallback = IOEpoll, why
}

// startEventLoops starts GOMAXPROCS event loops on the chosen I/O. Rings that do not start are
// an error when uring was asked, and give way to epoll loops under auto; loops that do not
// start leave Serve a goroutine per connection.
func (s *Server) startEventLoops(ctx context.Context, wg *sync.WaitGroup) (handoffer, error) {
	n := runtime.GOMAXPROCS(0)
	if io, _ := s.IO(); io == IOUring {
		rs, err := s.startRings(ctx, wg, n)
		if err == nil {
			s.log.Info("event loops", slog.String("io", IOUring), slog.Int("loops", n))
			return rs, nil
		}
		if s.cfg.IO == IOUring {
			return nil, fmt.Errorf("httpserver: --io uring: %w", err)
		}
		s.fallBack("io_uring rings did not start: " + err.Error())
		s.log.Warn("io_uring rings did not start, epoll instead", slog.Any("err", err))
	} else if _, why := s.IO(); why != "" {
		s.log.Warn("io_uring refused, epoll instead", slog.String("reason", why))
	}
	ls, err := s.startLoops(ctx, wg, n)
	if err != nil {
		s.log.Warn("event loops unavailable, serving a goroutine per connection", slog.Any("err", err))
		return nil, nil
	}
	s.log.Info("event loops", slog.String("io", IOEpoll), slog.Int("loops", n))
	return ls, nil
}
