package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers/ghz"
	"github.com/crankshaft/crankshaft/internal/parsers/h2load"
)

// The HTTP/2 shape of the grpc scenarios: connections x streams.
const (
	h2Connections = 28
	h2Streams     = 70
)

// Modes of the protocols comparison.
const (
	modeHTTPS = "HTTPS keep-alive"
	modeH2C   = "h2c 28 x 70"
	modeGRPC  = "gRPC unary 28 x 70"
)

// protocolsComparison: crank load over TLS, HTTP/2 and gRPC against wrk, h2load and ghz, client
// CPU per request, each pair against the same server (nginx over TLS and h2c, the grpc app).
func (e *env) protocolsComparison(ctx context.Context) comparison {
	c := comparison{Title: "crank load over HTTPS, HTTP/2 and gRPC", Side: sideClient,
		About: "Client CPU per request, each generator pair against the same server pinned to CPU 0: " +
			"nginx over TLS (/plaintext, self-signed), nginx over h2c (/plaintext), the grpc app (UnaryCall, 10-byte payloads)."}
	srv := map[string]*server{}
	if e.tools.nginx != "" {
		tlsSrv, h2cSrv, err := startNginxProtocols(ctx, e, e.tools.nginx)
		if err != nil {
			e.tools.missing["nginx tls"] = err.Error()
		} else {
			srv["nginx tls"], srv["nginx h2c"] = tlsSrv, h2cSrv
			c.Commands = append(c.Commands, tlsSrv.Command)
			defer e.procs.stop(tlsSrv.p, 3*time.Second)
		}
	} else {
		e.tools.missing["nginx tls"] = "nginx not installed"
	}
	if s, err := startApp(ctx, e, "grpc app", e.tools.grpc); err != nil {
		e.tools.missing["grpc app"] = err.Error()
	} else {
		srv["grpc app"] = s
		c.Commands = append(c.Commands, s.Command)
		defer e.procs.stop(s.p, 3*time.Second)
	}
	h2 := []string{"--protocol", "h2", "-m", strconv.Itoa(h2Streams)}
	grpc := []string{"--protocol", "grpc", "-m", strconv.Itoa(h2Streams), "--response-size", "10"}
	pairs := []struct {
		mode, server, path string
		conns              int
		ref, ours          client
		target             float64
	}{
		{modeHTTPS, "nginx tls", "/plaintext", 0, wrkClient(e.tools.wrk, e.tools.lua), crankLoadClient(e.tools.crank, "-k"), 1},
		{modeH2C, "nginx h2c", "/plaintext", h2Connections, h2loadClient(e.tools.h2load), crankLoadClient(e.tools.crank, h2...), 0.25}, // issue 42
		{modeGRPC, "grpc app", "", h2Connections, ghzClient(e.tools.ghz, e.cfg.repo), crankLoadClient(e.tools.crank, grpc...), 0.2},
	}
	var trials []trial
	for _, p := range pairs {
		for _, cl := range []client{p.ref, p.ours} {
			r := row{Subject: cl.Name, Mode: p.mode, Reference: p.ref.Name}
			if cl.Name == genCrank {
				r.Target = p.target
			}
			r.Skipped = e.firstMissing(p.server, p.ref.Name, cl.Name)
			c.Rows = append(c.Rows, r)
			if r.Skipped == "" {
				t := trial{Subject: cl.Name, Mode: p.mode, Pipeline: 1, Connections: p.conns,
					Server: srv[p.server], Path: p.path, Client: cl}
				trials = append(trials, t)
				c.Commands = append(c.Commands, e.show(e.argv(t, e.cfg.seconds)))
			}
		}
	}
	c.Samples = e.runRounds(ctx, "protocols", c.Side, trials, c.Rows)
	return c
}

// h2loadClient runs h2load with one thread, 70 streams per connection (-m), for a duration.
func h2loadClient(h2loadPath string) client {
	return client{
		Name: "h2load",
		Args: func(url string, _, seconds, conns int) ([]string, bool) {
			return []string{h2loadPath, "-c", strconv.Itoa(conns), "-m", strconv.Itoa(h2Streams), "-t", "1",
				"-D", strconv.Itoa(seconds), url}, true
		},
		Parse: func(out []byte) (int64, error) { return driverCount(h2load.Parser{}.Parse(bytes.NewReader(out))) },
	}
}

