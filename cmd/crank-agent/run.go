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
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/crankshaft/crankshaft/internal/agent"
	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/parsers/registry"
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
	tokenArg  bool // the token was given on the command line (ps shows it)
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
	err = serve(ctx, cfg, nil)
	var r refusal
	if errors.As(err, &r) {
		fmt.Fprintf(stderr, "crank-agent: %v\n", err)
		return 2
	}
	if err != nil {
		log.Error("crank-agent stopped", "err", err)
		return 1
	}
	return 0
}

// refusal is a setting the agent will not run with, found once it knows its address.
type refusal struct{ error }

// parseFlags reads the flags (and CRANK_AGENT_TOKEN) and checks them. serve checks the address
// the agent listens on once resolved.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("crank-agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rawURL := fs.String("url", DefaultURL, "scheme, host and port to listen on (https needs --cert and --key)")
	fs.StringVar(&cfg.token, "token", "", "token that signs every request but /health; other users see it in ps: prefer $"+tokenEnv+" or --token-file")
	fs.BoolVar(&cfg.opts.AcceptBearer, "accept-bearer", false, "also accept the token itself as \"Authorization: Bearer TOKEN\" (curl by hand): whoever sees such a request on the network holds the token")
	tokenFile := fs.String("token-file", "", "read the token from this file's first line")
	fs.BoolVar(&cfg.insecure, "insecure", false, "require no token at all, on any address (a trusted, isolated network only)")
	fs.StringVar(&cfg.cert, "cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&cfg.key, "key", "", "TLS key file (PEM)")
	fs.DurationVar(&cfg.opts.Lease, "lease", agent.DefaultLease, "stop and delete a job whose status has not been read for this long")
	fs.StringVar(&cfg.opts.Dir, "dir", "", "root of the job folders (default the first free of "+filepath.Dir(agent.DefaultDirs()[0])+"/0..15, cleaned at the next start after a kill)")
	fs.StringVar(&cfg.opts.CacheDir, "cache-dir", "", "build cache, kept across restarts (default <dir>/.build-cache with --dir, else "+agent.DefaultCacheDir()+")")
	cacheMax := fs.String("cache-max-size", "4GiB", "largest build cache: least recently used builds are removed beyond it")
	fs.DurationVar(&cfg.opts.CacheMaxAge, "cache-max-age", agent.DefaultCacheMaxAge, "remove cached builds unused for this long")
	imageMax := fs.String("image-cache-max-size", "16GiB", "largest total of the Docker images kept for reuse: least recently used ones are removed beyond it (--cache-max-age applies too)")
	fs.StringVar(&cfg.opts.Hardware, "hardware", "", "free label for this machine, reported in /info")
	fs.BoolVar(&cfg.opts.AllowPrivilegedDocker, "allow-privileged-docker", false, "let Docker jobs use --privileged, --cap-add of a capability their containers do not keep (NET_RAW, SYS_ADMIN...), --ipc=host, --network=container:NAME and --security-opt seccomp=unconfined (io_uring): each gives every token holder root on this machine")
	fs.StringVar(&cfg.opts.DotnetRoot, "dotnet-root", "", "folder of the dotnet binary that builds crank's .NET jobs (source.project); default: dotnet on PATH")
	maxUpload := fs.String("max-upload", "512MiB", "largest source upload accepted (bytes, or with KiB, MiB, GiB)")
	fs.IntVar(&cfg.opts.MaxUploadEntries, "max-upload-entries", agent.DefaultMaxUploadEntries, "most files, folders and links in one source upload")
	fs.IntVar(&cfg.opts.MaxJobs, "max-jobs", agent.DefaultMaxJobs, "most jobs held at once (finished ones count until deleted or their lease runs out)")
	fs.IntVar(&cfg.opts.MaxConnections, "max-connections", agent.DefaultMaxConnections, "most connections held at once; more wait to be accepted")
	fs.IntVar(&cfg.opts.MaxConnectionsPerHost, "max-connections-per-host", agent.DefaultMaxConnectionsPerHost, "most connections one host (IPv4 address, IPv6 /64) holds at once; more are closed")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, flagError{err}
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.opts.MaxUploadEntries < 1 || cfg.opts.MaxJobs < 1 {
		return cfg, errors.New("--max-upload-entries and --max-jobs must be at least 1")
	}
	var err error
	cfg.tokenArg = cfg.token != ""
	if *tokenFile != "" {
		if cfg.tokenArg {
			return cfg, errors.New("give --token or --token-file, not both")
		}
		if cfg.token, err = api.ReadTokenFile(*tokenFile); err != nil {
			return cfg, fmt.Errorf("--token-file: %w", err)
		}
	}
	if cfg.token == "" {
		cfg.token = getenv(tokenEnv)
	}
	if cfg.insecure && cfg.token != "" {
		return cfg, errors.New("--insecure means no token: do not give one too")
	}
	cfg.opts.Token, cfg.opts.NoToken = cfg.token, cfg.insecure
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

// checkListen decides on the address the listener got (a name such as localhost resolved): with
// no token, the agent makes one up and keeps it in a file only its user reads, which works for a
// crank on the same machine; beyond loopback it refuses, unless insecure. Anyone who can reach a
// tokenless agent could run any command on the machine.
//
// Beyond loopback a token shorter than minTokenLen is refused too: a request signed with it, seen
// once on the network, lets anyone guess it offline (the HMAC is an oracle for each guess).
func checkListen(addr net.Addr, host, token string, insecure bool) error {
	if token != "" && !isLoopback(addr) && utf8.RuneCountInString(token) < minTokenLen {
		return refusal{fmt.Errorf("refusing a token of %d characters on %q: whoever sees one signed request on the network can guess a short token offline; "+
			"give one of at least %d random characters (%s, --token-file or --token; agents/install.sh makes 32 random bytes), or pass --insecure on a trusted network",
			utf8.RuneCountInString(token), host, minTokenLen, tokenEnv)}
	}
	if token != "" || insecure || isLoopback(addr) {
		return nil
	}
	return refusal{fmt.Errorf("refusing to listen on %q without a token: the agent runs any command it is sent, "+
		"so give a token (%s, --token-file or --token), listen on 127.0.0.1, or pass --insecure on a trusted network", host, tokenEnv)}
}

// minTokenLen is the fewest characters of a token an agent beyond loopback takes.
const minTokenLen = 20

func isLoopback(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
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
	if err := checkListen(ln.Addr(), cfg.listen.Hostname(), cfg.token, cfg.insecure); err != nil {
		ln.Close()
		return err
	}
	addr := ln.Addr()
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
	log := cfg.opts.Logger
	switch {
	case cfg.insecure:
		log.Warn("no token (--insecure): anyone who reaches this address can run commands as this user", "addr", addr.String())
	case cfg.tokenArg:
		log.Warn("the token is on the command line, where other users see it (ps): prefer " + tokenEnv + " or --token-file")
	}
	if cfg.token == "" && !cfg.insecure {
		path, err := api.WriteTokenFile(addr, a.Token())
		if err != nil {
			ln.Close()
			return errors.Join(err, a.Shutdown(ctx))
		}
		defer os.Remove(path)
		log.Info("no token given: made one, readable by this user only; crank on this machine finds it", "file", path)
	}
	if onListen != nil {
		onListen(addr)
	}
	start := time.Now()
	err = a.Serve(ctx, ln)
	log.Info("crank-agent exiting", "uptime", time.Since(start).Round(time.Second).String())
	return err
}
