// Package agent is crank-agent: an HTTP API that receives jobs, puts their source in a folder of
// their own, has the runtime that accepts them (runtime.go: processes in process groups of their
// own, or Docker containers) build and start them, tells when they are ready,
// samples their CPU and memory, parses a load generator's output, and stops and deletes them
// (at the controller's request, when their lease runs out, or when the agent shuts down).
//
// The job states and their transitions are declared once, in state.go. Beyond
// docs/ARCHITECTURE.md:
//   - a job with a source.localFolder is Waiting from its creation; it may be started once its
//     upload has been extracted (409 before);
//   - a job whose requiredArchitecture/requiredOperatingSystem is not this machine's is marked
//     Skipped and stays New; starting it does nothing;
//   - any request about a job renews its lease (GET /jobs/{id} is the one a controller polls),
//     and an upload in progress holds it;
//   - GET /jobs lists every job's status; start, stop and DELETE answer the job's status;
//   - a source.repository is cloned (repo.go says which URLs and revisions are accepted) and its
//     build is cached by repository and commit, as an upload's is by its content hash; the build
//     cache (Options.CacheDir) outlives the agent and is bounded in size and age;
//   - New removes the job folders a killed agent left in the same Dir, and kills what still runs
//     in them; an agent given no Dir takes a fixed, locked one (workdir.go), so its next start
//     cleans up after a killed one;
//   - every agent has a token (a random one when none is given), unless NoToken says otherwise;
//     docs/SECURITY.md says who can do what.
package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/crankshaft/crankshaft/internal/agent/docker"
	"github.com/crankshaft/crankshaft/internal/agent/runtime"
	"github.com/crankshaft/crankshaft/internal/measure"
	"github.com/crankshaft/crankshaft/internal/parsers"
	"github.com/crankshaft/crankshaft/internal/privdir"
	"golang.org/x/net/netutil"
)

// Defaults for Options.
const (
	DefaultLease     = 30 * time.Second
	DefaultMaxUpload = 512 << 20
	DefaultInterval  = time.Second
	// DefaultStartTimeout bounds the wait for a job to be ready when the job does not say.
	DefaultStartTimeout = 60 * time.Second
	// DefaultMaxConnections bounds the connections an agent holds at once: a controller uses a few.
	DefaultMaxConnections = 256
	// DefaultMaxConnectionsPerHost bounds those one host (an IPv4 address, an IPv6 /64) holds:
	// more are closed at once, so one host cannot take them all.
	DefaultMaxConnectionsPerHost = 64
	// MaxHeaderBytes bounds a request's header (431 beyond): the API's headers are small.
	MaxHeaderBytes = 16 << 10
	// StopGrace is how long a process group has to exit after SIGTERM before SIGKILL.
	StopGrace = runtime.StopGrace
	// DefaultImageCacheMaxBytes bounds the images the agent keeps (Options.ImageCacheMaxBytes).
	DefaultImageCacheMaxBytes = docker.DefaultImageCacheMaxBytes
	// DefaultCacheMaxBytes and DefaultCacheMaxAge bound the build cache.
	DefaultCacheMaxBytes = 4 << 30
	DefaultCacheMaxAge   = 7 * 24 * time.Hour
	// DefaultMaxJobs caps the jobs an agent holds at once; DefaultMaxUploadEntries the entries
	// (files, folders, links) in one upload.
	DefaultMaxJobs          = 64
	DefaultMaxUploadEntries = 200_000
	// DefaultHeaderTimeout bounds the wait for a request's headers (a silent new connection is
	// closed after it); DefaultIdleTimeout a kept-alive connection between requests.
	DefaultHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
)

// readTimeout and writeTimeout bound a request's body and its answer; an upload moves its own
// deadlines (upload.go), so it may take as long as data keeps coming.
const (
	readTimeout  = time.Minute
	writeTimeout = 2 * time.Minute
)

