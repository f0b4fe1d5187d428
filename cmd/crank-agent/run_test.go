package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crankshaft/crankshaft/internal/testutil"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
)

func noEnv(string) string { return "" }

// TestCheckListen: the token decision is made on the address the listener got, not on the name
// given: "localhost" that resolves elsewhere is not trusted.
func TestCheckListen(t *testing.T) {
	tcp := func(ip string) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: 5010} }
	cases := []struct {
		host     string
		addr     net.Addr
		token    string
		insecure bool
		ok       bool
	}{
		{"127.0.0.1", tcp("127.0.0.1"), "", false, true},
		{"localhost", tcp("127.0.0.1"), "", false, true},
		{"localhost", tcp("10.0.0.2"), "", false, false}, // a name resolving elsewhere
		{"::1", tcp("::1"), "", false, true},
		{"0.0.0.0", tcp("0.0.0.0"), "", false, false},
		{"10.0.0.2", tcp("10.0.0.2"), "", false, false},
		{"bench-01.example", tcp("192.0.2.7"), "", false, false},
		{"0.0.0.0", tcp("0.0.0.0"), "a-token-of-20-chars!", false, true},
		{"0.0.0.0", tcp("0.0.0.0"), "tok", false, false},                  // guessed offline from one signed request
		{"10.0.0.2", tcp("10.0.0.2"), "benchmarks-lab-tok", false, false}, // 18 characters
		{"127.0.0.1", tcp("127.0.0.1"), "tok", false, true},               // loopback: nobody sees it but root
		{"0.0.0.0", tcp("0.0.0.0"), "", true, true},
	}
	for _, c := range cases {
		err := checkListen(c.addr, c.host, c.token, c.insecure)
		if (err == nil) != c.ok {
			t.Errorf("checkListen(%s as %q, token %q, insecure %v) = %v, want ok=%v", c.addr, c.host, c.token, c.insecure, err, c.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "--token") || !strings.Contains(err.Error(), "--insecure")) {
			t.Errorf("refusal %q does not say how to proceed", err)
		}
	}
}

