package main

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// firstByteProxy forwards loopback TCP connections to target and records when the first byte of
// the first request arrived: the load reaches the app through it, so that moment is when the
// first request reaches the app (forwarding adds tens of microseconds).
type firstByteProxy struct {
	l      net.Listener
	target string
	mu     sync.Mutex
	first  time.Time
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

func startProxy(target string) (*firstByteProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &firstByteProxy{l: l, target: target, conns: map[net.Conn]bool{}}
	p.wg.Go(p.accept)
	return p, nil
}

// Port is where the load should connect.
func (p *firstByteProxy) Port() int { return p.l.Addr().(*net.TCPAddr).Port }

// First is when the first byte arrived (zero if none did).
func (p *firstByteProxy) First() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first
}

func (p *firstByteProxy) accept() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return // closed
		}
		if !p.track(c) {
			return
		}
		p.wg.Go(func() { p.forward(c) })
	}
}

// track registers c, or closes it and says false once the proxy is closing.
func (p *firstByteProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		c.Close()
		return false
	}
	p.conns[c] = true
	return true
}

func (p *firstByteProxy) forward(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 32<<10)
	n, err := c.Read(buf)
	if n > 0 {
		p.mu.Lock()
		if p.first.IsZero() {
			p.first = time.Now()
		}
		p.mu.Unlock()
	}
	if err != nil {
		return
	}
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		return
	}
	if !p.track(up) {
		return
	}
	defer up.Close()
	if _, err := up.Write(buf[:n]); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(c, up)
		c.Close()
		close(done)
	}()
	_, _ = io.Copy(up, c)
	up.Close()
	<-done
}

// Close stops accepting, closes every connection and waits for the forwarding to end.
func (p *firstByteProxy) Close() error {
	err := p.l.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.mu.Unlock()
	p.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