// Options configure an Agent. The zero value works: every field has a default.
type Options struct {
	// Dir is the root of the job folders (created). Default: the first of DefaultDirs() no other
	// agent holds. Job folders left in Dir by an agent that was killed are removed by New, and
	// what still runs in them killed. New refuses a Dir another running agent holds (a lock file).
	Dir string
	// CacheDir keeps builds by source hash across jobs and restarts (see buildcache.Cache). Default:
	// Dir/.build-cache; StartEmbedded defaults it to DefaultCacheDir(), so that successive crank
	// runs reuse their builds. Several agents may share one CacheDir.
	CacheDir string
	// CacheMaxBytes and CacheMaxAge bound the build cache: builds unused for CacheMaxAge are
	// removed, then the least recently used until the rest fit in CacheMaxBytes. Defaults:
	// DefaultCacheMaxBytes, DefaultCacheMaxAge; negative: no bound.
	CacheMaxBytes int64
	CacheMaxAge   time.Duration
	// ImageCacheMaxBytes bounds the Docker images the agent built and keeps for reuse (the least
	// recently used go first; CacheMaxAge applies too). Default: DefaultImageCacheMaxBytes;
	// negative: no bound.
	ImageCacheMaxBytes int64
	// Lease: a job whose status has not been read for this long is stopped and deleted.
	Lease time.Duration
	// Token signs every request but /health (reqsign). Default: a random one (Agent.Token tells
	// it), unless NoToken.
	Token   string
	NoToken bool
	// AcceptBearer also accepts the token itself as "Authorization: Bearer TOKEN" (curl by hand):
	// whoever sees such a request on the network holds the token.
	AcceptBearer bool
	// SignatureWindow is how far a signed request's time may be from Clock (reqsign.DefaultWindow).
	SignatureWindow time.Duration
	// Clock is the agent's clock for signed requests (time.Now when nil; tests skew it).
	Clock func() time.Time
	// MaxUpload caps a source upload (HTTP 413 beyond), MaxUploadEntries its entries (default
	// DefaultMaxUploadEntries).
	MaxUpload        int64
	MaxUploadEntries int
	// MaxJobs caps the jobs held at once (HTTP 429 beyond; default DefaultMaxJobs).
	MaxJobs int
	// MaxConnections caps the connections Serve holds at once (DefaultMaxConnections); more wait
	// to be accepted.
	MaxConnections int
	// MaxConnectionsPerHost caps those of one host (DefaultMaxConnectionsPerHost); more are
	// closed at once.
	MaxConnectionsPerHost int
	// HeaderTimeout and IdleTimeout: see DefaultHeaderTimeout and DefaultIdleTimeout.
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	// Hardware is a free label reported in /info.
	Hardware string
	// AllowPrivilegedDocker lets Docker jobs ask for --privileged, --cap-add, --ipc=host,
	// --network=container:NAME and --security-opt seccomp=unconfined, each of which gives the job
	// the host: off, they are refused.
	AllowPrivilegedDocker bool
	// DockerHost is the Docker engine's address (unix:///run/docker.sock, tcp://...); default:
	// DOCKER_HOST, else the local socket.
	DockerHost string
	// EngineTimeout bounds each call to the Docker engine made to stop or clean up a container, and
	// the wait for a stopped container's exit beyond its grace: an engine that stops answering
	// delays a job's deletion and the agent's shutdown by at most this (default 30 s).
	EngineTimeout time.Duration
	// DotnetRoot is the folder of the dotnet binary that builds crank's .NET jobs; default: dotnet
	// on PATH.
	DotnetRoot string
	// Interval between samples, unless a job sets its own.
	Interval time.Duration
	// Parsers by name (parsers/registry builds the table); nil: none.
	Parsers map[string]parsers.Parser
	// Catalog gives the metadata of the measurements a job returns; nil: measure.Default().
	Catalog measure.Catalog
	Logger  *slog.Logger
	// Version reported in /info; default: the main module's version, or "dev".
	Version string
}

