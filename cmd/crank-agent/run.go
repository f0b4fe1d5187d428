package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/drivers/registry"
)

// Flag defaults.
const (
	DefaultURL = "http://127.0.0.1:5010"
	tokenEnv   = "CRANK_AGENT_TOKEN"
)

// config is the command line, checked.
type config struct {
	listen    *url.URL
	token     string
	insecure  bool
	cert, key string
	opts      agent.Options
}

// flagError is an error the flag package has already printed with the usage.
type flagError struct{ error }

// run is the whole command with its inputs injected; it returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg, err := parseFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		if !errors.As(err, new(flagError)) {
			fmt.Fprintf(stderr, "crank-agent: %v\n", err)
		}
		return 2
	}
	cfg.opts.Logger = log
	if err := serve(ctx, cfg, nil); err != nil {
		log.Error("crank-agent stopped", "err", err)
		return 1
	}
	return 0
}

// parseFlags reads the flags (and CRANK_AGENT_TOKEN) and checks them, including that a
// non-loopback address has a token or --insecure.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("crank-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rawURL := fs.String("url", DefaultURL, "scheme, host and port to listen on (https needs --cert and --key)")
	fs.StringVar(&cfg.token, "token", "", "bearer token required on every endpoint but /health (default $"+tokenEnv+")")
	fs.BoolVar(&cfg.insecure, "insecure", false, "allow listening on a non-loopback address without a token")
	fs.StringVar(&cfg.cert, "cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&cfg.key, "key", "", "TLS key file (PEM)")
	fs.DurationVar(&cfg.opts.Lease, "lease", agent.DefaultLease, "stop and delete a job whose status has not been read for this long")
	fs.StringVar(&cfg.opts.Dir, "dir", "", "root of the job folders (default a temporary folder removed at exit)")
	fs.StringVar(&cfg.opts.CacheDir, "cache-dir", "", "build cache, kept across restarts (default <dir>/.build-cache with --dir, else "+agent.DefaultCacheDir()+")")
	cacheMax := fs.String("cache-max-size", "4GiB", "largest build cache: least recently used builds are removed beyond it")
	fs.DurationVar(&cfg.opts.CacheMaxAge, "cache-max-age", agent.DefaultCacheMaxAge, "remove cached builds unused for this long")
	imageMax := fs.String("image-cache-max-size", "16GiB", "largest total of the Docker images kept for reuse: least recently used ones are removed beyond it (--cache-max-age applies too)")
	fs.StringVar(&cfg.opts.Hardware, "hardware", "", "free label for this machine, reported in /info")
	maxUpload := fs.String("max-upload", "512MiB", "largest source upload accepted (bytes, or with KiB, MiB, GiB)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, flagError{err}
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.token == "" {
		cfg.token = getenv(tokenEnv)
	}
	cfg.opts.Token = cfg.token
	var err error
	if cfg.opts.MaxUpload, err = parseSize(*maxUpload); err != nil {
		return cfg, fmt.Errorf("--max-upload: %w", err)
	}
	if cfg.opts.CacheMaxBytes, err = parseSize(*cacheMax); err != nil {
		return cfg, fmt.Errorf("--cache-max-size: %w", err)
	}
	if cfg.opts.ImageCacheMaxBytes, err = parseSize(*imageMax); err != nil {
		return cfg, fmt.Errorf("--image-cache-max-size: %w", err)
	}
	if cfg.opts.CacheDir == "" && cfg.opts.Dir == "" {
		cfg.opts.CacheDir = agent.DefaultCacheDir()
	}
	if cfg.listen, err = parseListenURL(*rawURL, cfg.cert, cfg.key); err != nil {
		return cfg, err
	}
	if err := checkListen(cfg.listen.Hostname(), cfg.token, cfg.insecure); err != nil {
		return cfg, err
	}
	cfg.opts.Parsers = registry.Builtin()
	return cfg, nil
}

func parseListenURL(raw, cert, key string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("--url %q: want http(s)://host:port", raw)
	}
	if u.Port() == "" {
		return nil, fmt.Errorf("--url %q: give the port", raw)
	}
	if u.Scheme == "https" && (cert == "" || key == "") {
		return nil, fmt.Errorf("--url %q is https: give --cert and --key", raw)
	}
	if u.Scheme == "http" && (cert != "" || key != "") {
		return nil, fmt.Errorf("--cert/--key need an https --url")
	}
	return u, nil
}

// checkListen refuses a non-loopback address without a token, unless insecure: anyone who can
// reach the agent could otherwise run any command on the machine.
func checkListen(host, token string, insecure bool) error {
	if token != "" || insecure || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("refusing to listen on %q without a token: the agent runs any command it is sent, "+
		"so give --token (or %s), listen on 127.0.0.1, or pass --insecure on a trusted network", host, tokenEnv)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseSize reads "1048576", "512MiB", "1GiB", "64KiB".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = n, u.m
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size", s)
	}
	return n * mult, nil
}

// serve listens, runs the agent until ctx ends, then shuts it down. onListen, if set, learns the
// address (tests listen on port 0).
func serve(ctx context.Context, cfg config, onListen func(net.Addr)) error {
	ln, err := net.Listen("tcp", cfg.listen.Host)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.listen.Host, err)
	}
	if cfg.listen.Scheme == "https" {
		cert, err := tls.LoadX509KeyPair(cfg.cert, cfg.key)
		if err != nil {
			ln.Close()
			return fmt.Errorf("TLS: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	a, err := agent.New(cfg.opts)
	if err != nil {
		ln.Close()
		return err
	}
	if onListen != nil {
		onListen(ln.Addr())
	}
	start := time.Now()
	err = a.Serve(ctx, ln)
	cfg.opts.Logger.Info("crank-agent exiting", "uptime", time.Since(start).Round(time.Second).String())
	return err
}
