package testutil

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// HangingDocker is the real Docker engine behind a socket that can stop answering at once: new
// connections are accepted and never served, and the bytes of open ones (a container's log
// stream, its wait) stop flowing, as a wedged daemon's do.
type HangingDocker struct {
	// Sock is the socket the engine answers on (DOCKER_HOST unix://Sock) until Hang.
	Sock string
	hung chan struct{}
	once sync.Once
	gone chan struct{} // closed when the test ends: the held connections are let go
}

// NewHangingDocker puts a socket of its own in front of the local engine (DOCKER_HOST or
// /var/run/docker.sock); the held connections are let go when the test ends.
func NewHangingDocker(t testing.TB) *HangingDocker {
	t.Helper()
	target := "/var/run/docker.sock"
	if h, ok := strings.CutPrefix(os.Getenv("DOCKER_HOST"), "unix://"); ok {
		target = h
	}
	e := &HangingDocker{Sock: filepath.Join(t.TempDir(), "docker.sock"), hung: make(chan struct{}), gone: make(chan struct{})}
	ln, err := net.Listen("unix", e.Sock)
	if err != nil {
		t.Fatal(err)
	}
	var conns sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		e.Hang()
		close(e.gone)
		conns.Wait()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { e.serve(c, target) })
		}
	}()
	return e
}

// Hang makes the engine stop answering, for good.
func (e *HangingDocker) Hang() { e.once.Do(func() { close(e.hung) }) }

func (e *HangingDocker) serve(c net.Conn, target string) {
	defer c.Close()
	select {
	case <-e.hung: // accepted, never served
		<-e.gone
		return
	default:
	}
	up, err := net.Dial("unix", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			select {
			case <-e.hung: // the bytes stop flowing; the connection stays open
				<-e.gone
				done <- struct{}{}
				return
			default:
			}
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	select {
	case <-done:
	case <-e.hung:
		<-e.gone
	}
}
