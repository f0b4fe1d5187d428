package loadgen

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
)

// Output formats of `crank load`.
const (
	FormatText = "text"
	FormatJSON = "json"
)

// command is a parsed `crank load` command line.
type command struct {
	opts       Options
	latencyLog string // --latency-log: every measured latency, one a line
	jsonPath   string // --json: crank-shaped result file ("-": stdout)
	format     string // --output: text or json
	help       bool
}

// seconds is a duration flag that also accepts a bare number of seconds ("5" is "5s").
type seconds struct{ d *time.Duration }

func (s seconds) String() string {
	if s.d == nil {
		return ""
	}
	return s.d.String()
}

func (s seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		*s.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is neither seconds nor a duration like 5s", v)
	}
	*s.d = d
	return nil
}

// headers collects repeated --header flags.
type headers struct{ h *[]string }

func (h headers) String() string {
	if h.h == nil {
		return ""
	}
	return strings.Join(*h.h, ", ")
}

func (h headers) Set(v string) error { *h.h = append(*h.h, v); return nil }

func newFlagSet(c *command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("crank load", flag.ContinueOnError)
	fs.SetOutput(out)
	o := &c.opts
	intVar := func(p *int, long, short string, def int, usage string) {
		fs.IntVar(p, long, def, usage)
		fs.IntVar(p, short, def, "same as --"+long)
	}
	intVar(&o.Connections, "connections", "c", DefaultConnections, "TCP connections to keep open")
	intVar(&o.Threads, "threads", "t", 0, "GOMAXPROCS for the run (0: leave as is)")
	intVar(&o.Pipeline, "pipeline", "p", DefaultPipeline, "requests written at once per connection")
	intVar(&o.Rate, "rate", "R", 0, "total requests per second on a fixed schedule (0: as fast as possible)")
	intVar(&o.Streams, "streams", "m", DefaultStreams, "h2, grpc: requests in flight per connection (streaming: streams kept open)")
	fs.StringVar(&o.IO, "io", IOEpoll, "cleartext HTTP/1.1 I/O: epoll (the default), uring, or auto (uring when the kernel allows it)")
	fs.StringVar(&o.Protocol, "protocol", ProtocolHTTP1, "http1, h2 (h2c for http URLs, ALPN h2 for https) or grpc")
	fs.BoolVar(&o.Insecure, "insecure", false, "https: do not verify the server's certificate")
	fs.BoolVar(&o.Insecure, "k", false, "same as --insecure")
	fs.StringVar(&o.Call, "call", "", "grpc: unary or streaming (default unary)")
	fs.IntVar(&o.ResponseSize, "response-size", 0, "grpc: payload bytes each call asks for (SimpleRequest.response_size)")
	fs.IntVar(&o.RequestSize, "request-size", 0, "grpc: payload bytes each call sends (SimpleRequest.payload)")
	o.Duration, o.Timeout = DefaultDuration, DefaultTimeout
	for _, d := range []struct {
		p           *time.Duration
		long, short string
		usage       string
	}{
		{&o.Duration, "duration", "d", "measured duration (\"5\" or \"5s\")"},
		{&o.Warmup, "warmup", "w", "unrecorded warm-up before the measured duration"},
		{&o.Timeout, "timeout", "T", "response timeout"},
	} {
		fs.Var(seconds{d.p}, d.long, d.usage)
		fs.Var(seconds{d.p}, d.short, "same as --"+d.long)
	}
	fs.Var(headers{&o.Headers}, "header", "request header \"Name: value\" (repeatable)")
	fs.Var(headers{&o.Headers}, "H", "same as --header")
	fs.StringVar(&o.Method, "method", DefaultMethod, "request method")
	fs.Func("body", "request body", func(v string) error { o.Body = []byte(v); return nil })
	fs.Func("start-at", "begin the measured window at this RFC 3339 time (default: $"+StartAtEnv+")", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("%q is not an RFC 3339 time", v)
		}
		o.StartAt = t
		return nil
	})
	fs.StringVar(&c.latencyLog, "latency-log", c.latencyLog, "write every measured latency (microseconds, one a line) to this file (default: $"+LatencyLogEnv+")")
	fs.StringVar(&c.jsonPath, "json", "", "write a crank-shaped result to this file (\"-\": stdout)")
	fs.StringVar(&c.format, "output", FormatText, "stdout format: text or json (a JSON object of results)")
	fs.BoolVar(&c.help, "help", false, "show this help")
	return fs
}

// StartAtEnv is the environment variable the agent sets on a load job's measured run to say
// when its window begins (RFC 3339, the agent's clock); --start-at wins over it.
const StartAtEnv = api.StartAtEnv

// LatencyLogEnv, set in a generator's environment (an agent's), is --latency-log's default.
const LatencyLogEnv = "CRANK_LOAD_LATENCY_LOG"

// parseArgs parses `crank load URL [flags]`; flags may come before or after the URL. getenv
// gives StartAtEnv.
func parseArgs(args []string, getenv func(string) string) (*command, error) {
	c := &command{}
	fs := newFlagSet(c, io.Discard)
	c.latencyLog = getenv(LatencyLogEnv)
	if v := getenv(StartAtEnv); v != "" {
		if err := fs.Set("start-at", v); err != nil {
			return nil, fmt.Errorf("$%s: %w", StartAtEnv, err)
		}
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.help = true
				return c, nil
			}
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if c.help {
		return c, nil
	}
	if len(positional) != 1 {
		return nil, fmt.Errorf("want one URL, got %d arguments %q", len(positional), positional)
	}
	c.opts.URL = positional[0]
	if c.format != FormatText && c.format != FormatJSON {
		return nil, fmt.Errorf("--output must be text or json, got %q", c.format)
	}
	if err := c.opts.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// usage prints the command's help.
func usage(w io.Writer) {
	fmt.Fprint(w, "usage: crank load URL [flags]\n\n"+
		"Generates HTTP/1.1, HTTP/2 or gRPC load on URL and reports wrk-compatible measurements.\n"+
		"gRPC calls go to grpc.testing.BenchmarkService (UnaryCall or StreamingCall) when the URL has no path.\n\nFlags:\n")
	newFlagSet(&command{}, w).PrintDefaults()
}
