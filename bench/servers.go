package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// server is a server under test, pinned to the server CPU.
type server struct {
	Name string
	Addr string // 127.0.0.1:port
	port int
	p    *proc
	// Scheme is http unless set (https).
	Scheme string
	// Command is the command line as the report shows it.
	Command string
}

// URL is the server's address with path.
func (s *server) URL(path string) string {
	scheme := s.Scheme
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + s.Addr + path
}

// nginxConfig is the configuration nginx runs with: one worker, no access log, the two
// TechEmpower answers, in the foreground, every file in dir.
func nginxConfig(dir string, port int) string {
	return nginxHead("bench/servers.go", dir) + fmt.Sprintf(`    server {
        listen 127.0.0.1:%[1]d;
        location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
        location = /json { default_type application/json; return 200 '{"message":"Hello, World!"}'; }
    }
}
`, port)
}

// nginxHead is the start of a bench nginx configuration, up to the http block's servers: one
// worker, no access log, in the foreground, every file in dir.
func nginxHead(writer, dir string) string {
	return fmt.Sprintf(`# written by the bench (%[2]s)
worker_processes 1;
daemon off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    # as the apps, never close a keep-alive connection (nginx's default closes after 1000 requests)
    keepalive_requests 100000000;
    client_body_temp_path %[1]s/body;
`, dir, writer)
}

// startNginx writes the configuration into a folder of tmp and starts nginx on a free port.
func startNginx(ctx context.Context, e *env, nginx string) (*server, error) {
	dir := filepath.Join(e.tmp, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("nginx: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("nginx: %w", err)
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConfig(dir, port)), 0o644); err != nil {
		return nil, fmt.Errorf("nginx: %w", err)
	}
	argv := e.pinned(cpuServer, nginx, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	s, err := startServer(ctx, e, "nginx", argv, port)
	if err != nil {
		return nil, err
	}
	s.Command = e.show(argv)
	return s, nil
}

// startApp starts one of the apps (apps/plaintext, apps/json) on a free port, without metrics.
func startApp(ctx context.Context, e *env, name, exe string, args ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	argv := e.pinned(cpuServer, append([]string{exe, "--address", "127.0.0.1", "--port", strconv.Itoa(port)}, args...)...)
	s, err := startServer(ctx, e, name, argv, port)
	if err != nil {
		return nil, err
	}
	s.Command = e.show(argv)
	return s, nil
}

func startServer(ctx context.Context, e *env, name string, argv []string, port int) (*server, error) {
	var out bytes.Buffer // written by the process only until it is reaped; read after that
	p, err := e.procs.start(argv, nil, &out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &server{Name: name, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), port: port, p: p}
	if err := waitListening(ctx, s.Addr, p, 15*time.Second); err != nil {
		e.procs.stop(p, 2*time.Second)
		return nil, fmt.Errorf("%s: %w: %s", name, err, tail(out.Bytes()))
	}
	return s, nil
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening polls addr until it accepts a connection, p exits, or the deadline passes.
func waitListening(ctx context.Context, addr string, p *proc, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s not listening after %s: %w", addr, limit, err)
		case <-p.done:
			return fmt.Errorf("exited before listening on %s", addr)
		case <-tick.C:
		}
	}
}

// answer is one response as a client receives it.
type answer struct {
	Status      int
	ContentType string
	Body        string
	Bytes       int // the whole response on the wire: head and body
}

// probe sends one GET and reads the answer, counting its bytes on the wire.
func probe(addr, path string) (answer, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return answer{}, fmt.Errorf("probe %s%s: %w", addr, path, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, addr); err != nil {
		return answer{}, fmt.Errorf("probe %s%s: %w", addr, path, err)
	}
	cr := &countingReader{r: c}
	br := bufio.NewReader(cr)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return answer{}, fmt.Errorf("probe %s%s: %w", addr, path, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return answer{}, fmt.Errorf("probe %s%s: body: %w", addr, path, err)
	}
	return answer{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: string(body),
		Bytes: cr.n - br.Buffered()}, nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