// ghzClient runs ghz (UnaryCall, 10-byte payloads) with connections x 70 calls in flight,
// letting the calls in flight at the end finish (as the ghz job does).
func ghzClient(ghzPath, repo string) client {
	proto := filepath.Join(repo, "apps/grpc/proto")
	return client{
		Name: "ghz",
		Args: func(url string, _, seconds, conns int) ([]string, bool) {
			return []string{ghzPath, "--insecure", "--connections", strconv.Itoa(conns),
				"-c", strconv.Itoa(conns * h2Streams), "--proto", filepath.Join(proto, "grpc/testing/benchmark_service.proto"),
				"--import-paths", proto, "--call", "grpc.testing.BenchmarkService.UnaryCall",
				"-d", `{"response_size":10}`, "-z", fmt.Sprintf("%ds", seconds), "--duration-stop", "wait",
				"-O", "json", hostPort(url)}, true
		},
		Parse: func(out []byte) (int64, error) { return driverCount(ghz.Parser{}.Parse(bytes.NewReader(out))) },
	}
}

// hostPort is a URL's host:port (ghz takes no scheme).
func hostPort(url string) string {
	for _, prefix := range []string{"http://", "https://"} {
		if len(url) > len(prefix) && url[:len(prefix)] == prefix {
			url = url[len(prefix):]
		}
	}
	if i := bytes.IndexByte([]byte(url), '/'); i >= 0 {
		url = url[:i]
	}
	return url
}

// driverCount is the response count of a driver's measurements; bad responses or errors make it
// an error.
func driverCount(m map[string]float64, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	n := int64(m[measure.Requests])
	if bad := m[measure.BadResponses] + m[measure.Errors]; bad > 0 {
		return n, fmt.Errorf("%.0f bad responses or errors", bad)
	}
	return n, nil
}

// nginxProtocolsConfig serves /plaintext over TLS (HTTP/1.1) on tlsPort and over h2c (HTTP/2
// with prior knowledge) on h2cPort, with one worker.
func nginxProtocolsConfig(dir string, tlsPort, h2cPort int) string {
	return nginxHead("bench/protocols.go", dir) + fmt.Sprintf(`    http2_max_requests 100000000;
    http2_max_concurrent_streams 128;
    server {
        listen 127.0.0.1:%[2]d ssl;
        ssl_certificate %[1]s/cert.pem;
        ssl_certificate_key %[1]s/key.pem;
        location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
    }
    server {
        listen 127.0.0.1:%[3]d http2;
        location = /plaintext { default_type text/plain; return 200 "Hello, World!"; }
    }
}
`, dir, tlsPort, h2cPort)
}

// startNginxProtocols starts an nginx of its own for the protocols comparison; both servers
// returned share its process.
func startNginxProtocols(ctx context.Context, e *env, nginx string) (tlsSrv, h2cSrv *server, err error) {
	dir := filepath.Join(e.tmp, "nginx-protocols")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("nginx: %w", err)
	}
	if _, err := testutil.WriteCerts(dir); err != nil {
		return nil, nil, fmt.Errorf("nginx: %w", err)
	}
	tlsPort, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	h2cPort, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxProtocolsConfig(dir, tlsPort, h2cPort)), 0o644); err != nil {
		return nil, nil, fmt.Errorf("nginx: %w", err)
	}
	argv := e.pinned(cpuServer, nginx, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	tlsSrv, err = startServer(ctx, e, "nginx", argv, tlsPort)
	if err != nil {
		return nil, nil, err
	}
	tlsSrv.Scheme, tlsSrv.Command = "https", e.show(argv)
	h2cSrv = &server{Name: "nginx", Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(h2cPort)), port: h2cPort, p: tlsSrv.p}
	return tlsSrv, h2cSrv, nil
}