// Agent runs jobs. Build it with New.
type Agent struct {
	opts    Options
	log     *slog.Logger
	dirLock *os.File // held while the agent runs: one agent per Dir
	handler http.Handler
	// runtimes run the jobs' programs: the first that accepts a job runs it (runtime.go).
	runtimes runtime.Set
	// perfProbe says whether perf can record here, probed once at the first job asking collect.
	perfProbe func() error

	mu     sync.Mutex
	jobs   map[string]*job
	closed bool // Shutdown has begun: no new jobs

	stopLease context.CancelFunc
	leaseDone chan struct{}
	reaping   sync.WaitGroup // deletions started by the lease loop
	shutdown  sync.Once
	// after is the work a deleted job leaves (its build's next spare copy: replenish), which
	// Shutdown waits for and, past its bound, cancels through afterCtx.
	after       sync.WaitGroup
	afterCtx    context.Context
	afterCancel context.CancelFunc
	afterClosed bool // under mu: Shutdown waits for after; nothing more is added
}

// New checks the options, creates the job root and starts the lease loop.
func New(opts Options) (*Agent, error) {
	a := &Agent{jobs: make(map[string]*job), perfProbe: newPerfProbe()}
	a.afterCtx, a.afterCancel = context.WithCancel(context.Background())
	if err := a.setDefaults(&opts); err != nil {
		return nil, err
	}
	lock, err := takeDir(&opts)
	if err != nil {
		return nil, err
	}
	a.opts, a.log, a.dirLock = opts, opts.Logger, lock
	a.runtimes = newRuntimes(opts)
	cctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	if err := a.runtimes.Cleanup(cctx); err != nil {
		a.log.Warn("what an earlier agent left is not all cleaned up", "err", err)
	}
	cancel()
	a.removeLeftovers()
	a.handler = a.routes()
	ctx, cancel := context.WithCancel(context.Background())
	a.stopLease, a.leaseDone = cancel, make(chan struct{})
	go a.leaseLoop(ctx)
	return a, nil
}

func (a *Agent) setDefaults(o *Options) error {
	var err error
	if o.Dir != "" {
		if o.Dir, err = filepath.Abs(o.Dir); err != nil {
			return fmt.Errorf("agent: dir %q: %w", o.Dir, err)
		}
	}
	if o.CacheDir == "" && o.Dir == "" {
		o.CacheDir = DefaultCacheDir()
	}
	if o.CacheDir == "" {
		o.CacheDir = filepath.Join(o.Dir, buildCacheDir)
	}
	if o.CacheDir, err = filepath.Abs(o.CacheDir); err != nil {
		return fmt.Errorf("agent: cache dir: %w", err)
	}
	// A build cache another user may write (or made first under the shared temporary folder) would
	// hand this agent's jobs that user's builds.
	if strings.HasPrefix(o.CacheDir, privdir.Root()+string(filepath.Separator)) {
		err = privdir.Make(o.CacheDir)
	} else {
		err = privdir.Owned(o.CacheDir)
	}
	if err != nil {
		return fmt.Errorf("agent: build cache: %w (give --cache-dir)", err)
	}
	if o.Token == "" && !o.NoToken {
		o.Token = NewToken()
	}
	o.MaxJobs = cmp.Or(o.MaxJobs, DefaultMaxJobs)
	o.MaxConnections = cmp.Or(o.MaxConnections, DefaultMaxConnections)
	o.MaxConnectionsPerHost = cmp.Or(o.MaxConnectionsPerHost, min(DefaultMaxConnectionsPerHost, o.MaxConnections))
	o.MaxUploadEntries = cmp.Or(o.MaxUploadEntries, DefaultMaxUploadEntries)
	o.HeaderTimeout = cmp.Or(o.HeaderTimeout, DefaultHeaderTimeout)
	o.IdleTimeout = cmp.Or(o.IdleTimeout, DefaultIdleTimeout)
	if o.CacheMaxBytes == 0 {
		o.CacheMaxBytes = DefaultCacheMaxBytes
	}
	if o.ImageCacheMaxBytes == 0 {
		o.ImageCacheMaxBytes = DefaultImageCacheMaxBytes
	}
	if o.CacheMaxAge == 0 {
		o.CacheMaxAge = DefaultCacheMaxAge
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.MaxUpload <= 0 {
		o.MaxUpload = DefaultMaxUpload
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Catalog == nil {
		o.Catalog = measure.Default()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Version == "" {
		o.Version = "dev"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			o.Version = bi.Main.Version
		}
	}
	return nil
}

// Handler is the agent's HTTP API.
func (a *Agent) Handler() http.Handler { return a.handler }

// Dir is the root of the job folders.
func (a *Agent) Dir() string { return a.opts.Dir }

// Token is the bearer token the agent requires ("" with NoToken).
func (a *Agent) Token() string { return a.opts.Token }

// NewToken returns a random token (256 bits, hex).
func NewToken() string { return rand.Text() + rand.Text() }

// Serve answers on ln until ctx ends, then shuts the server and the agent down.
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: a.handler, ReadHeaderTimeout: a.opts.HeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: a.opts.IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)}
	// Bounded connections and header bytes: unauthenticated clients holding connections open with
	// endless header lines cannot grow the agent's memory (the token is checked after the headers),
	// and one host cannot hold every connection (a slowloris would keep the controller out).
	ln = netutil.LimitListener(limitPerHost(ln, a.opts.MaxConnectionsPerHost), a.opts.MaxConnections)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	a.log.Info("agent listening", "addr", ln.Addr().String(), "dir", a.opts.Dir)
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopGrace+5*time.Second)
	defer cancel()
	err := errors.Join(a.Shutdown(sctx), srv.Shutdown(sctx))
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(fmt.Errorf("agent: serve: %w", serveErr), err)
	}
	return err
}

