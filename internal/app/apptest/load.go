package apptest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Load is a bounded pipelined load: Conns connections each send Depth requests for Path in one
// write and read the Depth responses, until Duration has passed or MaxRounds rounds are done.
// Every response must have the same length (true of the apps' fixed bodies: Date has a fixed
// width), which lets the client count responses by bytes and stay cheap.
type Load struct {
	Addr      string
	Path      string
	Conns     int
	Depth     int
	Duration  time.Duration
	MaxRounds int
}

// LoadResult is what a Load did.
type LoadResult struct {
	Requests int64
	Elapsed  time.Duration
}

// RPS returns requests per second.
func (r LoadResult) RPS() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

// Run applies the load and returns the number of responses read.
func (l Load) Run(ctx context.Context) (LoadResult, error) {
	size, err := l.responseSize()
	if err != nil {
		return LoadResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, l.Duration)
	defer cancel()
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, l.Conns)
	start := time.Now()
	for range l.Conns {
		wg.Go(func() {
			n, err := l.conn(ctx, size)
			total.Add(n)
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	res := LoadResult{Requests: total.Load(), Elapsed: time.Since(start)}
	close(errs)
	return res, <-errs
}

func (l Load) request() []byte {
	return []byte(strings.Repeat("GET "+l.Path+" HTTP/1.1\r\nHost: load\r\n\r\n", l.Depth))
}

// responseSize reads one response and returns its length in bytes.
func (l Load) responseSize() (int, error) {
	nc, err := net.DialTimeout("tcp", l.Addr, 5*time.Second)
	if err != nil {
		return 0, fmt.Errorf("load: dial %s: %w", l.Addr, err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(nc, "GET "+l.Path+" HTTP/1.1\r\nHost: load\r\nConnection: close\r\n\r\n"); err != nil {
		return 0, fmt.Errorf("load: write: %w", err)
	}
	b, err := io.ReadAll(nc)
	if err != nil {
		return 0, fmt.Errorf("load: read: %w", err)
	}
	// The probe's response carries "Connection: close\r\n", which pipelined responses do not.
	return len(b) - len("Connection: close\r\n"), nil
}

func (l Load) conn(ctx context.Context, size int) (int64, error) {
	nc, err := net.DialTimeout("tcp", l.Addr, 5*time.Second)
	if err != nil {
		return 0, fmt.Errorf("load: dial %s: %w", l.Addr, err)
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	defer stop()
	req, buf := l.request(), make([]byte, size*l.Depth)
	var done int64
	for round := 0; round < l.MaxRounds && ctx.Err() == nil; round++ {
		if _, err := nc.Write(req); err != nil {
			return done, ignoreDeadline(ctx, err)
		}
		if _, err := io.ReadFull(nc, buf); err != nil {
			return done, ignoreDeadline(ctx, err)
		}
		for i := 0; i < len(buf); i += size {
			if !bytes.HasPrefix(buf[i:], []byte("HTTP/1.1 200 ")) {
				return done, fmt.Errorf("load: unexpected response %q", buf[i:min(len(buf), i+64)])
			}
		}
		done += int64(l.Depth)
	}
	return done, nil
}

// ignoreDeadline hides the error caused by the load's own end.
func ignoreDeadline(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("load: %w", err)
}
