package loadgen

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/flags"
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

// newFlagSet declares crank load's flags; their defaults are set in c first. Names keep their
// case: wrk's -t (threads) and -T (timeout) differ.
func newFlagSet(c *command) *flags.Set {
	fs := &flags.Set{CaseSet: true}
	o := &c.opts
	o.Connections, o.Pipeline, o.Streams, o.IO, o.Protocol, o.Method = DefaultConnections, DefaultPipeline, DefaultStreams, IOAuto, ProtocolHTTP1, DefaultMethod
	o.Duration, o.Timeout, c.format = DefaultDuration, DefaultTimeout, FormatText
	fs.Int(&o.Connections, "TCP connections to keep open", "connections", "c")
	fs.Int(&o.Threads, "GOMAXPROCS for the run (0: leave as is)", "threads", "t")
	fs.Int(&o.Pipeline, "requests written at once per connection", "pipeline", "p")
	fs.Int(&o.Rate, "total requests per second on a fixed schedule (0: as fast as possible)", "rate", "R")
	fs.Int(&o.Streams, "h2, grpc: requests in flight per connection (streaming: streams kept open)", "streams", "m")
	fs.String(&o.IO, "cleartext HTTP/1.1 I/O: auto (the default: io_uring where the kernel allows it, else epoll, saying why), uring or epoll", "io")
	fs.String(&o.Protocol, "http1, h2 (h2c for http URLs, ALPN h2 for https) or grpc", "protocol")
	fs.Bool(&o.Insecure, "https: do not verify the server's certificate", "insecure", "k")
	fs.String(&o.Call, "grpc: unary or streaming (default unary)", "call")
	fs.Int(&o.ResponseSize, "grpc: payload bytes each call asks for (SimpleRequest.response_size)", "response-size")
	fs.Int(&o.RequestSize, "grpc: payload bytes each call sends (SimpleRequest.payload)", "request-size")
	fs.Var(seconds{&o.Duration}, "measured duration (\"5\" or \"5s\")", "duration", "d")
	fs.Var(seconds{&o.Warmup}, "unrecorded warm-up before the measured duration", "warmup", "w")
	fs.Var(seconds{&o.Timeout}, "response timeout", "timeout", "T")
	fs.Var(headers{&o.Headers}, "request header \"Name: value\" (repeatable)", "header", "H")
	fs.String(&o.Method, "request method", "method")
	fs.Func("request body", func(v string) error { o.Body = []byte(v); return nil }, "body")
	fs.Func("begin the measured window at this RFC 3339 time (default: $"+StartAtEnv+")", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("%q is not an RFC 3339 time", v)
		}
		o.StartAt = t
		return nil
	}, "start-at")
	fs.String(&c.latencyLog, "write every measured latency (microseconds, one a line) to this file (default: $"+LatencyLogEnv+")", "latency-log")
	fs.String(&c.jsonPath, "write a crank-shaped result to this file (\"-\": stdout)", "json")
	fs.String(&c.format, "stdout format: text or json (a JSON object of results)", "output")
	fs.Bool(&c.help, "show this help", "help")
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
	c := &command{latencyLog: getenv(LatencyLogEnv)}
	fs := newFlagSet(c)
	if v := getenv(StartAtEnv); v != "" {
		if err := fs.Set("start-at", v); err != nil {
			return nil, fmt.Errorf("$%s: %w", StartAtEnv, err)
		}
	}
	positional, err := fs.Parse(args)
	if flags.IsHelp(err) {
		c.help = true
		return c, nil
	}
	if err != nil {
		return nil, err
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
	newFlagSet(&command{}).Usage(w)
}
