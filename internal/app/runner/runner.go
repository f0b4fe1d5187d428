// Package runner is the common main of the benchmark apps: flags (--address, --port,
// --metrics-port, and for HTTP apps --dispatch, --partitions, --workers), the metrics endpoint,
// "Application started." on stdout once listening, and a clean exit on SIGTERM/SIGINT.
package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"github.com/crankshaft/crankshaft/internal/app/dispatch"
	"github.com/crankshaft/crankshaft/internal/app/metrics"
)

// ReadyText is printed on stdout once the app accepts connections; the agent waits for it.
const ReadyText = "Application started."

// Defaults shared by the flags.
const (
	DefaultAddress = "0.0.0.0" // all interfaces, as TechEmpower runs its apps
	DefaultPort    = 5000
)

// App describes one app.
type App struct {
	Name string
	// Dispatch adds --dispatch, --partitions and --workers and builds Env.Pool.
	Dispatch bool
	// EventLoops adds --io (epoll, uring or auto): the I/O of the server's event loops
	// (ServeHTTPEventLoops), in Env.IO.
	EventLoops bool
	// Flags registers the app's own flags (optional).
	Flags func(fs *flag.FlagSet)
	// Serve runs the app on ln until ctx ends. It calls env.Ready once it serves.
	Serve func(ctx context.Context, ln net.Listener, env *Env) error
}

// Env is what Run hands to App.Serve.
type Env struct {
	Metrics *metrics.Metrics
	Pool    dispatch.Pool // nil for inline dispatch
	Logger  *slog.Logger
	IO      string // --io: the event loops' I/O (httpserver.Config.IO)
	ready   func()
}

// Ready prints ReadyText (once).
func (e *Env) Ready() { e.ready() }

// Main runs app with the process's arguments and signals and returns the exit code.
func Main(app App) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := Run(ctx, app, os.Args[1:], os.Stdout, log); err != nil {
		log.Error(app.Name, slog.Any("err", err))
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 1
	}
	return 0
}

type options struct {
	address     string
	port        int
	metricsPort int
	mode        string
	partitions  int
	workers     int
	mutexRate   int
	blockRate   int
	io          string
}

func (o *options) register(fs *flag.FlagSet, withDispatch, withIO bool) {
	fs.StringVar(&o.address, "address", DefaultAddress, "address to listen on")
	fs.IntVar(&o.port, "port", DefaultPort, "port to listen on")
	fs.IntVar(&o.metricsPort, "metrics-port", 0, "port of the Prometheus /metrics endpoint (0 = off)")
	fs.IntVar(&o.mutexRate, "mutex-profile-fraction", 0, "sample 1/N mutex contention events for /debug/pprof/mutex (0 = off)")
	fs.IntVar(&o.blockRate, "block-profile-rate", 0, "sample a blocking event every N nanoseconds blocked for /debug/pprof/block (0 = off)")
	if withDispatch {
		fs.StringVar(&o.mode, "dispatch", string(dispatch.Inline), "inline, shared or partitioned")
		fs.IntVar(&o.partitions, "partitions", 0, "partitions for --dispatch partitioned (0 = GOMAXPROCS)")
		fs.IntVar(&o.workers, "workers", 0, "worker goroutines (0 = GOMAXPROCS, or one per partition)")
	}
	if withIO {
		fs.StringVar(&o.io, "io", "auto", "event loops' I/O with --dispatch inline: epoll, uring or auto (uring where the kernel allows it, else epoll, saying why)")
	}
}

// Run parses args, listens, serves the metrics port when asked, and runs app until ctx ends.
func Run(ctx context.Context, app App, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet(app.Name, flag.ContinueOnError)
	var o options
	o.register(fs, app.Dispatch, app.EventLoops)
	if app.Flags != nil {
		app.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%s: flags: %w", app.Name, err)
	}
	runtime.SetMutexProfileFraction(o.mutexRate)
	runtime.SetBlockProfileRate(o.blockRate)
	env := &Env{Metrics: metrics.New(), Logger: log, IO: o.io}
	if !app.Dispatch {
		env.Metrics.RegisterQueueLength(nil)
	} else {
		pool, err := newPool(o)
		if err != nil {
			return fmt.Errorf("%s: %w", app.Name, err)
		}
		if pool != nil {
			defer pool.Close()
			env.Pool = pool
			env.Metrics.RegisterQueueLength(pool.Len)
		} else {
			env.Metrics.RegisterQueueLength(nil)
		}
	}
	return serve(ctx, app, o, env, stdout)
}

func newPool(o options) (dispatch.Pool, error) {
	mode, err := dispatch.ParseMode(o.mode)
	if err != nil {
		return nil, err
	}
	return dispatch.New(dispatch.Options{Mode: mode, Partitions: o.partitions, Workers: o.workers})
}

func serve(ctx context.Context, app App, o options, env *Env, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(o.address, strconv.Itoa(o.port)))
	if err != nil {
		return fmt.Errorf("%s: %w", app.Name, err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	errc := make(chan error, 2)
	if o.metricsPort > 0 {
		mln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(o.address, strconv.Itoa(o.metricsPort)))
		if err != nil {
			ln.Close()
			return fmt.Errorf("%s: metrics: %w", app.Name, err)
		}
		wg.Go(func() { errc <- env.Metrics.Serve(ctx, mln, env.Logger) })
	}
	var once sync.Once
	env.ready = func() { once.Do(func() { fmt.Fprintln(stdout, ReadyText) }) }
	env.Logger.Info("listening", slog.String("app", app.Name), slog.String("addr", ln.Addr().String()),
		slog.Int("metricsPort", o.metricsPort), slog.String("dispatch", o.mode))
	err = app.Serve(ctx, ln, env)
	ln.Close()
	cancel()
	wg.Wait()
	close(errc)
	for e := range errc {
		err = errors.Join(err, e)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", app.Name, err)
	}
	return nil
}