// Shutdown stops every job (their process groups are killed), removes their folders and ends the
// lease loop. It is safe to call more than once.
func (a *Agent) Shutdown(ctx context.Context) error {
	var err error
	a.shutdown.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.mu.Unlock()
		a.stopLease()
		<-a.leaseDone
		var wg sync.WaitGroup
		for _, j := range a.allJobs() {
			wg.Go(func() { a.deleteJob(j, "agent shutdown") })
		}
		done := make(chan struct{})
		go func() {
			wg.Wait()
			a.mu.Lock()
			a.afterClosed = true
			a.mu.Unlock()
			a.after.Wait()
			close(done)
		}()
		select {
		case <-done:
			a.afterCancel()
		case <-ctx.Done():
			a.afterCancel()
			err = fmt.Errorf("agent shutdown: %w", ctx.Err())
			return
		}
		if a.dirLock != nil {
			a.dirLock.Close()
		}
		a.log.Info("agent shut down")
	})
	return err
}

// StartEmbedded starts an agent on 127.0.0.1 (a free port) for `crank` runs that name no agent.
// Its token is opts.Token (the caller makes one with NewToken and keeps it in memory); its folder
// the first of DefaultDirs() free, so the next start cleans what a killed crank left; its build
// cache DefaultCacheDir(), unless opts say otherwise. stop shuts it down (every job stopped,
// folders removed); it also stops when ctx ends.
func StartEmbedded(ctx context.Context, opts Options) (url string, stop func(context.Context) error, err error) {
	if opts.Token == "" && !opts.NoToken {
		return "", nil, errors.New("embedded agent: no token (make one with agent.NewToken)")
	}
	a, err := New(opts)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = a.Shutdown(ctx)
		return "", nil, fmt.Errorf("embedded agent: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- a.Serve(sctx, ln) }()
	stop = func(ctx context.Context) error {
		cancel()
		select {
		case err := <-served:
			served <- err // a second stop sees the same answer
			return err
		case <-ctx.Done():
			return fmt.Errorf("embedded agent stop: %w", ctx.Err())
		}
	}
	return "http://" + ln.Addr().String(), stop, nil
}

func (a *Agent) allJobs() []*job {
	a.mu.Lock()
	defer a.mu.Unlock()
	js := make([]*job, 0, len(a.jobs))
	for _, j := range a.jobs {
		js = append(js, j)
	}
	return js
}