// TestTokenlessLoopbackAgentMakesAToken: a loopback agent started without a token ran any
// local user's commands. Now it makes a token, writes it where only its user reads, and
// removes the file when it exits.
func TestTokenlessLoopbackAgentMakesAToken(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	cfg, err := parseFlags([]string{"--url", "http://localhost:0", "--dir", t.TempDir()}, noEnv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var logs testutil.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startServe(t, ctx, withLogger(cfg, &logs))
	url := "http://" + addr.String()
	anon, _ := api.NewClient(url, "", nil)
	if _, err := anon.Submit(ctx, api.Job{Executable: "id"}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("submit without a token: %v, want 401", err)
	}
	file := api.TokenFile(addr)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, %v; want mode 0600", file, fi, err)
	}
	tok, at := api.LocalToken(ctx, url)
	if len(tok) < 40 || at != addr.String() {
		t.Fatalf("LocalToken(%s) = %q, %q; want a token and %s", url, tok, at, addr)
	}
	c, _ := api.NewClient(url, tok, nil, api.DialAddr(at))
	if _, err := c.Info(ctx); err != nil {
		t.Errorf("info with the file's token: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("token file after exit: %v, want removed", err)
	}
}

func TestRunRefusesNonLoopbackWithoutToken(t *testing.T) {
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"--url", "http://0.0.0.0:0"}, noEnv, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), `refusing to listen on "0.0.0.0" without a token`) {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestParseFlags(t *testing.T) {
	env := func(k string) string {
		if k == tokenEnv {
			return "from-env"
		}
		return ""
	}
	cfg, err := parseFlags([]string{"--url", "http://0.0.0.0:5010", "--lease", "45s", "--max-upload", "64MiB", "--hardware", "rig",
		"--max-jobs", "8", "--max-upload-entries", "1000"}, env, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.opts.MaxJobs != 8 || cfg.opts.MaxUploadEntries != 1000 {
		t.Errorf("caps = %d jobs, %d entries", cfg.opts.MaxJobs, cfg.opts.MaxUploadEntries)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := parseFlags([]string{"--token-file", tokenFile}, env, &bytes.Buffer{}); err != nil || cfg.opts.Token != "from-file" || cfg.tokenArg {
		t.Errorf("--token-file: token %q (on the command line: %v), %v", cfg.opts.Token, cfg.tokenArg, err)
	}
	if cfg, err := parseFlags([]string{"--insecure"}, noEnv, &bytes.Buffer{}); err != nil || !cfg.opts.NoToken {
		t.Errorf("--insecure: NoToken %v, %v", cfg.opts.NoToken, err)
	}
	if cfg.opts.Token != "from-env" || cfg.opts.Lease != 45*time.Second || cfg.opts.MaxUpload != 64<<20 ||
		cfg.opts.Hardware != "rig" || cfg.listen.Host != "0.0.0.0:5010" || cfg.opts.Parsers["wrk"] == nil {
		t.Errorf("config = %+v", cfg)
	}
	cfg, err = parseFlags(nil, noEnv, &bytes.Buffer{})
	if err != nil || cfg.listen.String() != DefaultURL || cfg.opts.Token != "" {
		t.Errorf("defaults = %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "https://127.0.0.1:5010"}, "is https: give --cert and --key"},
		{[]string{"--url", "http://127.0.0.1:5010", "--cert", "c.pem", "--key", "k.pem"}, "--cert/--key need an https --url"},
		{[]string{"--url", "127.0.0.1:5010"}, "want http(s)://host:port"},
		{[]string{"--url", "http://127.0.0.1"}, "give the port"},
		{[]string{"--max-upload", "lots"}, `--max-upload: "lots": want a positive size`},
		{[]string{"--max-jobs", "0"}, "--max-jobs must be at least 1"},
		{[]string{"--token", "a", "--token-file", "/dev/null"}, "give --token or --token-file, not both"},
		{[]string{"--token-file", "/no/such/file"}, "--token-file: token file: open /no/such/file"},
		{[]string{"--insecure", "--token", "a"}, "--insecure means no token"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
	} {
		if _, err := parseFlags(c.args, noEnv, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseFlags(%q) = %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// TestServeHTTPSWithToken serves on a free port over TLS and stops when the context ends.
func TestServeHTTPSWithToken(t *testing.T) {
	certs := testutil.TestCerts(t)
	pool := certs.Pool
	cfg, err := parseFlags([]string{"--url", "https://127.0.0.1:0", "--cert", certs.CertFile, "--key", certs.KeyFile,
		"--token", "tok", "--dir", t.TempDir()}, noEnv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var logs testutil.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	addr, done := startServe(t, ctx, withLogger(cfg, &logs))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	c, err := api.NewClient("https://"+addr.String(), "tok", hc)
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx)
	if err != nil || info.Cores < 1 {
		t.Fatalf("info over TLS = %+v, %v", info, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not end after its context")
	}
	if !strings.Contains(logs.String(), "agent shut down") {
		t.Errorf("logs lack the shutdown: %s", logs.String())
	}
}

// startServe runs serve in the background and returns the address it listens on, once it does,
// and the channel its error comes on.
func startServe(t *testing.T, ctx context.Context, cfg config) (net.Addr, <-chan error) {
	t.Helper()
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, func(a net.Addr) { addrs <- a }) }()
	select {
	case addr := <-addrs:
		return addr, done
	case err := <-done:
		t.Fatalf("serve: %v", err)
		return nil, nil
	}
}

func withLogger(cfg config, w io.Writer) config {
	cfg.opts.Logger = slog.New(slog.NewTextHandler(w, nil))
	return cfg
}
func TestCacheFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--cache-dir", "/var/cache/crank-agent", "--cache-max-size", "2GiB", "--cache-max-age", "48h"}, noEnv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.opts.CacheDir != "/var/cache/crank-agent" || cfg.opts.CacheMaxBytes != 2<<30 || cfg.opts.CacheMaxAge != 48*time.Hour {
		t.Errorf("cache options = %q, %d, %s", cfg.opts.CacheDir, cfg.opts.CacheMaxBytes, cfg.opts.CacheMaxAge)
	}
	if cfg, _ := parseFlags(nil, noEnv, &bytes.Buffer{}); cfg.opts.CacheDir != agent.DefaultCacheDir() {
		t.Errorf("without --dir: cache %q, want the user's cache folder", cfg.opts.CacheDir)
	}
	if cfg, _ := parseFlags([]string{"--dir", "/srv/jobs"}, noEnv, &bytes.Buffer{}); cfg.opts.CacheDir != "" {
		t.Errorf("with --dir: cache %q, want the agent's default (<dir>/.build-cache)", cfg.opts.CacheDir)
	}
	if _, err := parseFlags([]string{"--cache-max-size", "big"}, noEnv, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), `--cache-max-size: "big": want a positive size`) {
		t.Errorf("--cache-max-size big: %v, want the size refused", err)
	}
}
