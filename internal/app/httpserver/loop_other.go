//go:build !linux

package httpserver

import (
	"context"
	"errors"
	"net"
	"sync"
)

// loopsApply says whether Serve can hand connections to event loops (Linux only).
const loopsApply = false

type loops struct{}

func (s *Server) startLoops(context.Context, *sync.WaitGroup, int) (*loops, error) {
	return nil, errors.New("event loops need Linux")
}

func (*loops) handoff(net.Conn) bool { return false }

func probeRing() error { return errors.New("io_uring needs Linux") }

type rings = loops

func (s *Server) startRings(context.Context, *sync.WaitGroup, int) (*rings, error) {
	return nil, errors.New("io_uring needs Linux")
}
